"""Whoever runs judgekit, sandboxed commands run as an unprivileged user: root's files stay
closed to them and the process limit binds them.

Run by root, a user namespace alone is not enough (its users are root outside), so commands
drop to a real unprivileged user; these tests hold for an ordinary invoker as well.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from judgekit.execute import Bwrap, Limits, SandboxSpec, run_shell
from judgekit.execute.identity import SANDBOX_USER, hand_over
from judgekit.execute.sandbox import SandboxUnavailable, bwrap_problem, root_identity
from tests.clirun import judgekit

from .conftest import TEST_CMD, Project, write_suite

needs_bwrap = pytest.mark.skipif(bwrap_problem() is not None,
                                 reason=f"bubblewrap unusable here: {bwrap_problem()}")

FORK_LOOP = (f"{sys.executable} -c \"import os, time\n"
             "n = 0\n"
             "while n < 400:\n"
             "    try:\n"
             "        pid = os.fork()\n"
             "    except OSError as exc:\n"
             "        print('FORK-REFUSED', exc.strerror)\n"
             "        break\n"
             "    if pid == 0:\n"
             "        time.sleep(60)\n"
             "        os._exit(0)\n"
             "    n += 1\n"
             "print('FORKED', n)\"")


def shadow_lines() -> list[str]:
    """The lines of /etc/shadow this process can read (none unless it is root)."""
    try:
        text = Path("/etc/shadow").read_text(errors="replace")
    except OSError:
        return []
    return [line for line in text.splitlines() if len(line) > 8]


@needs_bwrap
def test_no_command_reads_a_file_only_root_may_read(project: Project, tmp_path: Path) -> None:
    read = "head -c 16 /etc/shadow; cat /etc/shadow; cat /etc/shadow > shadow-copy.txt"
    suite = write_suite(tmp_path / "s.yaml", project, setup_command=f"{read}; true",
                        test_command=f"{read}; {TEST_CMD}")
    out = tmp_path / "run.json"
    proc = judgekit("run", suite, "--agent", f"{read}; true", "--out", out, "--mirror-dir",
                    tmp_path / "m")
    assert proc.returncode == 0, proc.stderr
    (result,) = json.loads(out.read_text())["results"]
    assert "Permission denied" in result["metadata"]["agent_stderr"]
    assert result["metadata"]["agent_stdout"] == ""
    assert "Permission denied" in result["test"]["output"]
    stored = out.read_text() + proc.stdout + proc.stderr
    stored += "".join(p.read_text(errors="replace") for p in tmp_path.rglob("*")
                      if p.is_file() and p.suffix in (".txt", ".stdout", ".stderr"))
    leaked = [line for line in shadow_lines() if line in stored or line[:16] in stored]
    assert leaked == [], "a line of /etc/shadow was stored"


@needs_bwrap
def test_a_fork_loop_is_bounded_by_max_procs(suite_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    proc = judgekit("run", suite_file, "--agent", FORK_LOOP, "--max-procs", "50", "--out", out,
                    "--mirror-dir", tmp_path / "m")
    assert proc.returncode == 0, proc.stderr
    (result,) = json.loads(out.read_text())["results"]
    said = result["metadata"]["agent_stdout"]
    assert "FORK-REFUSED Resource temporarily unavailable" in said, said
    forked = int(said.split("FORKED ")[1].split()[0])
    assert forked < 50
    assert result["metadata"]["agent_exit_code"] == 0


@needs_bwrap
def test_commands_run_unprivileged_without_groups_or_capabilities(tmp_path: Path) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    home.mkdir()
    out = run_shell("cat /proc/self/status; echo made > made.txt; echo made > \"$HOME/h.txt\"",
                    cwd=ws, timeout=60, sandbox=Bwrap(),
                    spec=SandboxSpec(writable=(ws,), home=home, limits=Limits()))
    assert out.exit_code == 0, out.output
    status = dict(line.split(":", 1) for line in out.stdout.splitlines() if ":" in line)
    uids, gids = status["Uid"].split(), status["Gid"].split()
    assert "0" not in uids and "0" not in gids, (uids, gids)
    assert "0" not in status["Groups"].split()
    if os.geteuid() == 0:
        assert uids == [str(SANDBOX_USER[0])] * 4 and status["Groups"].split() == []
    for field in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
        assert int(status[field], 16) == 0, (field, status[field])
    assert status["NoNewPrivs"].strip() == "1"
    assert (ws / "made.txt").read_text() == "made\n" and (home / "h.txt").exists()


def test_without_setpriv_root_cannot_drop_and_is_refused() -> None:
    with pytest.raises(SandboxUnavailable, match=r"setpriv .*util-linux"):
        root_identity("judgekit-no-such-setpriv")


@needs_bwrap
def test_a_run_without_setpriv_fails_closed_for_root(
        project: Project, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for entry in os.environ["PATH"].split(os.pathsep):
        if os.path.isdir(entry):
            for name in os.listdir(entry):
                target = Path(entry) / name
                if name != "setpriv" and not (bin_dir / name).exists() and os.access(
                        target, os.X_OK):
                    (bin_dir / name).symlink_to(target)
    marks = tmp_path / "marks"
    marks.mkdir()
    # Run unsandboxed, each command would leave its mark (in a sandbox the host is read-only).
    suite = write_suite(tmp_path / "s.yaml", project,
                        setup_command=f"touch {marks}/setup; true",
                        test_command=f"touch {marks}/test; echo '1 passed'")
    out = tmp_path / "run.json"
    proc = judgekit("run", suite, "--agent", f"touch {marks}/agent; echo x > new.txt", "--out",
                    out, "--mirror-dir", tmp_path / "m", env={"PATH": str(bin_dir)})
    if os.geteuid() != 0:  # an ordinary user needs no setpriv: bwrap maps it
        assert proc.returncode == 0, proc.stderr
        (result,) = json.loads(out.read_text())["results"]
        assert result["harness_status"] == "completed" and result["sandbox"] == "bwrap"
        assert list(marks.iterdir()) == []
        return
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("judgekit: error: ") and "setpriv" in line and "root" in line
    assert "--sandbox none" in line
    assert list(marks.iterdir()) == [] and not out.exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_handing_the_workspace_over_follows_no_link(tmp_path: Path) -> None:
    uid, gid = SANDBOX_USER
    ws = tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    (ws / "sub" / "file").write_text("x")
    outside = tmp_path / "outside.txt"
    outside.write_text("root's")
    (ws / "link").symlink_to(outside)
    os.link(outside, ws / "hard")
    hand_over(ws, uid, gid)
    for path in (ws, ws / "sub", ws / "sub" / "file"):
        assert (path.stat().st_uid, path.stat().st_gid) == (uid, gid), path
    assert outside.stat().st_uid == os.getuid(), "a hard-linked file was handed over"
    assert (ws / "link").lstat().st_uid == os.getuid()


@needs_bwrap
def test_a_toolchain_under_a_closed_home_stays_usable(suite_file: Path, tmp_path: Path) -> None:
    """Run by root, the directories above what is shown are opened for the sandbox's user:
    a home and the directories in it that only their owner may pass through."""
    outside = Path(tempfile.mkdtemp(prefix="judgekit-closed-", dir="/var/tmp"))
    try:
        home = outside / "home"
        tool = home / ".cargo" / "bin" / "cargo-ish"
        tool.parent.mkdir(parents=True)
        tool.write_text("#!/bin/sh\necho TOOL-RAN\n")
        tool.chmod(0o755)
        (home / ".ssh").mkdir()
        (home / ".ssh" / "id_ed25519").write_text("private-key-canary\n")
        for closed in (outside, home, home / ".cargo"):
            closed.chmod(0o700)
        out = tmp_path / "run.json"
        agent = f"cargo-ish; cat {home}/.ssh/id_ed25519 || echo NO-KEY"
        proc = judgekit("run", suite_file, "--agent", agent, "--out", out, "--mirror-dir",
                        tmp_path / "m", env={"HOME": str(home),
                                             "PATH": f"{tool.parent}:{os.environ['PATH']}"})
        assert proc.returncode == 0, proc.stderr
        (result,) = json.loads(out.read_text())["results"]
        said = result["metadata"]["agent_stdout"]
        assert "TOOL-RAN" in said and "NO-KEY" in said, result["metadata"]["agent_stderr"]
        assert "private-key-canary" not in out.read_text()
    finally:
        shutil.rmtree(outside, ignore_errors=True)


@needs_bwrap
def test_a_file_past_the_size_limit_is_not_written(tmp_path: Path) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    home.mkdir()
    out = run_shell("head -c 20000000 /dev/zero > big; echo exit=$?; wc -c < big",
                    cwd=ws, timeout=60, sandbox=Bwrap(),
                    spec=SandboxSpec(writable=(ws,), home=home, limits=Limits(file_mb=5)))
    assert "exit=1" in out.stdout, out.output  # the write failed (EFBIG), not the shell
    assert (ws / "big").stat().st_size == 5 * 1024 * 1024
