"""``judgekit run``: arms, attempts, resume, context arms, and a run file score reads."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from judgekit.cli import main
from judgekit.execute import RunPlan, AgentCommand, load_suite, run_suite
from judgekit.ingest.models import RunResult

from .conftest import FIX_AGENT


def results(path: Path) -> list[RunResult]:
    return [RunResult.model_validate_json(line) for line in path.read_text().splitlines()]


def test_full_run_on_two_arms_then_score_reads_the_run_file(
        suite_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run.jsonl"
    code = main(["run", str(suite_file), "--agent", FIX_AGENT, "--arms", "baseline,context",
                 "--context-provider", "grep", "--attempts", "1", "--jobs", "2",
                 "--model", "test-model", "--out", str(out), "--mirror-dir",
                 str(tmp_path / "m")])
    assert code == 0
    rows = sorted(results(out), key=lambda r: r.arm)
    assert [(r.task_id, r.arm, r.attempt) for r in rows] == [
        ("calc-001", "baseline", 0), ("calc-001", "context", 0)]
    for r in rows:
        assert r.harness_status == "completed" and r.model == "test-model"
        assert "+    return a + b" in r.agent_diff
        assert "tests/test_calc.py" in r.ground_truth_diff
        assert r.test.exit_code == 0 and "2 passed" in r.test.output
        assert r.run_id == rows[0].run_id and r.duration_s is not None
    baseline, context = rows
    assert baseline.injected_files is None
    assert context.injected_files == ["calc/__init__.py"]
    capsys.readouterr()
    assert main(["score", str(out), "--json", "--no-similarity"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert "baseline" in json.dumps(summary) and "context" in json.dumps(summary)


def test_prompts_of_the_arms_differ_only_by_the_context_block(suite_file, tmp_path) -> None:
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    agent = f"cp {{prompt_file}} {prompts}/{{arm}}.md"
    plan = RunPlan(agents={"*": AgentCommand(agent)}, arms=["baseline", "context"],
                   context_source="grep", mirror_dir=str(tmp_path / "m"))
    run_suite(load_suite(suite_file), plan, tmp_path / "run.jsonl")
    base = (prompts / "baseline.md").read_text()
    ctx = (prompts / "context.md").read_text()
    assert "add() returns the difference" in base
    assert "## Code that may be relevant" in ctx and "calc/__init__.py" in ctx
    start = ctx.index("\n## Code that may be relevant")
    end = ctx.index("When you are satisfied")
    assert ctx[:start] + "\n" + ctx[end:] == base


def test_an_unfixed_attempt_records_failing_tests_and_an_empty_diff(suite_file, tmp_path):
    out = tmp_path / "run.jsonl"
    assert main(["run", str(suite_file), "--agent", "true", "--out", str(out)]) == 0
    (r,) = results(out)
    assert r.arm == "baseline" and r.agent_diff == ""
    assert r.test.exit_code != 0 and "1 failed" in r.test.output


def test_per_arm_agents_and_resume_skip_finished_attempts(suite_file, tmp_path) -> None:
    out = tmp_path / "run.jsonl"
    args = ["run", str(suite_file), "--agent-for", f"fixer={FIX_AGENT}",
            "--agent-for", "idle=true", "--arms", "fixer,idle", "--out", str(out)]
    assert main([*args, "--attempts", "1"]) == 0
    first = results(out)
    with open(out, "ab") as fh:  # an interrupted write leaves a partial line
        fh.write(b'{"task": {"id": "calc-0')
    assert main([*args, "--attempts", "1"]) == 2, "an existing run file needs --resume"
    assert main([*args, "--attempts", "2", "--resume"]) == 0
    rows = results(out)
    assert rows[:2] == first
    assert sorted((r.arm, r.attempt) for r in rows) == [
        ("fixer", 0), ("fixer", 1), ("idle", 0), ("idle", 1)]
    assert all(("return a + b" in r.agent_diff) == (r.arm == "fixer") for r in rows)


def test_a_missing_commit_is_recorded_and_a_run_of_only_harness_failures_exits_non_zero(
        project, tmp_path, capsys) -> None:
    from .conftest import write_suite

    suite = write_suite(tmp_path / "bad.yaml", project, commit="deadbeef" * 5)
    out = tmp_path / "run.jsonl"
    assert main(["run", str(suite), "--agent", "true", "--out", str(out)]) == 1
    (r,) = results(out)
    assert r.harness_status == "checkout_failed" and "not found" in r.harness_error
    err = capsys.readouterr().err
    assert "calc-001 baseline #0: checkout failed (commit deadbeef" in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("judgekit: every attempt (1) failed before its agent could be "
                           "judged: checkout failed")


def test_each_attempt_prints_its_real_outcome(suite_file, tmp_path, capsys) -> None:
    out = tmp_path / "run.jsonl"
    args = ["run", str(suite_file), "--out", str(out), "--arms", "fixer,idle,slow,missing",
            "--agent-for", f"fixer={FIX_AGENT}", "--agent-for", "idle=true",
            "--agent-for", "slow=sleep 30", "--agent-for", "missing=no-such-agent-xyz",
            "--timeout", "1"]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "calc-001 fixer #0: tests passed (2 run)" in err
    assert "calc-001 idle #0: no change; tests failed (2 run)" in err
    assert "calc-001 slow #0: agent timed out after 1s; no change; tests failed" in err
    assert "calc-001 missing #0: agent never started (agent command exited 127" in err
    assert ": done" not in err


def test_a_missing_tmp_dir_fails_at_once(suite_file, tmp_path, capsys) -> None:
    out = tmp_path / "run.jsonl"
    code = main(["run", str(suite_file), "--agent", "true", "--out", str(out),
                 "--tmp-dir", str(tmp_path / "nope")])
    assert code == 2 and not out.exists()
    assert "--tmp-dir" in capsys.readouterr().err


def test_out_json_is_one_run_document_that_score_reads_and_resume_continues(
        suite_file, tmp_path, capsys) -> None:
    from judgekit.ingest.models import RunFile

    out = tmp_path / "run.json"
    args = ["run", str(suite_file), "--agent", FIX_AGENT, "--out", str(out),
            "--run-id", "r1"]
    assert main([*args, "--attempts", "1"]) == 0
    doc = RunFile.model_validate_json(out.read_text())
    assert doc.run_id == "r1" and [r.attempt for r in doc.results] == [0]
    assert doc.metadata["suite"] == "calc"
    assert not list(tmp_path.glob(".run.json.journal")), "the journal goes once written"
    assert main([*args, "--attempts", "1"]) == 2, "an existing run file needs --resume"
    assert main([*args, "--attempts", "2", "--resume"]) == 0
    again = RunFile.model_validate_json(out.read_text())
    assert again.results[0] == doc.results[0]
    assert sorted(r.attempt for r in again.results) == [0, 1]
    capsys.readouterr()
    assert main(["score", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert len(summary["results"]) == 2


def test_a_json_run_interrupted_before_its_final_write_resumes_from_the_journal(
        suite_file, tmp_path) -> None:
    from judgekit.execute import RunWriter
    from judgekit.ingest.models import RunFile

    out = tmp_path / "run.json"
    plan = RunPlan(agents={"*": AgentCommand("true")}, arms=["a", "b"])
    run_suite(load_suite(suite_file), plan, out)
    first = RunFile.model_validate_json(out.read_text()).results
    writer = RunWriter(out, resume=True, flush_s=3600)  # a crash: journal only, no rewrite
    extra = first[0].model_copy(update={"attempt": 1})
    writer.add(extra)
    assert len(RunFile.model_validate_json(out.read_text()).results) == 2
    resumed = RunWriter(out, resume=True)
    assert resumed.done() == {("calc-001", "a", 0), ("calc-001", "b", 0), ("calc-001", "a", 1)}
    resumed.close()
    assert len(RunFile.model_validate_json(out.read_text()).results) == 3


def test_tasks_filter_runs_only_the_named_tasks(project, tmp_path, capsys) -> None:
    import yaml

    from .conftest import write_suite

    suite = write_suite(tmp_path / "s.yaml", project)
    doc = yaml.safe_load(suite.read_text())
    doc["tasks"].append({**doc["tasks"][0], "id": "calc-002"})
    suite.write_text(yaml.safe_dump(doc))
    out = tmp_path / "run.jsonl"
    assert main(["run", str(suite), "--agent", "true", "--tasks", "calc-002",
                 "--out", str(out)]) == 0
    assert [r.task_id for r in results(out)] == ["calc-002"]
    assert main(["run", str(suite), "--agent", "true", "--tasks", "calc-009",
                 "--out", str(tmp_path / "x.jsonl")]) == 2
    assert "calc-009" in capsys.readouterr().err


def test_cancelling_a_run_keeps_finished_results_and_starts_nothing_more(
        suite_file, tmp_path) -> None:
    import threading

    cancel = threading.Event()
    out = tmp_path / "run.jsonl"
    workspaces = tmp_path / "ws"
    workspaces.mkdir()
    plan = RunPlan(agents={"quick": AgentCommand("true"), "slow": AgentCommand("sleep 60")},
                   arms=["quick", "slow"], attempts=3, tmp_dir=str(workspaces))
    seen: list[RunResult] = []

    def progress(result: RunResult) -> None:
        seen.append(result)
        threading.Timer(0.5, cancel.set).start()  # while "slow" #0 runs

    summary = run_suite(load_suite(suite_file), plan, out, progress=progress, cancel=cancel)
    assert summary.cancelled and summary.written == 1 and summary.not_run == 5
    assert [(r.arm, r.attempt) for r in results(out)] == [("quick", 0)]
    assert list(workspaces.iterdir()) == []


def test_context_arm_without_the_index_extra_is_a_clear_config_error(
        suite_file, tmp_path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    import judgekit

    monkeypatch.setitem(sys.modules, "judgekit.index", None)  # as if the extra were absent
    monkeypatch.delattr(judgekit, "index", raising=False)  # set once any test imported it
    code = main(["run", str(suite_file), "--agent", "true", "--arms", "context",
                 "--out", str(tmp_path / "r.jsonl")])
    assert code == 2
    assert "judgekit[index]" in capsys.readouterr().err
    assert not (tmp_path / "r.jsonl").exists()


def test_agent_for_an_unknown_arm_is_rejected(suite_file, tmp_path, capsys) -> None:
    code = main(["run", str(suite_file), "--agent", "true", "--agent-for", "x=true",
                 "--out", str(tmp_path / "r.jsonl")])
    assert code == 2 and "not in --arms" in capsys.readouterr().err


def test_context_arm_with_the_semantic_index_injects_and_scores_files(
        suite_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The default context source: the real index (packaged model, offline) feeds the context arm."""
    pytest.importorskip("sentence_transformers")
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    agent = f"cp {{prompt_file}} {prompts}/{{arm}}.md && {FIX_AGENT}"
    out = tmp_path / "run.jsonl"
    code = main(["run", str(suite_file), "--agent", agent, "--arms", "baseline,context",
                 "--out", str(out), "--mirror-dir", str(tmp_path / "m"), "--attempts", "2",
                 "--index-dir", str(tmp_path / "idx"), "--sandbox", "none"])
    assert code == 0
    contexts = [r for r in results(out) if r.arm == "context"]
    built = [r.metadata for r in contexts if not r.metadata["context_index_reused"]]
    assert len(built) == 1, "one index per commit, built once and shared"
    assert built[0]["context_index_build_s"] > 0
    assert all(r.metadata["context_index_build_s"] == built[0]["context_index_build_s"]
               for r in contexts)
    assert len(list((tmp_path / "idx").iterdir())) == 2  # the index and its lock file
    context = contexts[0]
    assert context.injected_files and "calc/__init__.py" in context.injected_files
    assert "def add(a, b)" in (prompts / "context.md").read_text()
    capsys.readouterr()
    assert main(["score", str(out), "--json", "--no-similarity"]) == 0
    row = next(r for r in json.loads(capsys.readouterr().out)["results"] if r["arm"] == "context")
    truth = {"calc/__init__.py", "tests/test_calc.py"}
    assert set(row["ground_truth_files"]) == truth
    hit = len(set(context.injected_files) & truth)
    assert row["injection_recall"] == hit / len(truth)
    assert row["injection_precision"] == hit / len(set(context.injected_files))
