"""What of the host an agent sees: its binds (read-only), its seeded home (fresh per
attempt), the toolchains on PATH (read-only), and nothing else of the user's home."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from judgekit.execute.sandbox import bwrap_problem
from tests.clirun import judgekit

from .conftest import FIX_AGENT, TEST_CMD, Project, write_suite

pytestmark = pytest.mark.skipif(bwrap_problem() is not None,
                                reason=f"bubblewrap unusable here: {bwrap_problem()}")


@pytest.fixture
def outside() -> Iterator[Path]:
    """A directory outside /tmp (which the sandbox replaces with a private one)."""
    if not os.access("/var/tmp", os.W_OK):
        pytest.skip("needs a writable /var/tmp, outside the sandbox's private /tmp")
    path = Path(tempfile.mkdtemp(prefix="judgekit-view-", dir="/var/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def run(suite: Path, tmp_path: Path, agent: str, *extra: object,
        env: dict[str, str] | None = None) -> list[dict]:
    out = tmp_path / "run.json"
    proc = judgekit("run", suite, "--agent", agent, "--out", out, "--mirror-dir",
                    tmp_path / "m", *extra, env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(out.read_text())["results"]


def test_a_bound_directory_is_readable_and_not_writable(
        suite_file: Path, tmp_path: Path, outside: Path) -> None:
    data = outside / "agent-data"
    data.mkdir()
    (data / "settings.txt").write_text("bound-content\n")
    agent = (f"cat {data}/settings.txt; cat /tmp/seen/settings.txt; "
             f"echo x > {data}/new.txt && echo WROTE; echo x >> {data}/settings.txt && "
             "echo WROTE; echo x > /tmp/seen/new.txt && echo WROTE; true")
    (result,) = run(suite_file, tmp_path, agent, "--agent-bind", data,
                    "--agent-bind", f"{data}:/tmp/seen")
    said = result["metadata"]["agent_stdout"]
    assert said.count("bound-content") == 2, result["metadata"]["agent_stderr"]
    assert "WROTE" not in said
    assert sorted(p.name for p in data.iterdir()) == ["settings.txt"]
    assert (data / "settings.txt").read_text() == "bound-content\n"


def test_a_bind_destination_the_sandbox_cannot_create_is_refused(
        suite_file: Path, tmp_path: Path, outside: Path) -> None:
    proc = judgekit("run", suite_file, "--agent", "true", "--out", tmp_path / "r.json",
                    "--agent-bind", f"{outside}:/usr/judgekit-no-such-dir/x")
    assert proc.returncode == 2 and "/usr/judgekit-no-such-dir/x" in proc.stderr
    assert not (tmp_path / "r.json").exists()


def test_without_a_bind_the_directory_under_the_home_is_not_there(
        suite_file: Path, tmp_path: Path, outside: Path) -> None:
    home = outside / "home"
    (home / "agent-data").mkdir(parents=True)
    (home / "agent-data" / "settings.txt").write_text("bound-content\n")
    agent = f"cat {home}/agent-data/settings.txt || echo HIDDEN"
    (result,) = run(suite_file, tmp_path, agent, env={"HOME": str(home)})
    assert "HIDDEN" in result["metadata"]["agent_stdout"]
    (result,) = run(suite_file, tmp_path / "again", agent, "--agent-bind",
                    home / "agent-data", env={"HOME": str(home)})
    assert "bound-content" in result["metadata"]["agent_stdout"]


def test_the_agent_home_is_a_fresh_copy_for_each_attempt(
        suite_file: Path, tmp_path: Path, outside: Path) -> None:
    seed = outside / "seed"
    (seed / ".config" / "tool").mkdir(parents=True)
    (seed / ".config" / "tool" / "settings").write_text("v1\n")
    agent = ("cat ~/.config/tool/settings; ls -A ~; echo v2 > ~/.config/tool/settings; "
             "touch ~/made-by-agent")
    results = run(suite_file, tmp_path, agent, "--agent-home", seed, "--attempts", "2")
    assert len(results) == 2
    for result in results:
        said = result["metadata"]["agent_stdout"]
        assert said.startswith("v1\n") and "made-by-agent" not in said, said
    assert (seed / ".config" / "tool" / "settings").read_text() == "v1\n"
    assert sorted(p.name for p in seed.iterdir()) == [".config"]


def test_toolchains_on_path_are_found_and_credentials_are_not(
        project: Project, tmp_path: Path, outside: Path) -> None:
    """A runtime under the home serves every command; a user's tool (a virtualenv's CLI)
    serves setup and tests, and the agent only when bound; ~/.ssh serves no one."""
    home = outside / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("private-key-canary\n")
    runtime = home / ".nvm" / "bin"
    runtime.mkdir(parents=True)
    (runtime / "runtime-tool").write_text("#!/bin/sh\necho RUNTIME-OK\n")
    (runtime / "runtime-tool").chmod(0o755)
    venv = home / "venvs" / "agent-cli"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    (venv / "bin" / "agent-cli").write_text(
        f"#!{venv}/bin/python\nimport sys\nprint('CLI-OK', sys.version_info[0])\n")
    (venv / "bin" / "agent-cli").chmod(0o755)
    path = f"{runtime}:{venv}/bin:{os.environ['PATH']}"
    probe = ("runtime-tool; agent-cli || echo NO-CLI; cat ~/.ssh/id_ed25519 "
             f"{home}/.ssh/id_ed25519 2>/dev/null || echo NO-KEY")
    suite = write_suite(tmp_path / "s.yaml", project, setup_command=probe,
                        test_command=f"{probe}; {TEST_CMD}")
    env = {"HOME": str(home), "PATH": path}
    # the agent looks for the CLI without naming it as its program (what a command line
    # names is shown to it: see test_named_files)
    looks = probe.replace("agent-cli ||", "sh -c agent-cli 2>/dev/null ||")
    (plain,) = run(suite, tmp_path, f"{looks}; {FIX_AGENT}", "--keep-workspaces", env=env)
    agent_said = plain["metadata"]["agent_stdout"]
    assert "RUNTIME-OK" in agent_said and "NO-CLI" in agent_said and "CLI-OK" not in agent_said
    setup_said = (Path(plain["metadata"]["workspace"]) / "logs" / "setup.stdout").read_text()
    shutil.rmtree(plain["metadata"]["workspace"])
    for said in (setup_said, plain["test"]["output"]):
        assert "RUNTIME-OK" in said and "CLI-OK 3" in said, said
    assert "2 passed" in plain["test"]["output"]
    (bound,) = run(suite, tmp_path / "bound", looks, "--agent-bind", venv, env=env)
    assert "CLI-OK 3" in bound["metadata"]["agent_stdout"]
    for result in (plain, bound):
        everything = json.dumps(result)
        assert "private-key-canary" not in everything and "NO-KEY" in everything
