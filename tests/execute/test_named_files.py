"""What a command names is shown to it in the sandbox: its program, its script, the
virtualenv and base interpreter they need; wherever they lie (a private directory, /tmp, a
hidden home) and whoever runs judgekit, without showing what lies beside them."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from judgekit.errors import ConfigError
from judgekit.execute import AgentCommand, Bwrap, RunPlan, SandboxSpec, run_suite
from judgekit.execute.identity import SANDBOX_USER, Identity
from judgekit.execute.named import first_command, named_files, shown_for
from judgekit.execute.sandbox import bwrap_problem, closed_files
from judgekit.ingest.suites import load_suite
from tests.clirun import as_plain_user, judgekit

from .conftest import FIX_AGENT, TEST_CMD, Project, write_suite

needs_bwrap = pytest.mark.skipif(bwrap_problem() is not None,
                                 reason=f"bubblewrap unusable here: {bwrap_problem()}")
NOBODY = Identity(SANDBOX_USER[0], SANDBOX_USER[1], "setpriv")


@pytest.fixture
def private() -> Iterator[Path]:
    """A directory only its owner may enter, as ``mktemp -d`` makes one (under /tmp)."""
    path = Path(tempfile.mkdtemp(dir="/tmp"))
    assert stat.S_IMODE(path.stat().st_mode) == 0o700
    yield path
    shutil.rmtree(path, ignore_errors=True)


def make_venv(where: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    return where


def test_the_program_its_script_and_their_virtualenv_are_named(tmp_path: Path) -> None:
    assert first_command("A=1 exec env -u X nice bash -x /s.sh; cat /e") == ["bash", "-x", "/s.sh"]
    assert first_command("run 'unclosed") == []
    venv = make_venv(tmp_path / "venv")
    tool = venv / "bin" / "tool"
    tool.write_text(f"#!{venv}/bin/python\n")
    tool.chmod(0o755)
    data = tmp_path / "notes.txt"
    data.write_text("x\n")
    base = Path(sys.base_prefix)
    # a bare program found on PATH in a virtualenv: the virtualenv and its base
    assert shown_for("tool --x", f"{venv}/bin:/usr/bin", homes=()) == (
        (venv, venv), (base, base))
    # an interpreter's script is named; a data file given to another program is not
    script = tmp_path / "agent.sh"
    script.write_text("true\n")
    roles = [(n.role, n.path) for n in named_files(f"bash -e {script} {data}", "/usr/bin:/bin")]
    assert roles[1:] == [("script", script)] and roles[0][0] == "program"
    assert data not in [n.path for n in named_files(f"cat {data}", "/usr/bin:/bin")]
    # nothing in a credential directory of a home
    keys = tmp_path / ".config" / "run.sh"
    keys.parent.mkdir()
    keys.write_text("true\n")
    shown = shown_for(f"sh {keys}", "/usr/bin:/bin", homes=(tmp_path,))
    assert shown and all(keys not in (source, dest) for source, dest in shown)


def test_run_by_root_a_named_file_in_a_closed_directory_is_bound_alone() -> None:
    if not os.access("/var/tmp", os.W_OK):
        pytest.skip("needs a writable /var/tmp, outside the sandbox's private /tmp")
    private = Path(tempfile.mkdtemp(dir="/var/tmp"))  # only its owner may enter it
    try:
        script = private / "agent.sh"
        script.write_text("true\n")
        script.chmod(0o644)
        spec = SandboxSpec(shown=shown_for(f"bash {script}", "/usr/bin:/bin"))
        argv = Bwrap(drop_to=NOBODY).wrap(["true"], spec, cwd=Path("/"))
    finally:
        shutil.rmtree(private, ignore_errors=True)
    # the directory is replaced by an empty one (nothing beside the script is reachable),
    # then the script alone is bound in it, read-only
    at = argv.index("--tmpfs", argv.index(str(private)) - 1)
    assert argv[at:at + 5] == ["--tmpfs", str(private), "--ro-bind", str(script), str(script)]
    assert argv.count(str(script)) == 2


def test_every_simple_command_of_a_line_names_its_program(tmp_path: Path) -> None:
    """``setup; /venv/bin/python -m pytest`` names the virtualenv's interpreter too: a test
    command's second command is as much the command as its first."""
    venv = make_venv(tmp_path / "venv")
    line = f"echo start 2>/dev/null && A=1 {venv}/bin/python -m pytest -q | tee log; (true)"
    named = [(n.role, n.path, n.word) for n in named_files(line, "/usr/bin:/bin")]
    assert ("program", venv / "bin" / "python", f"{venv}/bin/python") in named
    assert [n for _, n, _ in named][:1] == [Path(shutil.which("echo", path="/usr/bin:/bin"))]
    assert (venv, venv) in shown_for(line, "/usr/bin:/bin", homes=())
    # a word after a redirection is its target, not a program
    assert all(n.path.name != "out" for n in named_files(f"true > {tmp_path}/out", "/bin"))


@needs_bwrap
def test_run_by_root_a_virtualenv_the_second_command_names_in_a_closed_directory_runs(
        project: Project, tmp_path: Path) -> None:
    """A test command whose second command is a virtualenv's interpreter, the virtualenv
    in a directory only root may enter (outside /tmp and the homes): the sandbox's user
    runs it."""
    if os.geteuid() != 0:
        pytest.skip("the sandbox drops to an unprivileged user only when run by root")
    if not os.access("/var/tmp", os.W_OK):
        pytest.skip("needs a writable /var/tmp, outside the sandbox's private /tmp")
    private = Path(tempfile.mkdtemp(dir="/var/tmp"))  # only its owner may enter it
    try:
        venv = make_venv(private / "venv")
        test = f"true; {venv}/bin/python -c 'print(\"VENV-RAN\")'"
        suite = write_suite(tmp_path / "s.yaml", project, test_command=test)
        out = tmp_path / "run.json"
        proc = judgekit("run", suite, "--agent", FIX_AGENT, "--out", out, "--mirror-dir",
                        tmp_path / "m")
        assert proc.returncode == 0, proc.stderr
        (result,) = json.loads(out.read_text())["results"]
        assert "VENV-RAN" in result["test"]["output"], result["test"]["output"]
    finally:
        shutil.rmtree(private, ignore_errors=True)


def test_a_script_root_s_commands_may_not_read_is_named_before_anything_runs(
        private: Path, project: Project, tmp_path: Path) -> None:
    script = private / "agent.sh"
    script.write_text("true\n")
    script.chmod(0o600)
    box = Bwrap(drop_to=NOBODY)
    said = closed_files(box, [("the agent", f"bash {script}")], "/usr/bin:/bin")
    assert said is not None and said.startswith(f"the agent cannot start: the script {script} "
                                                "cannot be read by the sandbox's")
    assert f"chmod o+r {script}" in said
    script.chmod(0o644)
    assert closed_files(box, [("the agent", f"bash {script}")], "/usr/bin:/bin") is None
    assert closed_files(Bwrap(drop_to=None), [("a", f"bash {private}/x")], "/bin") is None
    script.chmod(0o600)
    suite = load_suite(write_suite(tmp_path / "s.yaml", project))
    plan = RunPlan(agents={"*": AgentCommand(f"bash {script}")}, arms=["baseline"],
                   sandbox=box)
    out = tmp_path / "run.json"
    with pytest.raises(ConfigError, match="the agent of arm baseline cannot start"):
        run_suite(suite, plan, out)
    assert not out.exists()


@needs_bwrap
@pytest.mark.parametrize("parent", ["/tmp", "/var/tmp"])
def test_an_agent_script_in_a_private_directory_starts_and_is_scored(
        parent: str, suite_file: Path, tmp_path: Path) -> None:
    if not os.access(parent, os.W_OK):
        pytest.skip(f"needs a writable {parent}")
    where = Path(tempfile.mkdtemp(dir=parent))  # mode 0700, as mktemp -d makes it
    try:
        (where / "beside.txt").write_text("BESIDE-SEEN\n")
        (where / "agent.sh").write_text(
            f"cat {where}/beside.txt 2>/dev/null || echo BESIDE-HIDDEN\n{FIX_AGENT}\n")
        out = tmp_path / "run.json"
        proc = judgekit("run", suite_file, "--agent", f"bash {where}/agent.sh", "--out", out,
                        "--mirror-dir", tmp_path / "m")
    finally:
        shutil.rmtree(where, ignore_errors=True)
    assert proc.returncode == 0, proc.stderr
    (result,) = json.loads(out.read_text())["results"]
    assert result["harness_status"] == "completed", result["harness_error"]
    assert "calc-001 baseline #0: tests passed (2 run)" in proc.stderr
    said = result["metadata"]["agent_stdout"]
    # only the named file is shown: under /tmp, and run by root anywhere, not its neighbours
    if parent == "/tmp" or os.geteuid() == 0:
        assert said == "BESIDE-HIDDEN\n"


@needs_bwrap
def test_an_agent_whose_script_cannot_be_read_names_it_and_the_run_fails(
        suite_file: Path, tmp_path: Path, private: Path) -> None:
    script = private / "agent.sh"
    script.write_text(f"{FIX_AGENT}\n")
    script.chmod(0)
    out = tmp_path / "run.json"
    proc = judgekit("run", suite_file, "--agent", f"bash {script}", "--out", out,
                    "--mirror-dir", tmp_path / "m")
    assert proc.returncode != 0
    assert f"{script} cannot be read by the sandbox's unprivileged user" in proc.stderr
    assert f"chmod o+r {script}" in proc.stderr
    assert "/usr/bin/bash cannot" not in proc.stderr and "/bin/bash cannot" not in proc.stderr


@needs_bwrap
def test_virtualenvs_named_by_the_agent_and_the_tests_run_from_tmp_and_a_hidden_home(
        project: Project, tmp_path: Path, private: Path) -> None:
    if not os.access("/var/tmp", os.W_OK):
        pytest.skip("needs a writable /var/tmp, outside the sandbox's private /tmp")
    home = Path(tempfile.mkdtemp(prefix="judgekit-home-", dir="/var/tmp"))
    try:
        home.chmod(0o755)
        (home / ".ssh").mkdir()
        (home / ".ssh" / "id_ed25519").write_text("PRIVATE-KEY\n")
        private.chmod(0o755)
        in_tmp = make_venv(private / "venv")
        in_home = make_venv(home / "venvs" / "tests")
        probe = "import sys; print('PY-AT', sys.prefix)"
        suite = write_suite(tmp_path / "s.yaml", project,
                            test_command=f"{in_home}/bin/python -c \"{probe}\"; {TEST_CMD}")
        out = tmp_path / "run.json"
        agent = (f"{in_tmp}/bin/python -c \"{probe}\"; cat {home}/.ssh/id_ed25519 "
                 f"2>/dev/null || echo NO-KEY; {FIX_AGENT}")
        proc = judgekit("run", suite, "--agent", agent, "--out", out, "--mirror-dir",
                        tmp_path / "m", env={"HOME": str(home)})
    finally:
        shutil.rmtree(home, ignore_errors=True)
    assert proc.returncode == 0, proc.stderr
    (result,) = json.loads(out.read_text())["results"]
    said = result["metadata"]["agent_stdout"]
    assert f"PY-AT {in_tmp}" in said and "NO-KEY" in said and "PRIVATE-KEY" not in said
    assert f"PY-AT {in_home}" in result["test"]["output"]
    assert "2 passed" in result["test"]["output"]


def test_a_path_entry_this_user_may_not_read_is_left_out_not_a_crash(tmp_path: Path) -> None:
    # e.g. root's PATH kept by runuser or sudo -E: /root/.cargo/bin for an ordinary user
    closed = tmp_path / "closed"
    (closed / "venv" / "bin").mkdir(parents=True)
    (closed / "venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    if os.geteuid() == 0:
        os.chown(closed, 65534, 65534)  # another user's: root without DAC override is refused
    closed.chmod(0)
    code = ("import sys; from pathlib import Path; from judgekit.execute.hostview import "
            "host_view; from judgekit.execute.named import shown_for; "
            f"v = host_view('{closed}/venv/bin:/usr/bin', homes=(Path('{tmp_path}'),), "
            "interpreter=('/usr', '/usr')); "
            f"print(v.user_tools, shown_for('{closed}/venv/bin/python -V', '/usr/bin'))")
    proc = subprocess.run([*as_plain_user(), sys.executable, "-c", code], capture_output=True,
                          text=True, cwd=Path(__file__).resolve().parents[2], check=False)
    closed.chmod(0o755)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "() ()"
