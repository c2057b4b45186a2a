"""Where agent, setup and test commands run: bubblewrap (``bwrap``) or no sandbox.

Under ``bwrap`` a command sees the host file system read-only, with only its workspace, a
private ``HOME`` and a private ``/tmp`` writable. The invoking user's home directory and
``/root`` are hidden (credentials live there); the toolchains under them that ``PATH``
uses come back read-only (:mod:`judgekit.execute.hostview`), and directories bound for the
agent (``SandboxSpec.binds``) are read-only too. The source repository and the mirror
cache are hidden (an empty directory is mounted over them), so the fix commit cannot be
read from there, and so are the host's control sockets (:data:`HOST_SOCKETS`: container
engines, the session bus). The command runs in new user, PID, IPC and UTS namespaces
and, unless network is allowed, a network namespace with only loopback. When the command's first
process ends, or when judgekit kills it, the PID namespace ends and every process left in
it (``setsid`` children included) is killed by the kernel.

The private ``HOME`` starts empty (or as a copy of the agent's seed home); anything a setup
command downloads into it (a cargo registry, a pip cache) is there for the attempt's test
command, which has no network.

Limits (:class:`Limits`) are resource limits set before the sandbox starts: address space
(memory) and number of processes (the process limit counts per user and is not enforced
for root, which the PID namespace makes up for at the end of an attempt).

When no sandbox can be used, :func:`choose_sandbox` refuses (:class:`SandboxUnavailable`)
unless no sandbox was asked for: judgekit fails closed.

Example:
    >>> spec = SandboxSpec(writable=(Path("/w/repo"),), home=Path("/w/home"))
    >>> NoSandbox().wrap(["bash", "-c", "true"], spec, cwd=Path("/w/repo"))
    ['bash', '-c', 'true']
    >>> argv = Bwrap().wrap(["true"], spec, cwd=Path("/w/repo"))
    >>> argv[0], "--unshare-net" in argv, argv[-1]
    ('bwrap', True, 'true')
"""

from __future__ import annotations

import functools
import os
import resource
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from judgekit.errors import ConfigError
from judgekit.execute.hostview import HostView, current_view

SandboxName = Literal["none", "bwrap"]
SANDBOXES: tuple[SandboxName, ...] = ("none", "bwrap")

DEFAULT_MEMORY_MB = 32768
DEFAULT_MAX_PROCS = 4096


@dataclass(frozen=True)
class Limits:
    """Per-command resource limits; ``None`` leaves a limit unset."""

    memory_mb: int | None = DEFAULT_MEMORY_MB
    max_procs: int | None = DEFAULT_MAX_PROCS

    def preexec(self) -> Callable[[], None] | None:
        """A function that applies the limits in the child before it execs."""
        if self.memory_mb is None and self.max_procs is None:
            return None
        memory, procs = self.memory_mb, self.max_procs

        def apply() -> None:  # pragma: no cover - runs in the child process
            if memory is not None:
                size = memory * 1024 * 1024
                resource.setrlimit(resource.RLIMIT_AS, (size, size))
            if procs is not None:
                resource.setrlimit(resource.RLIMIT_NPROC, (procs, procs))

        return apply


@dataclass(frozen=True)
class SandboxSpec:
    """What one command may touch.

    ``binds`` are ``(source, destination)`` pairs shown read-only; ``agent`` marks the
    agent's command, which sees only the host's runtimes under the hidden homes, not the
    user's tools (:class:`~judgekit.execute.hostview.HostView`); ``hide_homes`` False keeps
    the host's home directories visible (read-only). ``tmp`` is ``TMPDIR`` without a
    sandbox (the sandbox has a private ``/tmp``).
    """

    writable: tuple[Path, ...] = ()
    hidden: tuple[Path, ...] = ()
    home: Path | None = None
    network: bool = False
    limits: Limits = field(default_factory=Limits)
    binds: tuple[tuple[Path, Path], ...] = ()
    agent: bool = False
    hide_homes: bool = True
    tmp: Path | None = None


class Sandbox(Protocol):
    """Turns a command line into one that runs inside the sandbox."""

    name: SandboxName

    def wrap(self, argv: list[str], spec: SandboxSpec, cwd: Path) -> list[str]: ...

    def environment(self, env: dict[str, str], spec: SandboxSpec) -> dict[str, str]: ...


class NoSandbox:
    """Commands run as judgekit's own user, with its view of the machine."""

    name: SandboxName = "none"

    def wrap(self, argv: list[str], spec: SandboxSpec, cwd: Path) -> list[str]:
        return list(argv)

    def environment(self, env: dict[str, str], spec: SandboxSpec) -> dict[str, str]:
        env = dict(env)
        if spec.home is not None:
            env["HOME"] = str(Path(spec.home).resolve())
        if spec.tmp is not None:
            env["TMPDIR"] = str(Path(spec.tmp).resolve())
        return env


HOST_SOCKETS: tuple[str, ...] = (
    "/run/user", "/run/docker.sock", "/run/containerd", "/run/podman", "/run/dbus",
    "/var/run/docker.sock",
)
"""Control sockets of the host (container engines, the user's session bus, ssh and key
agents under ``/run/user``): a read-only file system does not stop ``connect()``, so
they are hidden."""


def _inside(path: Path, other: Path) -> bool:
    return path == other or other in path.parents


class Bwrap:
    """bubblewrap: read-only host, writable workspace, private HOME and /tmp."""

    name: SandboxName = "bwrap"

    def __init__(self, executable: str = "bwrap") -> None:
        self.executable = executable

    def wrap(self, argv: list[str], spec: SandboxSpec, cwd: Path) -> list[str]:
        uid = os.getuid()
        inner = 65534 if uid == 0 else uid  # never root inside: no way to remount /
        gid = 65534 if uid == 0 else os.getgid()
        out = [self.executable, "--die-with-parent", "--new-session",
               "--unshare-user", "--uid", str(inner), "--gid", str(gid),
               "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
        if not spec.network:
            out.append("--unshare-net")
        out += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
        writable = [Path(p).resolve() for p in spec.writable]
        if spec.home is not None:
            writable.append(Path(spec.home).resolve())
        tmp = Path("/tmp").resolve()
        if spec.hide_homes:
            out += _home_mounts(current_view(), agent=spec.agent, tmp=tmp)
        for source, dest in spec.binds:
            out += ["--ro-bind", str(Path(source).resolve()), str(dest)]
        for hidden in (Path(p).resolve() for p in (*HOST_SOCKETS, *spec.hidden)):
            if _inside(hidden, tmp) or hidden == Path("/") or not hidden.exists():
                continue  # under /tmp it is already hidden
            if hidden.is_dir():
                out += ["--tmpfs", str(hidden)]  # the workspace binds below stay visible
            else:
                out += ["--ro-bind", "/dev/null", str(hidden)]  # a file or a socket
        for path in writable:
            out += ["--bind", str(path), str(path)]
        out += ["--chdir", str(Path(cwd).resolve()), "--"]
        return out + list(argv)

    def environment(self, env: dict[str, str], spec: SandboxSpec) -> dict[str, str]:
        env = dict(env)
        if spec.home is not None:
            env["HOME"] = str(Path(spec.home).resolve())
        env["TMPDIR"] = "/tmp"
        return env


def _home_mounts(view: HostView, *, agent: bool, tmp: Path) -> list[str]:
    """Empty the host's homes, then show their toolchains again, read-only."""
    out: list[str] = []
    for home in view.homes:
        if not _inside(home, tmp):  # under /tmp it is already hidden
            out += ["--tmpfs", str(home)]
    for path in view.binds(agent=agent):
        if path.exists():
            out += ["--ro-bind", str(path), str(path)]
    return out


INSTALL_HINT = ("install it with apt-get install bubblewrap (Debian, Ubuntu), dnf install "
                "bubblewrap (Fedora) or pacman -S bubblewrap (Arch)")
"""How to get a working sandbox, for the message of a refused run."""


class SandboxUnavailable(ConfigError):
    """No sandbox can be used here and running without one was not asked for."""

    def __init__(self, problem: str) -> None:
        self.problem = problem
        super().__init__(f"no sandbox: {problem}")


@functools.lru_cache(maxsize=4)
def bwrap_problem(executable: str = "bwrap") -> str | None:
    """Why ``bwrap`` cannot be used here, or ``None`` when a trial sandbox works."""
    found = shutil.which(executable)
    if not found:
        return f"bubblewrap ({executable}) is not installed; {INSTALL_HINT}"
    probe = Bwrap(found).wrap(["true"], SandboxSpec(), cwd=Path("/"))
    try:
        out = subprocess.run(probe, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap ({found}) does not start: {exc}"
    if out.returncode != 0:
        lines = (out.stderr or "").strip().splitlines()
        why = lines[-1] if lines else f"exit {out.returncode}"
        return (f"bubblewrap ({found}) does not work here: {why} (it needs unprivileged user "
                "namespaces: kernel.unprivileged_userns_clone=1, or a container that allows "
                "them)")
    return None


def choose_sandbox(requested: SandboxName | None) -> Sandbox:
    """The sandbox to use: ``bwrap`` unless ``none`` is asked for.

    ``requested`` ``None`` means the default, ``bwrap``. When it cannot be used,
    :class:`SandboxUnavailable` is raised: judgekit never falls back to running unsandboxed
    by itself.
    """
    if requested == "none":
        return NoSandbox()
    problem = bwrap_problem()
    if problem is not None:
        raise SandboxUnavailable(problem)
    return Bwrap(shutil.which("bwrap") or "bwrap")
