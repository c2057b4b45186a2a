"""Audit verdicts against other runs: a score 1 (the task made success impossible) on a
task that another result passed with verified tests is contradicted, with the evidence,
and listed apart from the suspected tasks; flaky tests are never contradicted by a pass."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from judgekit.cli import main
from judgekit.testing import FakeAPIServer, Reply, prompt_of
from tests.audit.helpers import defect_verdict, result, write_runs


def blames_everything(api: str, body: dict[str, Any]) -> Reply:
    """Score 1 on every failed result: flaky tests for flaky-*, environment drift else."""
    kind = "flaky-tests" if "flaky-" in prompt_of(body) else "environment-drift"
    return Reply.ok(defect_verdict(deficiency_type=kind))


@pytest.fixture
def audited(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    monkeypatch.setenv("OPENAI_API_KEY", "test-openai-key")
    runs = write_runs(tmp_path / "runs.json", [
        result("drift-1", "a", "failed"), result("drift-1", "a", "failed", attempt=1),
        result("drift-1", "b", "passed"),                       # a verified pass: contradicts
        result("flaky-1", "a", "failed"), result("flaky-1", "b", "passed"),
        result("drift-2", "a", "failed"), result("drift-2", "b", "failed")])  # no pass
    out = tmp_path / "out"
    with FakeAPIServer(blames_everything) as server:
        code = main(["audit", str(runs), "--judge", "openai:gpt-4.1-mini", "--base-url",
                     server.openai_base_url, "--rubric", "swe-bench", "--out", str(out),
                     "--no-similarity", "--no-cache"])
    assert code == 0
    return {"summary": json.loads((out / "summary.json").read_text())["audit"],
            "records": [json.loads(x) for x in (out / "audit.jsonl").read_text().splitlines()],
            "md": (out / "report.md").read_text()}


def test_a_score_1_on_a_task_another_arm_passed_is_contradicted(audited) -> None:
    by_key = {(r["task_id"], r["arm"], r["attempt"]): r for r in audited["records"]}
    for attempt in (0, 1):
        rec = by_key[("drift-1", "a", attempt)]
        assert rec["verdict"]["score"] == 1 and rec["contradicted"] is True
        assert rec["contradicted_by"] == ["drift-1 / b / attempt 0 passed its tests, 3 tests ran"]
    assert by_key[("flaky-1", "a", 0)]["contradicted"] is False  # a flaky test passes sometimes
    assert "contradicted_by" not in by_key[("flaky-1", "a", 0)]
    assert not any(by_key[("drift-2", arm, 0)]["contradicted"] for arm in "ab")


def test_contradicted_verdicts_are_listed_apart_from_the_suspected_tasks(audited) -> None:
    summary = audited["summary"]
    assert summary["n_contradicted"] == 2
    assert [c.split(":")[0] for c in summary["contradicted"]] == [
        "drift-1 / a / attempt 0 (Environment Drift)", "drift-1 / a / attempt 1 (Environment Drift)"]
    assert summary["suspected_tasks"] == ["drift-2"]
    tasks = {t["task_id"]: t for t in summary["tasks"]}
    assert tasks["drift-1"]["n_contradicted"] == 2 and not tasks["drift-1"]["suspected"]


def test_the_report_lists_the_contradicted_verdicts(audited) -> None:
    md = audited["md"]
    assert "**Contradicted verdicts** (2)" in md
    assert "drift-1 / a / attempt 1 (Environment Drift): drift-1 / b / attempt 0 passed" in md


def test_an_audit_jury_verdict_is_contradicted_too(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-openai-key")
    runs = write_runs(tmp_path / "runs.json", [result("drift-1", "a", "failed"),
                                               result("drift-1", "b", "passed")])
    out = tmp_path / "out"
    with FakeAPIServer(blames_everything) as one, FakeAPIServer(blames_everything) as two:
        code = main(["audit", str(runs), "--rubric", "swe-bench", "--judge",
                     f"openai:j1@{one.openai_base_url}", "--judge",
                     f"openai:j2@{two.openai_base_url}", "--out", str(out),
                     "--no-similarity", "--no-cache"])
    assert code == 0
    (rec,) = [json.loads(x) for x in (out / "audit.jsonl").read_text().splitlines()]
    assert rec["contradicted"] is True and set(rec["judges"]) == {"openai:j1", "openai:j2"}
    summary = json.loads((out / "summary.json").read_text())["audit"]
    assert summary["n_contradicted"] == 1 and summary["jury"]["judges"]
