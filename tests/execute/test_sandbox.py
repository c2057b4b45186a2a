"""The bubblewrap sandbox: what a command can write, see and reach, and how it ends."""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import threading
import time
from pathlib import Path

import pytest

from judgekit.execute import Bwrap, Limits, SandboxSpec, choose_sandbox, run_shell
from judgekit.execute.sandbox import SandboxUnavailable, bwrap_problem

needs_bwrap = pytest.mark.skipif(bwrap_problem() is not None,
                                 reason=f"bubblewrap unusable here: {bwrap_problem()}")


@pytest.fixture
def box(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A workspace, a home and an outside directory, all under the host's /tmp."""
    root = tmp_path_factory.mktemp("box")
    paths = {name: root / name for name in ("ws", "home", "outside", "secret")}
    for path in paths.values():
        path.mkdir()
    (paths["secret"] / "fix.txt").write_text("the answer\n")
    return paths


def spec(box: dict[str, Path], **kw: object) -> SandboxSpec:
    return SandboxSpec(writable=(box["ws"],), home=box["home"],
                       hidden=(box["secret"],), **kw)  # type: ignore[arg-type]


@needs_bwrap
def test_only_the_workspace_home_and_a_private_tmp_are_writable(box, tmp_path) -> None:
    outside_tmp = Path("/var/tmp") if os.access("/var/tmp", os.W_OK) else None
    script = (
        "echo ok > in-ws.txt; echo ok > \"$HOME/in-home.txt\"; echo ok > /tmp/private.txt; "
        f"echo bad > {box['outside']}/x.txt 2>/dev/null && echo WROTE-OUTSIDE; "
        f"echo bad > /usr/judgekit-x 2>/dev/null && echo WROTE-USR; "
        + (f"echo bad > {outside_tmp}/judgekit-sandbox-x 2>/dev/null && echo WROTE-VARTMP; "
           if outside_tmp else "")
        + "ls /tmp; echo home=$HOME"
    )
    out = run_shell(script, cwd=box["ws"], timeout=60, sandbox=Bwrap(), spec=spec(box))
    assert out.exit_code == 0, out.output
    assert "WROTE" not in out.stdout
    assert (box["ws"] / "in-ws.txt").exists() and (box["home"] / "in-home.txt").exists()
    assert not (box["outside"] / "x.txt").exists() and not Path("/usr/judgekit-x").exists()
    assert f"home={box['home']}" in out.stdout
    assert "private.txt" in out.stdout and not Path("/tmp/private.txt").exists()
    assert box["outside"].name not in out.stdout.split("home=")[0], "host /tmp is not visible"


@needs_bwrap
def test_hidden_paths_are_empty_inside(box) -> None:
    """A hidden directory outside /tmp (the source repository, the mirror cache) is empty."""
    if not os.access("/var/tmp", os.W_OK):
        pytest.skip("needs a writable /var/tmp, outside the sandbox's private /tmp")
    secret = Path(tempfile.mkdtemp(prefix="judgekit-hidden-", dir="/var/tmp"))
    try:
        (secret / "fix.txt").write_text("the answer\n")
        hidden = SandboxSpec(writable=(box["ws"],), home=box["home"], hidden=(secret,))
        out = run_shell(f"ls -A {secret}; cat {secret}/fix.txt || echo HIDDEN",
                        cwd=box["ws"], timeout=60, sandbox=Bwrap(), spec=hidden)
        assert "HIDDEN" in out.stdout and "the answer" not in out.stdout
        assert (secret / "fix.txt").read_text() == "the answer\n"
    finally:
        shutil.rmtree(secret)


def _server() -> tuple[socket.socket, list[object]]:
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen()
    hits: list[object] = []

    def serve() -> None:
        try:
            conn, _ = srv.accept()
            hits.append(conn)
            conn.close()
        except OSError:
            pass

    threading.Thread(target=serve, daemon=True).start()
    return srv, hits


CONNECT = ("python3 -c \"import socket,sys; socket.create_connection(('127.0.0.1', {port}), "
           "timeout=3); print('CONNECTED')\"")


@needs_bwrap
@pytest.mark.parametrize("network", [False, True])
def test_network_is_off_unless_allowed(box, network: bool) -> None:
    srv, hits = _server()
    try:
        port = srv.getsockname()[1]
        out = run_shell(CONNECT.format(port=port), cwd=box["ws"], timeout=60, sandbox=Bwrap(),
                        spec=spec(box, network=network))
        time.sleep(0.2)
        assert ("CONNECTED" in out.stdout) is network, out.output
        assert bool(hits) is network
    finally:
        srv.close()


def _alive_with(token: str) -> list[int]:
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                cmdline = Path(f"/proc/{entry.name}/cmdline").read_bytes()
            except OSError:
                continue
            if token.encode() in cmdline:
                found.append(int(entry.name))
    return found


@needs_bwrap
def test_setsid_children_die_with_the_command_and_on_timeout(box) -> None:
    token = f"{os.getpid()}{time.monotonic_ns() % 10**6}"
    run_shell(f"setsid sleep 3{token} > /dev/null 2>&1 & echo started", cwd=box["ws"],
              timeout=60, sandbox=Bwrap(), spec=spec(box))
    out = run_shell(f"setsid sleep 4{token} > /dev/null 2>&1 & sleep 5{token}", cwd=box["ws"],
                    timeout=1, sandbox=Bwrap(), spec=spec(box))
    assert out.timed_out
    time.sleep(0.3)
    assert _alive_with(token) == []


@needs_bwrap
def test_the_memory_limit_applies_inside(box) -> None:
    big = "python3 -c \"b = bytearray(600 * 1024 * 1024); print('ALLOCATED')\""
    small = run_shell(big, cwd=box["ws"], timeout=60, sandbox=Bwrap(),
                      spec=spec(box, limits=Limits(memory_mb=300, max_procs=None)))
    assert small.exit_code != 0 and "MemoryError" in small.stderr
    roomy = run_shell(big, cwd=box["ws"], timeout=60, sandbox=Bwrap(),
                      spec=spec(box, limits=Limits(memory_mb=4096, max_procs=None)))
    assert roomy.exit_code == 0 and "ALLOCATED" in roomy.stdout


def test_choosing_a_sandbox_fails_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    """No usable bubblewrap: the default refuses instead of running unsandboxed."""
    assert choose_sandbox("none").name == "none"
    import judgekit.execute.sandbox as sandbox

    monkeypatch.setattr(sandbox, "bwrap_problem", lambda *a: "bwrap is not installed")
    for requested in (None, "bwrap"):
        with pytest.raises(SandboxUnavailable, match="bwrap is not installed"):
            choose_sandbox(requested)


def test_a_missing_bwrap_is_named_with_how_to_install_it() -> None:
    from judgekit.execute.sandbox import bwrap_problem

    problem = bwrap_problem("judgekit-no-such-bwrap")
    assert problem is not None and "bubblewrap" in problem
    assert "apt-get install bubblewrap" in problem


@needs_bwrap
def test_a_hidden_unix_socket_cannot_be_reached(box) -> None:
    """connect() ignores read-only mounts, so host control sockets are masked instead."""
    if not os.access("/var/tmp", os.W_OK):
        pytest.skip("needs a writable /var/tmp, outside the sandbox's private /tmp")
    where = Path(tempfile.mkdtemp(prefix="judgekit-sock-", dir="/var/tmp"))
    path = where / "control.sock"
    srv = socket.socket(socket.AF_UNIX)
    srv.bind(str(path))
    srv.listen()
    where.chmod(0o755)  # open to anyone: only the mask may stop the sandbox's user
    path.chmod(0o777)
    probe = ("python3 -c \"import socket; s = socket.socket(socket.AF_UNIX); "
             f"s.connect('{path}'); print('CONNECTED')\"")
    try:
        open_ = run_shell(probe, cwd=box["ws"], timeout=60, sandbox=Bwrap(), spec=spec(box))
        assert "CONNECTED" in open_.stdout, "a visible socket is reachable despite ro mounts"
        masked = SandboxSpec(writable=(box["ws"],), home=box["home"], hidden=(path,))
        shut = run_shell(probe, cwd=box["ws"], timeout=60, sandbox=Bwrap(), spec=masked)
        assert "CONNECTED" not in shut.stdout and shut.exit_code != 0
    finally:
        srv.close()
        shutil.rmtree(where)


def test_host_control_sockets_are_masked_when_present() -> None:
    from judgekit.execute.sandbox import HOST_SOCKETS

    argv = Bwrap().wrap(["true"], SandboxSpec(), cwd=Path("/"))
    for entry in HOST_SOCKETS:
        target = Path(entry).resolve()
        if target.exists():
            assert str(target) in argv, entry
