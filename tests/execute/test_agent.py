"""Agent command templates, working directory, output capture, timeout kill, cancellation."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from judgekit.errors import ConfigError
from judgekit.execute import AgentCommand, Cancelled, MirrorCache, Workspace, run_agent, run_shell
from judgekit.execute.attempt import AttemptSettings
from judgekit.ingest.suites import RepoSource

from .conftest import Project


def test_placeholders_are_substituted_shell_quoted_and_other_braces_kept() -> None:
    cmd = AgentCommand("agent -p {prompt_file} -w {workspace} {task_id}/{arm} "
                       "&& awk '{print $1}' {unknown}")
    rendered = cmd.render(prompt_file="/tmp/a b.md", workspace="/w", task_id="t;rm -rf /",
                          arm="context")
    assert rendered == ("agent -p '/tmp/a b.md' -w /w 't;rm -rf /'/context "
                        "&& awk '{print $1}' {unknown}")


def test_an_empty_agent_command_is_a_config_error() -> None:
    with pytest.raises(ConfigError):
        AgentCommand("  ")


def test_agent_runs_in_the_workspace_with_prompt_and_keeps_output(
        project: Project, tmp_path: Path) -> None:
    fix = MirrorCache(tmp_path / "m").resolve(RepoSource(str(project.path), True), project.fix)
    ws = Workspace.create(fix, tmp_dir=tmp_path)
    try:
        prompt = ws.io / "prompt.md"
        prompt.write_text("fix the bug\n")
        cmd = AgentCommand("pwd > where.txt; cat {prompt_file}; echo {task_id} {arm} >&2; "
                           "echo talk > {transcript_file}; test \"$JUDGEKIT_ARM\" = {arm}")
        run = run_agent(cmd, ws=ws, prompt_file=prompt, task_id="t1", arm="baseline",
                        settings=AttemptSettings(agent=cmd, agent_timeout_s=60))
        assert run.outcome.exit_code == 0
        assert (ws.path / "where.txt").read_text().strip() == str(ws.path.resolve())
        assert run.outcome.stdout == "fix the bug\n"
        assert run.outcome.stderr == "t1 baseline\n"
        assert run.transcript == "talk\n"
        assert (ws.logs / "agent.stdout").read_text() == "fix the bug\n"
    finally:
        ws.cleanup()


def _dead(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except FileNotFoundError:
        return True
    return state in ("Z", "X")


def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    out = run_shell(f"sleep 300 & echo $! > {pidfile}; wait", cwd=tmp_path, timeout=1)
    assert out.timed_out and out.exit_code is None
    child = int(pidfile.read_text())
    for _ in range(100):
        if _dead(child):
            break
        time.sleep(0.1)
    assert _dead(child), "the background child of a timed-out command must be killed"


def test_leftover_background_processes_are_killed_when_the_command_exits(tmp_path) -> None:
    pidfile = tmp_path / "child.pid"
    out = run_shell(f"sleep 300 > /dev/null 2>&1 & echo $! > {pidfile}", cwd=tmp_path,
                    timeout=60)
    assert out.exit_code == 0 and not out.timed_out
    child = int(pidfile.read_text())
    for _ in range(100):
        if _dead(child):
            break
        time.sleep(0.1)
    assert _dead(child), "a process the command left behind must not outlive it"


def test_a_setsid_child_does_not_outlive_its_command_without_a_sandbox(tmp_path) -> None:
    """Leaving the process group (setsid) does not escape: the command's marker finds it."""
    pidfile = tmp_path / "child.pid"
    out = run_shell(f"setsid sh -c 'echo $$ > {pidfile}; exec sleep 300' > /dev/null 2>&1 &"
                    f" while [ ! -s {pidfile} ]; do sleep 0.05; done", cwd=tmp_path, timeout=60)
    assert out.exit_code == 0
    child = int(pidfile.read_text())
    for _ in range(100):
        if _dead(child):
            break
        time.sleep(0.1)
    assert _dead(child), "a setsid child must not outlive the command"


def test_cancelling_a_running_command_ends_its_tree_and_raises(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    cancel = threading.Event()
    timer = threading.Timer(0.5, cancel.set)
    timer.start()
    started = time.monotonic()
    with pytest.raises(Cancelled):
        run_shell(f"sleep 300 & echo $! > {pidfile}; wait", cwd=tmp_path, timeout=120,
                  cancel=cancel)
    assert time.monotonic() - started < 10
    child = int(pidfile.read_text())
    for _ in range(100):
        if _dead(child):
            break
        time.sleep(0.1)
    assert _dead(child)
    with pytest.raises(Cancelled):  # once cancelled, nothing new starts
        run_shell(f"touch {tmp_path}/started", cwd=tmp_path, timeout=10, cancel=cancel)
    assert not (tmp_path / "started").exists()
