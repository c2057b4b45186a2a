"""summary.json is one typed model whose published schema validates what judgekit writes."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from judgekit.audit.records import AuditRecord
from judgekit.pairwise import PairRecord
from judgekit.report.load import load_report_dir
from judgekit.summary import EvalSummary
from judgekit.testing import FakeAPIServer
from tests.cli.helpers import judge_cli, judge_reply, run_file
from tests.clirun import judgekit
from tests.conftest import EXAMPLE_BOBBIN, ROOT


def _schema() -> dict:
    proc = judgekit("schema", "summary")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_schema_validates_a_judge_run_with_pairwise_and_audit(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with FakeAPIServer(judge_reply) as server:
        proc = judge_cli(tmp_path, run_file(tmp_path), "--out", out, server=server)
    assert proc.returncode == 0, proc.stderr
    data = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert data["pairwise"]["a vs b"]["minimality"]["wins_b"] >= 1
    assert data["audit"]["n_failed"] == 4 and data["pairwise_run"]["n_pairs"] == 3
    jsonschema.validate(data, _schema())
    # the file is exactly the model's serialisation, and the records are typed lines
    summary = EvalSummary.model_validate(data)
    assert summary.as_json() == data
    assert summary.pairwise is not None and summary.audit is not None
    inputs = load_report_dir(out)
    assert inputs.pairwise and all(isinstance(r, PairRecord) for r in inputs.pairwise)
    assert inputs.audit and all(isinstance(r, AuditRecord) for r in inputs.audit)


def test_schema_rejects_a_mistyped_pairwise_section(tmp_path: Path) -> None:
    schema = _schema()
    bad = {"results": [], "arms": {}, "comparisons": [], "seed": 0,
           "pairwise": {"a vs b": {"minimality": {"wins_a": "three"}}}}
    try:
        jsonschema.validate(bad, schema)
    except jsonschema.ValidationError as exc:
        assert "three" in exc.message
    else:
        raise AssertionError("a string win count passed the schema")


def test_schema_validates_a_score_run_and_a_reliability_section(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = judgekit("score", EXAMPLE_BOBBIN, "--out", out)
    assert proc.returncode == 0, proc.stderr
    data = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    schema = _schema()
    jsonschema.validate(data, schema)
    data["pairwise"] = {"a vs b": {"minimality": {"wins_a": 1, "wins_b": 0, "draws": 2}},
                        "judge_reliability": {
                            "flagged": True, "reasons": ["position consistency 0.10 < 0.6"],
                            "message": "m", "threshold": 0.6, "position_consistency": 0.1,
                            "preference_fairness": 0.9, "preference_fairness_ci": [0.8, 1.0],
                            "by_dimension": {"minimality": {
                                "position_consistency": 0.1, "preference_fairness": 0.9,
                                "preference_fairness_ci": [0.8, 1.0], "n": 3}},
                            "repetition_stability": None, "n_repeats": 0,
                            "n_repeat_calls": 0}}
    jsonschema.validate(data, schema)
    rel = EvalSummary.model_validate(data).pairwise.judge_reliability
    assert rel is not None and rel.flagged and rel.by_dimension["minimality"].n == 3


def test_published_summary_schema_is_the_models() -> None:
    on_disk = json.loads((ROOT / "judgekit" / "data" / "schemas" / "summary.schema.json")
                         .read_text(encoding="utf-8"))
    assert on_disk == EvalSummary.model_json_schema()
