"""Transcripts linked to results and used: ``--transcripts DIR``, ``trajs/`` beside SWE-bench
predictions, a mini-swe-agent batch, and the runner's ``{transcript_file}``; ``score``
reports what they say per arm and counts claims of success the tests deny."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from judgekit.execute import AgentCommand, MirrorCache, Workspace, run_agent
from judgekit.execute.attempt import AttemptSettings
from judgekit.ingest.suites import RepoSource
from tests.clirun import judgekit
from tests.execute.conftest import Project, project  # noqa: F401  (a fixture)

from .conftest import FIXTURES, KEY, write_older_swe_agent_run
from .test_real_sessions import _mini

SWE_AGENT = FIXTURES / "swe-agent-1.1-submitted.traj"


def _arm(proc_stdout: str, arm: str) -> dict:
    return json.loads(proc_stdout)["arms"][arm]["transcripts"]


def test_transcripts_dir_is_matched_by_task_id(tmp_path: Path) -> None:
    run = tmp_path / "run.json"
    run.write_text(json.dumps({"results": [
        {"task": {"id": "t1"}, "arm": "a", "agent_diff": "",
         "test": {"exit_code": 1, "output": "1 failed in 0.1s"}},
        {"task": {"id": "t2"}, "arm": "a", "agent_diff": "",
         "test": {"exit_code": 0, "output": "1 passed in 0.1s"}}]}))
    transcripts = tmp_path / "sessions"
    transcripts.mkdir()
    doc = write_older_swe_agent_run(transcripts / "t1.traj")
    steps, stats = len(doc["trajectory"]), doc["info"]["model_stats"]
    (transcripts / "t2.traj").write_text('{"trajectory": [1], "info": {}}')  # malformed
    (transcripts / "t9.traj").write_text("{not json")  # no such task
    proc = judgekit("score", run, "--transcripts", transcripts, "--json", "--no-similarity")
    assert proc.returncode == 0, proc.stderr
    arm = _arm(proc.stdout, "a")
    assert arm["n_with_transcript"] == 1 and arm["mean_turns"] == steps
    assert arm["mean_tokens_in"] == stats["tokens_sent"]
    assert arm["mean_cost_usd"] == pytest.approx(stats["instance_cost"])
    # its final message says "The bug is fixed" while its tests failed
    assert arm["n_claimed_unverified"] == 1 and arm["claimed_unverified"] == ["t1 / a / attempt 0"]
    rows = {r["task_id"]: r for r in json.loads(proc.stdout)["results"]}
    assert rows["t1"]["tool_calls"] == steps and rows["t2"]["tool_calls"] is None
    warnings = json.loads(proc.stdout)["warnings"]
    assert any(w.startswith("1 transcript file(s) could not be read: ") and "t2.traj" in w
               for w in warnings)
    assert any("1 file(s) beside the transcripts name no result's task" in w
               and "t9.traj" in w for w in warnings)
    assert (f"transcripts: a: 1 of 2 results, {steps:.1f} turns, {steps:.1f} tool calls"
            in proc.stderr
            and "1 claim success their tests deny: t1 / a / attempt 0" in proc.stderr)


def test_swebench_predictions_with_trajs_beside_them(tmp_path: Path) -> None:
    (tmp_path / "trajs").mkdir()
    shutil.copy(SWE_AGENT, tmp_path / "trajs" / "inst-1.traj")
    preds = tmp_path / "all_preds.jsonl"
    preds.write_text(json.dumps({"instance_id": "inst-1", "model_name_or_path": "m",
                                 "model_patch": "diff --git a/x b/x\n"}) + "\n"
                     + json.dumps({"instance_id": "inst-2", "model_name_or_path": "m",
                                   "model_patch": ""}) + "\n")
    proc = judgekit("score", preds, "--json", "--no-similarity")
    assert proc.returncode == 0, proc.stderr
    arm = _arm(proc.stdout, "m")
    assert arm["n_with_transcript"] == 1 and arm["exit_statuses"] == {"submitted": 1}


def test_mini_swe_agent_batch_layout(tmp_path: Path) -> None:
    (tmp_path / "inst-1").mkdir()
    shutil.copy(FIXTURES / "mini-swe-agent-list.traj.json",
                tmp_path / "inst-1" / "inst-1.traj.json")
    preds = tmp_path / "preds.json"
    preds.write_text(json.dumps({"inst-1": {"instance_id": "inst-1", "model_name_or_path": "m",
                                            "model_patch": ""}}))
    proc = judgekit("score", preds, "--json", "--no-similarity")
    assert proc.returncode == 0, proc.stderr
    arm = _arm(proc.stdout, "m")
    assert arm["n_with_transcript"] == 1 and arm["mean_tool_calls"] == 2


def test_runner_reads_the_agents_trajectory_and_keeps_no_key(
        tmp_path: Path, agent_api: str, project: Project) -> None:  # noqa: F811
    trajectory = tmp_path / "real.traj.json"
    _mini(tmp_path, agent_api, 2, trajectory)  # a real step-limit run holding the key
    fix = MirrorCache(tmp_path / "m").resolve(RepoSource(str(project.path), True), project.fix)
    ws = Workspace.create(fix, tmp_dir=tmp_path)
    try:
        prompt = ws.io / "prompt.md"
        prompt.write_text("fix\n")
        text = trajectory.read_text()
        cmd = AgentCommand("cat > {transcript_file} <<'JUDGEKIT_TRAJ_END'\n" + text
                           + "\nJUDGEKIT_TRAJ_END\n")
        run = run_agent(cmd, ws=ws, prompt_file=prompt, task_id="t1", arm="a",
                        settings=AttemptSettings(agent=cmd, agent_timeout_s=60))
    finally:
        ws.cleanup()
    assert run.outcome.exit_code == 0, run.outcome.stderr
    assert run.session is not None and run.session.format == "mini-swe-agent"
    assert run.session.exit_status == "limits_exceeded" and run.session.limit == "steps"
    assert KEY not in (run.transcript or "") and KEY not in run.session.model_dump_json()
    assert run.session.redactions >= 1


def test_run_file_results_naming_their_transcript_files(tmp_path: Path) -> None:
    kept = tmp_path / "run.transcripts"
    kept.mkdir()
    shutil.copy(SWE_AGENT, kept / "t1.a.0.txt")
    (tmp_path / "secret.txt").write_text("outside")
    run = tmp_path / "run.json"
    run.write_text(json.dumps({"results": [
        {"task": {"id": "t1"}, "arm": "a", "agent_diff": "",
         "test": {"exit_code": 1, "output": "1 failed in 0.1s"},
         # as judgekit run names it: relative to where the run was started
         "metadata": {"transcript_file": "elsewhere/run.transcripts/t1.a.0.txt"}},
        {"task": {"id": "t2"}, "arm": "a", "agent_diff": "",
         "metadata": {"transcript_file": "/etc/hostname"}}]}))
    from judgekit.ingest.load import load_runs

    first, second = load_runs(run)
    assert first.session is not None and first.session.format == "swe-agent"
    assert second.session is None
    assert second.metadata["transcript_unreadable"] == "not found under the run file's directory"
    proc = judgekit("score", run, "--json", "--no-similarity")
    assert proc.returncode == 0, proc.stderr
    assert _arm(proc.stdout, "a")["n_with_transcript"] == 1


def _old_jsonl(tmp_path: Path) -> Path:
    """A ``.jsonl`` run file as an older ``judgekit run`` wrote it: raw transcript text, no
    ``session``, and ``metadata.transcript_file`` naming the kept file by the absolute path
    it had where the run was written (the run directory has since moved)."""
    kept = tmp_path / "run.transcripts"
    kept.mkdir()
    shutil.copy(SWE_AGENT, kept / "t1.a.0.txt")
    (tmp_path / "nested").mkdir()
    shutil.copy(SWE_AGENT, tmp_path / "nested" / "t3.txt")
    lines = [
        {"task": {"id": "t1"}, "arm": "a", "agent_diff": "", "transcript": "...",
         "test": {"exit_code": 1, "output": "1 failed in 0.1s"},
         "metadata": {"transcript_file": "/gone/away/run.transcripts/t1.a.0.txt"}},
        {"task": {"id": "t2"}, "arm": "a", "agent_diff": "",
         "metadata": {"transcript_file": "/gone/away/run.transcripts/t2.a.0.txt"}},
        # relative: taken from the run file's directory, never from outside it
        {"task": {"id": "t3"}, "arm": "a", "agent_diff": "",
         "metadata": {"transcript_file": "nested/t3.txt"}},
        {"task": {"id": "t4"}, "arm": "a", "agent_diff": "",
         "metadata": {"transcript_file": "../../etc/hostname"}},
    ]
    run = tmp_path / "run.jsonl"
    run.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return run


def test_older_jsonl_run_files_get_the_sessions_their_metadata_names(tmp_path: Path) -> None:
    from judgekit.ingest.load import load_runs_result

    run = _old_jsonl(tmp_path)
    loaded = load_runs_result(run)
    t1, t2, t3, t4 = loaded.results
    assert t1.session is not None and t1.session.format == "swe-agent"
    assert t3.session is not None and t3.session.format == "swe-agent"
    assert t2.session is None and t4.session is None
    assert t2.metadata["transcript_unreadable"] == "not found under the run file's directory"
    warned = [w for w in loaded.warnings if "transcript file" in w]
    assert len(warned) == 1 and warned[0].startswith("2 results name a transcript file")
    assert "t2 / a" in warned[0] and "t4 / a" in warned[0]


def test_older_jsonl_run_files_scored_with_their_sessions(tmp_path: Path) -> None:
    run = _old_jsonl(tmp_path)
    proc = judgekit("score", run, "--json", "--no-similarity")  # read a line at a time
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert _arm(proc.stdout, "a")["n_with_transcript"] == 2
    assert any(w.startswith("2 results name a transcript file")
               for w in summary["warnings"]), summary["warnings"]
    rows = {r["task_id"]: r for r in summary["results"]}
    assert rows["t1"]["transcript_format"] == "swe-agent" and rows["t1"]["tool_calls"] > 0
    assert rows["t2"]["transcript_unreadable"] == "not found under the run file's directory"


def test_older_jsonl_run_files_scored_in_shards_link_their_sessions(tmp_path: Path) -> None:
    from judgekit.ingest.load import iter_items
    from judgekit.scoring.stream import ScoredReading

    run = _old_jsonl(tmp_path)
    reading = ScoredReading(workers=2, parallel_bytes=1, shard_bytes=1)
    rows = list(iter_items(run, reading))
    assert [r.transcript_format for r in rows] == ["swe-agent", None, "swe-agent", None]
    assert rows[1].transcript_unreadable == "not found under the run file's directory"


def test_a_bare_list_of_results_gets_the_sessions_its_metadata_names(tmp_path: Path) -> None:
    from judgekit.ingest.load import load_runs

    lines = _old_jsonl(tmp_path).read_text().splitlines()
    run = tmp_path / "old.json"
    run.write_text("[" + ",".join(lines) + "]")
    t1, t2, t3, _ = load_runs(run)
    assert t1.session is not None and t3.session is not None and t2.session is None


def test_a_named_file_of_several_instances_gives_each_result_its_own(tmp_path: Path) -> None:
    from .test_openhands import MAX_ITERATIONS, stopped_by, submitted

    (tmp_path / "output.jsonl").write_text("".join(json.dumps(r) + "\n" for r in (
        submitted("calc__calc-1"), stopped_by(MAX_ITERATIONS, "calc__calc-2"))))
    failed = {"exit_code": 1, "output": "FAILED t\n=== 1 failed in 0.1s ==="}
    run = tmp_path / "run.json"
    run.write_text(json.dumps({"results": [
        {"task": {"id": task}, "arm": "oh", "agent_diff": "", "test": failed,
         "metadata": {"transcript_file": "output.jsonl"}}
        for task in ("calc__calc-1", "calc__calc-2", "calc__calc-9")]}))
    proc = judgekit("score", run, "--json", "--no-similarity")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    rows = {r["task_id"]: r for r in summary["results"]}
    assert rows["calc__calc-1"]["exit_status"] == "submitted"
    assert rows["calc__calc-2"]["exit_status"] == "limits_exceeded"
    # never another task's session
    assert rows["calc__calc-9"]["transcript_format"] is None
    assert rows["calc__calc-9"]["transcript_unreadable"] == (
        "holds no transcript of this task (it holds 2 of other tasks: calc__calc-1, "
        "calc__calc-2)")
    assert any(w.startswith("1 result names a transcript file that could not be read")
               and "calc__calc-9 / oh" in w for w in summary["warnings"])
    from judgekit.ingest.load import load_runs

    sessions = {r.task_id: r.session for r in load_runs(run)}
    assert sessions["calc__calc-1"] is not None
    assert sessions["calc__calc-1"].task_id == "calc__calc-1"
    assert sessions["calc__calc-2"] is not None
    assert sessions["calc__calc-2"].task_id == "calc__calc-2"
    assert sessions["calc__calc-9"] is None


def _named_files(tmp_path: Path) -> Path:
    kept = tmp_path / "sessions"
    kept.mkdir()
    (kept / "t-notes.jsonl").write_text("just some notes\nnothing here\n")
    shutil.copy(SWE_AGENT, kept / "t-good.traj")
    (kept / "t-trunc.traj").write_text(SWE_AGENT.read_text()[:5000])  # cut off
    failed = {"exit_code": 1, "output": "FAILED x\n=== 1 failed in 0.1s ==="}
    run = tmp_path / "run.json"
    run.write_text(json.dumps({"results": [
        {"task": {"id": task}, "arm": "a", "agent_diff": "", "test": failed,
         "metadata": {"transcript_file": f"sessions/{name}"}}
        for task, name in (("t-notes", "t-notes.jsonl"), ("t-good", "t-good.traj"),
                           ("t-trunc", "t-trunc.traj"))]}))
    return run


def test_a_named_file_of_no_known_format_is_kept_raw_and_counted(tmp_path: Path) -> None:
    from judgekit.ingest.load import load_runs_result

    run = _named_files(tmp_path)
    loaded = load_runs_result(run)
    notes, good, trunc = loaded.results
    assert trunc.session is None
    assert "a cut or damaged session file" in trunc.metadata["transcript_unreadable"]
    assert any(w.startswith("1 result names a transcript file that could not be read")
               and "t-trunc / a" in w for w in loaded.warnings), loaded.warnings
    assert notes.session is not None and notes.session.format == "raw"
    assert notes.session.raw == "just some notes\nnothing here\n"
    assert good.session is not None and good.session.format == "swe-agent"
    warned = [w for w in loaded.warnings if "no known format" in w]
    assert warned == ["1 result names a transcript file of no known format (kept as raw "
                      "text): t-notes / a / attempt 0"]
    for args in ((), ("--out", tmp_path / "out")):  # streamed, and loaded whole
        proc = judgekit("score", run, "--json", "--no-similarity", *args)
        assert proc.returncode == 0, proc.stderr
        summary = json.loads(proc.stdout) if not args else json.loads(
            (tmp_path / "out" / "summary.json").read_text())
        assert summary["arms"]["a"]["transcripts"]["n_with_transcript"] == 1
        assert any(w.startswith("1 result names a transcript file of no known format")
                   for w in summary["warnings"]), summary["warnings"]
        rows = {r["task_id"]: r for r in summary["results"]}
        assert rows["t-notes"]["transcript_format"] == "raw"
        assert rows["t-notes"]["turns"] is None
        assert rows["t-trunc"]["transcript_format"] is None
        assert "cut or damaged" in rows["t-trunc"]["transcript_unreadable"]
    kept = [json.loads(line) for line in (tmp_path / "out" / "runs.jsonl").open()]
    raw = [r["session"] for r in kept if r["task"]["id"] == "t-notes"]
    assert raw and raw[0]["format"] == "raw" and raw[0]["raw"].startswith("just some notes")


def test_transcripts_dir_keeps_a_file_of_no_known_format_raw(tmp_path: Path) -> None:
    run = tmp_path / "run.json"
    run.write_text(json.dumps({"results": [
        {"task": {"id": "t1"}, "arm": "a", "agent_diff": "",
         "test": {"exit_code": 1, "output": "1 failed in 0.1s"}}]}))
    transcripts = tmp_path / "sessions"
    transcripts.mkdir()
    (transcripts / "t1.log").write_text("the agent's own log\n")
    proc = judgekit("score", run, "--transcripts", transcripts, "--json", "--no-similarity",
                    "--out", tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["results"][0]["transcript_format"] == "raw"
    assert any(w.startswith("1 transcript file(s) of no known format kept as raw text: ")
               and "t1.log" in w for w in summary["warnings"]), summary["warnings"]
    kept = json.loads((tmp_path / "out" / "runs.jsonl").read_text().splitlines()[0])
    assert kept["session"]["raw"] == "the agent's own log\n"


def test_claims_are_counted_against_tests_that_deny_them_and_apart_where_none_decide(
        tmp_path: Path) -> None:
    kept = tmp_path / "sessions"
    kept.mkdir()
    tests = {"denied": {"exit_code": 1, "output": "1 failed in 0.1s"},
             "confirmed": {"exit_code": 0, "output": "1 passed in 0.1s"}}
    results = []
    for task in ("denied", "confirmed", "untested"):
        write_older_swe_agent_run(kept / f"{task}.traj")  # its final message claims a fix
        result = {"task": {"id": task}, "arm": "a", "agent_diff": "",
                  "metadata": {"transcript_file": f"sessions/{task}.traj"}}
        if task in tests:
            result["test"] = tests[task]
        else:
            result["test"] = {"exit_code": 0}  # no test output kept: unknown
        results.append(result)
    run = tmp_path / "run.json"
    run.write_text(json.dumps({"results": results}))
    proc = judgekit("score", run, "--json", "--no-similarity")
    assert proc.returncode == 0, proc.stderr
    rows = {r["task_id"]: r for r in json.loads(proc.stdout)["results"]}
    assert rows["untested"]["test_status"] == "unknown"
    arm = _arm(proc.stdout, "a")
    assert arm["n_claimed_unverified"] == 1 and arm["claimed_unverified"] == [
        "denied / a / attempt 0"]
    assert arm["n_claimed_untested"] == 1 and arm["claimed_untested"] == [
        "untested / a / attempt 0"]
    assert rows["untested"]["claimed_unverified"] is False
    assert rows["untested"]["claimed_untested"] is True
    assert arm["n_with_tokens"] == 3 and arm["n_with_cost"] == 3
