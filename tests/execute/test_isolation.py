"""Proof of isolation: hostile agents against a tiny local suite, under the default sandbox.

The agent tries to write to the source repository, to the user's home, to another
workspace and to the run file, to find the source through git metadata, to plant an
fsmonitor and hooks that judgekit's own git commands would run, and to leave processes
behind; its test command tries to open a network connection.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from judgekit.cli import main
from judgekit.execute.sandbox import bwrap_problem
from judgekit.ingest.models import RunResult

from .conftest import TEST_CMD, Project, sleepers, write_suite

needs_bwrap = pytest.mark.skipif(bwrap_problem() is not None,
                                 reason=f"bubblewrap unusable here: {bwrap_problem()}")


def results(path: Path) -> list[RunResult]:
    return [RunResult.model_validate_json(line) for line in path.read_text().splitlines()]


def snapshot(repo: Path) -> dict[str, object]:
    """HEAD, status, refs, index and every work-tree file's hash of a repository."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True,
                              check=True).stdout

    files = {}
    for path in sorted(repo.rglob("*")):
        if path.is_file() and ".git" not in path.relative_to(repo).parts[:1]:
            files[str(path.relative_to(repo))] = hashlib.sha256(path.read_bytes()).hexdigest()
    git_dir = repo / ".git"
    return {"head": git("rev-parse", "HEAD"), "status": git("status", "--porcelain"),
            "refs": git("for-each-ref"), "config": (git_dir / "config").read_text(),
            "index": hashlib.sha256((git_dir / "index").read_bytes()).hexdigest(),
            "hooks": sorted(p.name for p in (git_dir / "hooks").iterdir()), "files": files}


@pytest.fixture
def source(project: Project, tmp_path_factory: pytest.TempPathFactory) -> Project:
    """A private copy of the calc project (the hostile agent must not touch the shared one)."""
    dest = tmp_path_factory.mktemp("source") / "calc"
    subprocess.run(["git", "clone", "-q", str(project.path), str(dest)], check=True)
    subprocess.run(["git", "remote", "remove", "origin"], cwd=dest, check=True)
    return Project(dest, project.parent, project.fix)


@needs_bwrap
def test_a_hostile_agent_cannot_write_outside_its_workspace_or_find_the_source(
        source: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "user-home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    wsroot = Path("/var/tmp")
    if not os.access(wsroot, os.W_OK):
        pytest.skip("needs a writable /var/tmp for workspaces outside the private /tmp")
    wsroot = Path(tempfile.mkdtemp(prefix="judgekit-isolation-", dir=wsroot))
    out = tmp_path / "run.jsonl"
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.2)
    port = server.getsockname()[1]
    probe = (f"{sys.executable} -c \"import socket; socket.create_connection(('127.0.0.1', "
             f"{port}), timeout=3)\" && echo NETWORK-REACHED && exit 3; {TEST_CMD}")
    suite = write_suite(tmp_path / "s.yaml", source, test_command=probe)
    attack = "; ".join([
        f"echo pwned >> {source.path}/calc/__init__.py && echo WROTE-SOURCE",
        f"git -C {source.path} branch pwned && echo WROTE-SOURCE-BRANCH",
        f"git -C {source.path} config core.fsmonitor 'touch /x' && echo WROTE-SOURCE-CONFIG",
        f"echo pwned > {home}/pwned && echo WROTE-HOME",
        f"echo pwned >> {out} && echo WROTE-RUNFILE",
        f"for d in {wsroot}/judgekit-ws-*; do [ \"$d/repo\" = \"$PWD\" ] || "
        "{ echo pwned > $d/repo/pwned && echo WROTE-$d; }; done",
        "echo pwned > $HOME/private-home-ok",
        "git remote -v; cat .git/FETCH_HEAD .git/objects/info/alternates; ls .git/logs",
        "git reflog",
        f"grep -rl {source.path} .git && echo SOURCE-NAMED-IN-GIT",
        f"ls {source.path}/.git && echo SOURCE-VISIBLE",
        "sed -i 's/a - b/a + b/' calc/__init__.py",
    ])
    stop = threading.Event()
    hits: list[object] = []

    def accept() -> None:
        while not stop.is_set():
            try:
                hits.append(server.accept()[0])
            except OSError:
                continue

    threading.Thread(target=accept, daemon=True).start()
    before = snapshot(source.path)
    try:
        code = main(["run", str(suite), "--agent", attack, "--arms", "a,b", "--jobs", "2",
                     "--out", str(out), "--tmp-dir", str(wsroot), "--mirror-dir",
                     str(tmp_path / "m")])
        leftovers = list(wsroot.iterdir())
    finally:
        stop.set()
        server.close()
        shutil.rmtree(wsroot, ignore_errors=True)
    assert code == 0
    rows = results(out)  # every line parses: nothing but results was written
    assert sorted((r.arm, r.attempt) for r in rows) == [("a", 0), ("b", 0)]
    for r in rows:
        said = r.metadata["agent_stdout"] + r.metadata["agent_stderr"]
        assert r.sandbox == "bwrap"
        assert "WROTE" not in said and "SOURCE-NAMED-IN-GIT" not in said, said
        assert "SOURCE-VISIBLE" not in said and str(source.path) not in r.metadata[
            "agent_stdout"]
        assert "+    return a + b" in r.agent_diff and "pwned" not in r.agent_diff
        assert r.test is not None and "NETWORK-REACHED" not in r.test.output
        assert r.test.exit_code == 0, r.test.output  # the fix itself went through
    assert hits == [], "the test command reached the network"
    assert snapshot(source.path) == before
    assert not (home / "pwned").exists() and list(home.iterdir()) == []
    assert leftovers == [], "workspaces are removed and nothing was planted"


@pytest.mark.parametrize("sandbox", ["none", pytest.param("bwrap", marks=needs_bwrap)])
def test_fsmonitor_and_hooks_planted_by_the_agent_never_run(
        suite_file: Path, tmp_path: Path, sandbox: str) -> None:
    marker = tmp_path / "marker"
    plant = "; ".join([
        f"git config core.fsmonitor 'touch {marker}'",
        "git config core.hooksPath .githooks",
        "mkdir -p .githooks .git/hooks",
        *(f"printf '#!/bin/sh\\ntouch {marker}\\n' > {d}/{h} && chmod +x {d}/{h}"
          for d in (".githooks", ".git/hooks")
          for h in ("pre-commit", "post-index-change", "post-checkout", "pre-auto-gc")),
        f"git config diff.external 'touch {marker}'",
        f"git config filter.evil.clean 'touch {marker}; cat'",
        f"git config filter.evil.smudge 'touch {marker}; cat'",
        "echo '* filter=evil diff=evil' > .gitattributes",
        f"git config diff.evil.textconv 'touch {marker}; cat'",
        "sed -i 's/a - b/a + b/' calc/__init__.py",
    ])
    out = tmp_path / "run.jsonl"
    assert main(["run", str(suite_file), "--agent", plant, "--out", str(out),
                 "--sandbox", sandbox, "--mirror-dir", str(tmp_path / "m")]) == 0
    (r,) = results(out)
    assert r.metadata["agent_exit_code"] == 0, r.metadata["agent_stderr"]
    assert "+    return a + b" in r.agent_diff and r.test.exit_code == 0
    assert not marker.exists(), "judgekit ran a command the agent planted in its workspace"
    time.sleep(0.5)
    assert not marker.exists()


@pytest.mark.parametrize("sandbox", ["none", pytest.param("bwrap", marks=needs_bwrap)])
def test_no_process_outlives_its_attempt(project: Project, tmp_path: Path, sandbox: str) -> None:
    token = f"9{os.getpid()}{time.monotonic_ns() % 10**6}"
    suite = write_suite(tmp_path / "s.yaml", project, test_command=f"sleep 1{token}",
                        timeout_s=1)
    agent = (f"(sleep 2{token} &) ; setsid sleep 3{token} > /dev/null 2>&1 & "
             f"nohup sleep 4{token} > /dev/null 2>&1 & true")
    out = tmp_path / "run.jsonl"
    assert main(["run", str(suite), "--agent", agent, "--out", str(out),
                 "--sandbox", sandbox]) == 0
    (r,) = results(out)
    assert r.test.timed_out
    assert sleepers(token) == []


def test_strays_are_dead_when_the_command_returns_not_just_signalled(tmp_path: Path) -> None:
    """Without a sandbox, processes that left the command's group are killed by their
    marker; a SIGKILL is only queued, so ``run_shell`` waits until they are gone (on a busy
    machine a killed process may still run, and a stray that keeps forking must be killed
    again). Checked with no pause at all after the call returns."""
    from judgekit.execute import run_shell

    token = f"7{os.getpid()}{time.monotonic_ns() % 10**6}"
    strays = " ".join(f"setsid sleep 3{token} > /dev/null 2>&1 &" for _ in range(20))
    forker = f"setsid sh -c 'while :; do sleep 4{token} & done' > /dev/null 2>&1 &"
    for _ in range(3):
        out = run_shell(f"{strays} {forker} sleep 0.2", cwd=tmp_path, timeout=60)
        assert out.exit_code == 0 and not out.timed_out
        assert sleepers(token) == []


def test_sigterm_stops_the_run_kills_the_attempt_and_keeps_finished_results(
        suite_file: Path, tmp_path: Path) -> None:
    token = f"8{os.getpid()}{time.monotonic_ns() % 10**6}"
    out = tmp_path / "run.jsonl"
    cmd = [sys.executable, "-m", "judgekit", "run", str(suite_file), "--arms", "quick,slow",
           "--agent-for", "quick=true", "--agent-for",
           f"slow=setsid sleep 3{token} > /dev/null 2>&1 & sleep 2{token}",
           "--attempts", "3", "--out", str(out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not sleepers(f"2{token}") and time.monotonic() < deadline:
            time.sleep(0.1)
        assert sleepers(f"2{token}"), "the slow attempt never started"
        proc.send_signal(signal.SIGTERM)
        sent = time.monotonic()
        _, err = proc.communicate(timeout=30)
        assert time.monotonic() - sent < 10
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143, err
    assert "SIGTERM received" in err and "--resume continues the run" in err
    assert sleepers(token) == []
    assert [(r.arm, r.attempt) for r in results(out)] == [("quick", 0)]


@needs_bwrap
@pytest.mark.parametrize("allow", [False, True])
def test_the_agent_reaches_the_network_only_with_agent_network(
        suite_file: Path, tmp_path: Path, allow: bool) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    agent = (f"{sys.executable} -c \"import socket; socket.create_connection(('127.0.0.1', "
             f"{port}), timeout=3); print('CONNECTED')\"")
    out = tmp_path / "run.jsonl"
    try:
        assert main(["run", str(suite_file), "--agent", agent, "--out", str(out),
                     *(["--agent-network"] if allow else [])]) == 0
    finally:
        server.close()
    (r,) = results(out)
    assert ("CONNECTED" in r.metadata["agent_stdout"]) is allow
