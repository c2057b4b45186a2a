"""End to end: ``judgekit audit`` against the fake API, through the real SDKs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from judgekit.cli import main
from judgekit.testing import FakeAPIServer, Reply, prompt_of
from tests.audit.helpers import (
    agent_verdict,
    defect_verdict,
    is_reask,
    standard_results,
    write_runs,
)

SUMMARY_KEYS = {"n_failed", "n_valid", "n_unscored", "n_error", "n_ife", "by_type",
                "suspected_tasks"}
RECORD_KEYS = {"task_id", "arm", "attempt", "state", "verdict", "evidence_verified", "tries"}


def sound_judge(api: str, body: dict[str, Any]) -> Reply:
    """Blames the task for calc-002 (vacuous), the agent for everything else."""
    return Reply.ok(defect_verdict() if "calc-002" in prompt_of(body) else agent_verdict())


def audit(tmp_path: Path, server: FakeAPIServer, provider: str, *extra: str,
          runs: Path | None = None) -> tuple[int, dict[str, Any], list[dict[str, Any]]]:
    runs = runs or write_runs(tmp_path / "runs.json", standard_results())
    url = server.url if provider == "anthropic" else server.openai_base_url
    model = "anthropic:claude-haiku-4-5" if provider == "anthropic" else "openai:gpt-4.1-mini"
    out = tmp_path / "out"
    code = main(["audit", str(runs), "--judge", model, "--base-url", url, "--out", str(out),
                 "--no-similarity", "--no-cache", *extra])
    summary = json.loads((out / "summary.json").read_text())
    records = [json.loads(line) for line in (out / "audit.jsonl").read_text().splitlines()]
    return code, summary, records


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-anthropic-key")
    monkeypatch.setenv("OPENAI_API_KEY", "test-openai-key")


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_audit_writes_records_and_summary_for_both_providers(
        tmp_path: Path, provider: str) -> None:
    with FakeAPIServer(sound_judge) as server:
        code, summary, records = audit(tmp_path, server, provider)
    assert code == 0
    audit_part = summary["audit"]
    assert SUMMARY_KEYS <= set(audit_part)
    assert len(records) == 4 and audit_part["n_failed"] == 4  # passed calc-003 not audited
    assert all(RECORD_KEYS <= set(r) for r in records)
    assert {r["task_id"] for r in records} == {"calc-001", "calc-002"}
    assert audit_part["n_valid"] == 4 and audit_part["n_ife"] == 2
    assert audit_part["by_type"] == {"Test Command Selects No Tests": 2}
    assert audit_part["suspected_tasks"] == ["calc-002"]
    vacuous = [r for r in records if r["task_id"] == "calc-002"]
    assert all(r["deficiency_type"] == "Test Command Selects No Tests" for r in vacuous)
    assert all(r["verdict"]["deficiency_type"] == "Test Command Selects No Tests"
               for r in vacuous)  # the judge wrote it in lower case
    assert all(r["evidence_verified"] and r["tries"] == 1 for r in records)
    assert all(set(r["verdict"]) == {"score", "deficiency_exists", "deficiency_caused_failure",
                                     "deficiency_type", "existence_reasoning",
                                     "causation_reasoning", "evidence"} for r in records)


def test_static_rubric_goes_to_the_cacheable_system_part(tmp_path: Path) -> None:
    with FakeAPIServer(sound_judge) as server:
        audit(tmp_path, server, "anthropic")
        bodies = [r.body for r in server.requests if r.api == "anthropic"]
    systems = {json.dumps(b["system"]) for b in bodies}
    assert len(systems) == 1 and "How the benchmark evaluates" in systems.pop()
    assert all("Test Command Selects No Tests" not in prompt_of(b).split("## Task")[0]
               for b in bodies)


def test_inconsistent_verdict_is_reasked_and_the_consistent_one_kept(tmp_path: Path) -> None:
    def judge(api: str, body: dict[str, Any]) -> Reply:
        if "calc-002" in prompt_of(body) and not is_reask(body):
            return Reply.ok(defect_verdict(deficiency_caused_failure=False))  # score 1, not caused
        return sound_judge(api, body)

    with FakeAPIServer(judge) as server:
        _, summary, records = audit(tmp_path, server, "anthropic", "--concurrency", "1")
    vacuous = [r for r in records if r["task_id"] == "calc-002"]
    assert [r["tries"] for r in vacuous] == [2, 2]
    assert all(r["state"] == "valid" and r["verdict"]["score"] == 1 for r in vacuous)
    assert summary["audit"]["n_ife"] == 2


def test_fabricated_quotes_are_reasked_once_then_reported_unverified(tmp_path: Path) -> None:
    def judge(api: str, body: dict[str, Any]) -> Reply:
        if "calc-001" in prompt_of(body):
            return Reply.ok(agent_verdict(evidence='"the agent deleted tests/test_calc.py"'))
        return sound_judge(api, body)

    with FakeAPIServer(judge) as server:
        _, summary, records = audit(tmp_path, server, "openai")
    fabricated = [r for r in records if r["task_id"] == "calc-001"]
    assert all(r["state"] == "valid" for r in fabricated)
    assert all(r["evidence_verified"] is False and r["tries"] == 2 for r in fabricated)
    assert fabricated[0]["quotes_not_found"] == ["the agent deleted tests/test_calc.py"]
    assert summary["audit"]["n_evidence_unverified"] == 2


def test_judge_without_valid_json_is_unscored_and_never_counted(tmp_path: Path) -> None:
    def judge(api: str, body: dict[str, Any]) -> Reply:
        if "calc-002" in prompt_of(body):
            return Reply.raw('{"score": 1, "deficiency_exists": tr')
        return sound_judge(api, body)

    with FakeAPIServer(judge) as server:
        _, summary, records = audit(tmp_path, server, "anthropic", "--max-tries", "2")
    broken = [r for r in records if r["task_id"] == "calc-002"]
    assert all(r["state"] == "unscored" and r["verdict"] is None for r in broken)
    assert all(r["evidence_verified"] is False for r in broken)
    part = summary["audit"]
    assert (part["n_unscored"], part["n_valid"], part["n_ife"]) == (2, 2, 0)
    assert part["by_type"] == {} and part["suspected_tasks"] == []


def test_samples_take_the_majority_with_its_agreement(tmp_path: Path) -> None:
    def judge(api: str, body: dict[str, Any]) -> Reply:
        text = prompt_of(body)
        if "calc-002" in text and "judgement 3 of 3" in text:
            return Reply.ok(agent_verdict(evidence='"no tests ran"'))
        return sound_judge(api, body)

    with FakeAPIServer(judge) as server:
        _, summary, records = audit(tmp_path, server, "anthropic", "--samples", "3")
        calls = [r for r in server.requests if r.api == "anthropic"]
    assert len(calls) == 4 * 3
    vacuous = [r for r in records if r["task_id"] == "calc-002"]
    assert all(r["samples"] == 3 and r["sample_scores"] == [1, 1, 0] for r in vacuous)
    assert all(r["verdict"]["score"] == 1 and r["agreement"] == 0.6667 for r in vacuous)
    assert summary["audit"]["samples"] == 3


def test_seed_category_names_are_accepted_with_the_scienceagentbench_rubric(
        tmp_path: Path) -> None:
    def judge(api: str, body: dict[str, Any]) -> Reply:
        if "calc-002" in prompt_of(body):
            return Reply.ok(defect_verdict(deficiency_type="EVALUATION SCRIPT DEFECTS"))
        return Reply.ok(agent_verdict())

    with FakeAPIServer(judge) as server:
        _, summary, records = audit(tmp_path, server, "anthropic", "--rubric",
                                    "scienceagentbench")
    assert summary["audit"]["by_type"] == {"Evaluation Script Defects": 2}
    assert all(r["tries"] == 1 for r in records)


def test_bobbin_examples_audit_flask_failures_and_ruff_vacuous_runs(
        tmp_path: Path, bobbin_dir: Path) -> None:
    def judge(api: str, body: dict[str, Any]) -> Reply:
        text = prompt_of(body)
        if "Task: `ruff-" in text and "harness says passed" in text:
            return Reply.ok(defect_verdict(evidence='"cargo test -p ruff_python_formatter"'))
        return Reply.ok(agent_verdict(evidence=[]))

    with FakeAPIServer(judge) as server:
        _, summary, records = audit(tmp_path, server, "openai", runs=bobbin_dir)
    part = summary["audit"]
    assert part["n_failed"] == len(records) == 46  # no bobbin result passed
    assert {r["test_status"] for r in records} >= {"failed", "error"}
    assert part["n_ife"] == 20 and part["by_type"] == {"Test Command Selects No Tests": 20}
    assert set(part["suspected_tasks"]) == {f"ruff-00{i}" for i in range(1, 6)}
    assert part["tasks"][0]["suspected"]


def test_without_judge_or_key_the_audit_exits_2_with_one_line_and_writes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.delenv("OPENAI_API_KEY")
    runs = write_runs(tmp_path / "runs.json", standard_results())
    code = main(["audit", str(runs), "--out", str(tmp_path / "out"), "--no-similarity"])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "no judge model" in lines[0] and "--judge" in lines[0]
    assert "MODEL@URL" in lines[0]
    assert not (tmp_path / "out").exists()


def test_unknown_rubric_is_one_error_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = write_runs(tmp_path / "runs.json", standard_results())
    assert main(["audit", str(runs), "--rubric", "no-such-rubric"]) == 2
    assert "no such rubric" in capsys.readouterr().err


def test_refused_calls_are_errors_reported_on_stderr(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with FakeAPIServer(lambda api, body: Reply.fault(401, message="bad key")) as server:
        code, summary, records = audit(tmp_path, server, "anthropic")
    assert code == 1
    assert all(r["state"] == "error" and r["verdict"] is None for r in records)
    part = summary["audit"]
    assert (part["n_error"], part["n_valid"], part["n_ife"]) == (4, 0, 0)
    assert "4 of 4 results ended in error" in capsys.readouterr().err


def test_judge_command_runs_the_same_audit(tmp_path: Path) -> None:
    runs = write_runs(tmp_path / "runs.json", standard_results())
    with FakeAPIServer(sound_judge) as server:
        code = main(["judge", str(runs), "--judge", "anthropic:claude-haiku-4-5",
                     "--base-url", server.url, "--no-pairwise", "--no-similarity",
                     "--rubric", "commit-revert", "--out", str(tmp_path / "out")])
    assert code == 0
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["audit"]["suspected_tasks"] == ["calc-002"]
    assert len((tmp_path / "out" / "audit.jsonl").read_text().splitlines()) == 4


def test_a_budget_smaller_than_the_rubric_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = write_runs(tmp_path / "runs.json", standard_results())
    with FakeAPIServer(sound_judge) as server:
        code = main(["audit", str(runs), "--judge", "anthropic:claude-haiku-4-5",
                     "--base-url", server.url, "--max-input-tokens", "2500"])
        assert not server.requests
    assert code == 2 and "too small" in capsys.readouterr().err
