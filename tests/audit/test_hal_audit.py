"""``judgekit audit`` on a HAL upload: failed tasks only, materials shown and searched."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from judgekit.cli import main
from judgekit.testing import FakeAPIServer, Reply, prompt_of
from tests.audit.helpers import agent_verdict, defect_verdict

HAL = Path(__file__).parent.parent / "ingest" / "data" / "hal"
SAB = HAL / "scienceagentbench_sab_selfdebug_gpt4o_1747213800_UPLOAD.json"


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-anthropic-key")


def judge(api: str, body: dict[str, Any]) -> Reply:
    text = prompt_of(body)
    if "Task: `2`" in text:  # quotes a transcript line holding escaped quotes
        return Reply.ok(agent_verdict(
            evidence='The agent saw "{\\"failed\\": false, \\"rows\\": 2}" and replied '
                     '"DONE" although the grader failed with "KeyError: \'hazard_ratios\'"'))
    return Reply.ok(defect_verdict(
        deficiency_type="figure-evaluation",
        evidence=["but uses a different colour map and omits the legend title. Score: 20/100",
                  '"{\\"figure_score\\": 20, \\"threshold\\": 60}"']))


def run_audit(tmp_path: Path, server: FakeAPIServer) -> tuple[int, dict[str, Any], list[dict]]:
    out = tmp_path / "out"
    code = main(["audit", str(SAB), "--rubric", "scienceagentbench",
                 "--judge", "anthropic:claude-haiku-4-5", "--base-url", server.url,
                 "--out", str(out), "--no-cache", "--no-similarity"])
    summary = json.loads((out / "summary.json").read_text())
    records = [json.loads(line) for line in (out / "audit.jsonl").read_text().splitlines()]
    return code, summary, records


def test_only_failed_tasks_are_audited_with_their_evaluation_log(tmp_path: Path) -> None:
    with FakeAPIServer(judge) as server:
        code, summary, records = run_audit(tmp_path, server)
        prompts = [prompt_of(r.body) for r in server.requests if r.api == "anthropic"]
    assert code == 0
    assert sorted(r["task_id"] for r in records) == ["2", "3"]  # task 1 succeeded
    assert summary["audit"]["n_failed"] == 2
    assert all("evaluation log" in r["materials"] for r in records)
    assert len(prompts) == 2
    second = next(p for p in prompts if "Task: `2`" in p)
    assert "KeyError: 'hazard_ratios'" in second  # the evaluation log is shown to the judge
    assert "The benchmark's own verdict: failure" in second
    assert "from lifelines import CoxPHFitter" in second  # and the transcript


def test_quotes_with_escaped_quotes_and_json_fragments_verify(tmp_path: Path) -> None:
    with FakeAPIServer(judge) as server:
        _, summary, records = run_audit(tmp_path, server)
    by_task = {r["task_id"]: r for r in records}
    assert by_task["2"]["evidence_verified"] is True and by_task["2"]["tries"] == 1
    assert by_task["3"]["evidence_verified"] is True and by_task["3"]["quotes_not_found"] == []
    assert by_task["3"]["deficiency_type"] == "Figure and Visualisation Evaluation Issues"
    assert summary["audit"]["n_evidence_unverified"] == 0


def test_an_invented_quote_about_a_hal_task_still_fails(tmp_path: Path) -> None:
    def inventing(api: str, body: dict[str, Any]) -> Reply:
        return Reply.ok(agent_verdict(evidence='"{\\"failed\\": true, \\"rows\\": 0}"'))

    with FakeAPIServer(inventing) as server:
        _, summary, records = run_audit(tmp_path, server)
    assert all(r["evidence_verified"] is False and r["tries"] == 2 for r in records)
    assert records[0]["quotes_not_found"] == ['{"failed": true, "rows": 0}']
