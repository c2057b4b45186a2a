"""An agent whose program the sandbox hides: the failure names the path and how to show it."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from judgekit.errors import spelling
from judgekit.execute.agent import unseen_program
from judgekit.execute.sandbox import bwrap_problem
from tests.clirun import judgekit

needs_bwrap = pytest.mark.skipif(bwrap_problem() is not None,
                                 reason=f"bubblewrap unusable here: {bwrap_problem()}")


@pytest.fixture
def script() -> Iterator[Path]:
    """An agent script under /tmp, which the sandbox replaces with a private one."""
    where = Path(tempfile.mkdtemp(prefix="judgekit-agent-", dir="/tmp"))
    where.chmod(0o755)
    path = where / "agent.sh"
    path.write_text("#!/bin/sh\necho AGENT-RAN\n")
    path.chmod(0o755)
    yield path
    shutil.rmtree(where, ignore_errors=True)


@needs_bwrap
def test_an_agent_hidden_by_the_sandbox_is_named_with_agent_bind(
        suite_file: Path, tmp_path: Path, script: Path) -> None:
    # A program in a credential directory of the home is never shown by naming it.
    home = script.parent
    hidden = home / ".config" / "agent.sh"
    hidden.parent.mkdir()
    hidden.parent.chmod(0o755)
    script.rename(hidden)
    out = tmp_path / "run.json"
    env = {"HOME": str(home)}
    proc = judgekit("run", suite_file, "--agent", f"{hidden} --task {{task_id}}", "--out", out,
                    "--mirror-dir", tmp_path / "m", env=env)
    assert proc.returncode == 1, proc.stderr  # no attempt's agent started
    (result,) = json.loads(out.read_text())["results"]
    assert result["harness_status"] == "agent_not_started"
    hint = f"{hidden} is not visible inside the sandbox; --agent-bind {hidden} shows it"
    assert result["harness_error"].startswith(hint), result["harness_error"]
    assert "No such file or directory" in result["harness_error"]
    assert hint in proc.stderr, proc.stderr
    shown = tmp_path / "shown.json"
    proc = judgekit("run", suite_file, "--agent", f"{hidden} --task {{task_id}}", "--out", shown,
                    "--mirror-dir", tmp_path / "m", "--agent-bind", hidden, env=env)
    assert proc.returncode == 0, proc.stderr
    (result,) = json.loads(shown.read_text())["results"]
    assert result["harness_status"] == "completed"
    assert result["metadata"]["agent_stdout"] == "AGENT-RAN\n"


def test_a_hidden_interpreter_or_path_entry_is_named(tmp_path: Path, script: Path) -> None:
    bound = tmp_path / "visible-agent"
    bound.write_text(f"#!{script}\n")
    said = f"/usr/bin/bash: line 1: {bound}: {script}: bad interpreter: No such file or directory"
    assert unseen_program(f"{bound} -v", said, "/usr/bin") == (
        f"{script} is not visible inside the sandbox; agent_bind {script} shows it")
    said = "/usr/bin/bash: line 1: agent.sh: command not found"
    with spelling(lambda name: "--" + name.replace("_", "-")):
        hint = unseen_program("FOO=1 agent.sh --x", said, f"/usr/bin:{script.parent}")
    assert hint == f"{script} is not visible inside the sandbox; --agent-bind {script} shows it"


def test_no_hint_for_a_program_missing_everywhere_or_another_failure(script: Path) -> None:
    said = "/usr/bin/bash: line 1: no-such-agent: command not found"
    assert unseen_program("no-such-agent --x", said, "/usr/bin") is None
    assert unseen_program(f"{script}", "agent.sh: exit 127 on its own", "/usr/bin") is None
    assert unseen_program("./agent.sh", "./agent.sh: No such file or directory", "") is None
    said = f"/usr/bin/bash: line 1: {script}: Permission denied"
    assert "unprivileged user" in (unseen_program(str(script), said, "") or "")
    assert unseen_program("sh -c 'agent.sh'", "sh: 1: agent.sh: not found", "/usr/bin") is None


def test_a_script_it_may_not_read_is_named_not_its_interpreter(script: Path) -> None:
    said = f"bash: {script}: Permission denied"
    assert unseen_program(f"bash {script} --fast", said, "/usr/bin:/bin") == (
        f"{script} cannot be read by the sandbox's unprivileged user; chmod o+r {script} "
        "makes it readable by others")
