"""The integrity confirmation against a real model server (llama-cpp-python serving
SmolLM2-135M, :mod:`tests.realmodel`): the step runs, every flagged result is recorded
with whatever the small model answered, validly or as not judged, and ``judge.calls``
equals the server's own log."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from judgekit.integrity.confirm import verdict_schema
from judgekit.integrity.models import IntegrityRecord
from tests.clirun import judgekit
from tests.integrity.runs import write_run

pytestmark = pytest.mark.realmodel


def test_a_real_model_confirms_or_leaves_each_flagged_result_not_judged(
        llama_server: object, tmp_path: Path) -> None:
    runs = write_run(tmp_path / "runs.jsonl")  # one flagged result kept: a small model is slow
    runs.write_text("".join(line + "\n" for line in runs.read_text().splitlines()
                            if '"id": "t1"' in line))
    before = llama_server.requests()  # type: ignore[attr-defined]
    result = judgekit("judge", runs, "--judge", "openai:smollm2", "--base-url",
                      llama_server.base_url, "--no-pairwise", "--no-audit",  # type: ignore[attr-defined]
                      "--no-cache", "--out", tmp_path / "out", cwd=tmp_path, timeout=600)
    assert result.returncode in (0, 1), result.stderr  # 1: every answer failed
    seen = llama_server.requests()[len(before):]  # type: ignore[attr-defined]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["judge"]["calls"] == len(seen) >= 1
    records = [IntegrityRecord.model_validate_json(line)
               for line in (tmp_path / "out" / "integrity.jsonl").open()]
    assert [(r.task_id, r.arm) for r in records] == [("t1", "a")]
    for r in records:
        if r.confirmation in ("confirmed", "cleared"):
            assert r.state == "valid" and r.verdict is not None and r.evidence_verified
            jsonschema.validate(r.verdict.model_dump(), verdict_schema())
        else:
            assert r.confirmation == "not_judged" and r.reason
    s = summary["integrity"]
    assert s["judged"] is True
    assert s["n_confirmed"] + s["n_cleared"] + s["n_not_judged"] == 1
    assert "integrity: 1 of 2 results flagged" in result.stderr
