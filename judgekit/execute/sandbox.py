"""Where agent, setup and test commands run: bubblewrap (``bwrap``) or no sandbox.

Under ``bwrap`` a command sees the host file system read-only, with only its workspace, a
private ``HOME`` and a private ``/tmp`` writable. The invoking user's home directory and
``/root`` are hidden (credentials live there); the toolchains under them that ``PATH``
uses come back read-only (:mod:`judgekit.execute.hostview`), and directories bound for the
agent (``SandboxSpec.binds``) are read-only too. The source repository and the mirror
cache are hidden (an empty directory is mounted over them), so the fix commit cannot be
read from there, and so are the host's control sockets (:data:`HOST_SOCKETS`: container
engines, the session bus). The command runs in new PID, IPC and UTS namespaces
(and a user namespace, unless root runs judgekit) and, unless network is allowed, a network
namespace with only loopback. When the command's first process ends, or when judgekit kills
it, the PID namespace ends and every process left in it (``setsid`` children included) is
killed by the kernel.

The private ``HOME`` starts empty (or as a copy of the agent's seed home); anything a setup
command downloads into it (a cargo registry, a pip cache) is there for the attempt's test
command, which has no network.

Commands never run as root and keep no capabilities (``--cap-drop ALL``, no new
privileges). Run by an ordinary user, bwrap maps that user to an unprivileged user in a new
user namespace. Run by root, a user namespace would not do: its users are still root outside,
so every file only root may read (``/etc/shadow``) would be readable. Then bwrap builds the
view with root's rights (so toolchains under ``/root`` can be shown) and the command drops to a
real unprivileged user and group (:data:`SANDBOX_USER`, ``nobody``), without supplementary
groups, before it starts (util-linux's ``setpriv``); the paths it may write are handed to that
user first (:mod:`judgekit.execute.identity`).

Limits (:class:`Limits`) are resource limits set before the sandbox starts: address space
(memory) and number of processes. The process limit counts the processes of the user a
command runs as; since commands never run as root, it holds for every invoker (run by root,
every attempt runs as :data:`SANDBOX_USER`, so the attempts running at once share it).

When no sandbox can be used, :func:`choose_sandbox` refuses (:class:`SandboxUnavailable`)
unless no sandbox was asked for: judgekit fails closed.

Example:
    >>> spec = SandboxSpec(writable=(Path("/w/repo"),), home=Path("/w/home"))
    >>> NoSandbox().wrap(["bash", "-c", "true"], spec, cwd=Path("/w/repo"))
    ['bash', '-c', 'true']
    >>> argv = Bwrap(drop_to=None).wrap(["true"], spec, cwd=Path("/w/repo"))
    >>> argv[0], "--unshare-net" in argv, argv[-1]
    ('bwrap', True, 'true')
    >>> root = Bwrap(drop_to=Identity(65534, 65534, "setpriv")).wrap(["true"], spec, cwd=Path("/w"))
    >>> "--unshare-user" in root, root[root.index("--") + 1:root.index("--") + 3]
    (False, ['setpriv', '--reuid=65534'])
"""

from __future__ import annotations

import functools
import os
import resource
import shutil
import signal
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from judgekit.errors import ConfigError
from judgekit.execute.hostview import current_view
from judgekit.execute.named import unreadable
from judgekit.execute.identity import (SANDBOX_USER, Identity, Reach, hand_over, inside,
                                       passable)

SandboxName = Literal["none", "bwrap"]
SANDBOXES: tuple[SandboxName, ...] = ("none", "bwrap")

DEFAULT_MEMORY_MB = 32768
DEFAULT_MAX_PROCS = 4096
#: the largest file one command may write, in MiB (a larger write fails with EFBIG).
DEFAULT_FILE_MB = 2048


@dataclass(frozen=True)
class Limits:
    """Per-command resource limits; ``None`` leaves a limit unset."""

    memory_mb: int | None = DEFAULT_MEMORY_MB
    max_procs: int | None = DEFAULT_MAX_PROCS
    file_mb: int | None = DEFAULT_FILE_MB

    def preexec(self) -> Callable[[], None] | None:
        """A function that applies the limits in the child before it execs (a write past
        the file-size limit fails with EFBIG rather than killing the writer)."""
        if self.memory_mb is None and self.max_procs is None and self.file_mb is None:
            return None
        memory, procs, file_mb = self.memory_mb, self.max_procs, self.file_mb

        def apply() -> None:  # pragma: no cover - runs in the child process
            if memory is not None:
                size = memory * 1024 * 1024
                resource.setrlimit(resource.RLIMIT_AS, (size, size))
            if procs is not None:
                resource.setrlimit(resource.RLIMIT_NPROC, (procs, procs))
            if file_mb is not None:
                signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
                size = file_mb * 1024 * 1024
                resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

        return apply


@dataclass(frozen=True)
class SandboxSpec:
    """What one command may touch.

    ``binds`` are ``(source, destination)`` pairs shown read-only; ``shown`` the pairs the
    command itself names (:func:`~judgekit.execute.named.shown_for`: its program, its script,
    the virtualenv and base interpreter they need), bound read-only only where the sandbox
    would hide them (under ``/tmp`` or a hidden home) or its user could not reach them (a
    directory above them that root's commands may not pass through); ``agent`` marks the
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
    shown: tuple[tuple[Path, Path], ...] = ()
    agent: bool = False
    hide_homes: bool = True
    tmp: Path | None = None


class Sandbox(Protocol):
    """Turns a command line into one that runs inside the sandbox."""

    name: SandboxName

    def prepare(self, spec: SandboxSpec) -> None:
        """Make the paths ``spec`` lets a command write writable by the user it runs as."""
        ...

    def wrap(self, argv: list[str], spec: SandboxSpec, cwd: Path) -> list[str]: ...

    def environment(self, env: dict[str, str], spec: SandboxSpec) -> dict[str, str]: ...


class NoSandbox:
    """Commands run as judgekit's own user, with its view of the machine."""

    name: SandboxName = "none"

    def prepare(self, spec: SandboxSpec) -> None:
        return None

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


def root_identity(setpriv: str = "setpriv") -> Identity:
    """The identity root's commands drop to; :class:`SandboxUnavailable` without ``setpriv``."""
    found = shutil.which(setpriv)
    if not found:
        raise SandboxUnavailable(
            f"judgekit runs as root and the sandbox cannot drop to an unprivileged user: "
            f"setpriv ({setpriv}, from util-linux) is not installed; install util-linux, or "
            "run judgekit as an ordinary user")
    return Identity(SANDBOX_USER[0], SANDBOX_USER[1], found)


_AUTO = object()


class Bwrap:
    """bubblewrap: read-only host, writable workspace, private HOME and /tmp.

    ``drop_to`` is the unprivileged identity commands drop to when bwrap runs as root
    (default: :data:`SANDBOX_USER` when this process is root, else none: bwrap's user
    namespace maps the invoking user).
    """

    name: SandboxName = "bwrap"

    def __init__(self, executable: str = "bwrap",
                 drop_to: Identity | None | object = _AUTO) -> None:
        self.executable = executable
        if drop_to is _AUTO:
            drop_to = root_identity() if os.geteuid() == 0 else None
        self.drop_to: Identity | None = drop_to  # type: ignore[assignment]

    def prepare(self, spec: SandboxSpec) -> None:
        """Hand the workspace and HOME to the identity root's commands drop to."""
        if self.drop_to is None:
            return
        for path in _writable(spec):
            hand_over(path, self.drop_to.uid, self.drop_to.gid)

    def wrap(self, argv: list[str], spec: SandboxSpec, cwd: Path) -> list[str]:
        out = [self.executable, "--die-with-parent", "--new-session"]
        if self.drop_to is None:  # bwrap runs as an ordinary user: map it, never root inside
            uid = os.getuid()
            out += ["--unshare-user", "--uid", str(uid), "--gid", str(os.getgid()),
                    "--cap-drop", "ALL"]
        else:  # as root: keep only what dropping to the unprivileged user needs
            out += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID",
                    "--cap-add", "CAP_SETPCAP"]
        out += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
        if not spec.network:
            out.append("--unshare-net")
        out += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        if self.drop_to is not None:
            out += ["--perms", "1777"]  # for the user commands drop to
        out += ["--tmpfs", "/tmp"]
        writable = _writable(spec)
        tmp = Path("/tmp").resolve()
        paths = Reach(self.drop_to, fresh=[tmp])
        shown: list[tuple[Path, Path]] = []
        emptied = [tmp]
        if spec.hide_homes:
            view = current_view()
            for home in view.homes:
                if not inside(home, tmp):  # under /tmp it is already hidden
                    out += ["--tmpfs", str(home)]
                    paths.emptied(home)
                    emptied.append(home)
            shown += [(p, p) for p in view.binds(agent=spec.agent) if os.path.exists(p)]
        shown += [(Path(source).resolve(), Path(dest)) for source, dest in spec.binds]
        hidden_paths = [Path(p).resolve() for p in (*map(Path, HOST_SOCKETS), *spec.hidden)]
        kept_out = [*writable, *(h for h in hidden_paths if h not in emptied)]
        shown += self._named(spec, emptied, kept_out, shown)
        for source, dest in shown:
            out += paths.reach(dest) + ["--ro-bind", str(source), str(dest)]
            paths.bind(dest)
        for hidden in hidden_paths:
            if inside(hidden, tmp) or hidden == Path("/") or not os.path.exists(hidden):
                continue  # under /tmp it is already hidden
            if os.path.isdir(hidden):
                out += ["--tmpfs", str(hidden)]  # the workspace binds below stay visible
                paths.emptied(hidden)
            else:
                out += ["--ro-bind", "/dev/null", str(hidden)]  # a file or a socket
        for path in writable:
            out += paths.reach(path) + ["--bind", str(path), str(path)]
            paths.bind(path)
        out += ["--chdir", str(Path(cwd).resolve()), "--"]
        if self.drop_to is not None:
            out += self.drop_to.drop()
        return out + list(argv)

    def _named(self, spec: SandboxSpec, emptied: list[Path], mounted: list[Path],
               shown: list[tuple[Path, Path]]) -> list[tuple[Path, Path]]:
        """The pairs of ``spec.shown`` to bind: those the empty mounts ``emptied`` hide or
        the user commands drop to could not reach, and not already shown or mounted
        otherwise (``mounted``: the workspace, and the hidden paths, such as the source
        repository, which win; ``/tmp`` or a home named hidden is a place named files are
        shown from)."""
        out: list[tuple[Path, Path]] = []
        for source, dest in spec.shown:
            dest = Path(os.path.abspath(dest))
            if not os.path.exists(source) or any(inside(dest, p) for p in mounted) \
                    or any(inside(dest, d) for _, d in (*shown, *out)):
                continue
            hidden = any(inside(dest, e) for e in emptied)
            closed = self.drop_to is not None and not all(
                passable(p, self.drop_to) for p in dest.parents)
            if hidden or closed:
                out.append((source, dest))
        return out

    def environment(self, env: dict[str, str], spec: SandboxSpec) -> dict[str, str]:
        env = dict(env)
        if spec.home is not None:
            env["HOME"] = str(Path(spec.home).resolve())
        env["TMPDIR"] = "/tmp"
        return env


def _writable(spec: SandboxSpec) -> list[Path]:
    writable = [Path(p).resolve() for p in spec.writable]
    if spec.home is not None:
        writable.append(Path(spec.home).resolve())
    return writable


def closed_files(sandbox: Sandbox, commands: Iterable[tuple[str, str]],
                 path_var: str | None = None) -> str | None:
    """One line naming the first file a command names (:mod:`judgekit.execute.named`) that
    the user root's commands drop to could not read or run though the sandbox shows it, and
    the fix; ``None`` when there is none, or when commands run as the invoking user.

    ``commands`` are ``(what, command)`` pairs (``what`` says whose command it is);
    ``path_var`` is the commands' ``PATH`` (default: this process's).
    """
    user = getattr(sandbox, "drop_to", None)
    if not isinstance(user, Identity):
        return None
    path = os.environ.get("PATH", "") if path_var is None else path_var
    for what, command in commands:
        problems = unreadable(command, path, user.uid, user.gid)
        if problems:
            return f"{what} cannot start: {problems[0]}"
    return None


INSTALL_HINT = ("install it with apt-get install bubblewrap (Debian, Ubuntu), dnf install "
                "bubblewrap (Fedora) or pacman -S bubblewrap (Arch)")
"""How to get a working sandbox, for the message of a refused run."""


class SandboxUnavailable(ConfigError):
    """No sandbox can be used here and running without one was not asked for."""

    def __init__(self, problem: str) -> None:
        self.problem = problem
        super().__init__(f"no sandbox: {problem}")


_PROBE = ["sh", "-c", 'test "$(id -u)" -ne 0 || { echo "the command still runs as root" >&2; '
          "exit 1; }"]
"""The trial command: it fails unless it runs as an unprivileged user."""


@functools.lru_cache(maxsize=4)
def bwrap_problem(executable: str = "bwrap", setpriv: str = "setpriv") -> str | None:
    """Why ``bwrap`` cannot be used here, or ``None`` when a trial sandbox works.

    Run by root, the trial also needs ``setpriv`` to drop to :data:`SANDBOX_USER`.
    """
    found = shutil.which(executable)
    if not found:
        return f"bubblewrap ({executable}) is not installed; {INSTALL_HINT}"
    try:
        box = Bwrap(found, drop_to=root_identity(setpriv) if os.geteuid() == 0 else None)
    except SandboxUnavailable as exc:
        return exc.problem
    probe = box.wrap(list(_PROBE), SandboxSpec(), cwd=Path("/"))
    try:
        out = subprocess.run(probe, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap ({found}) does not start: {exc}"
    if out.returncode != 0:
        lines = (out.stderr or "").strip().splitlines()
        why = lines[-1] if lines else f"exit {out.returncode}"
        if box.drop_to is not None:
            return (f"bubblewrap ({found}) cannot run a command as an unprivileged user here: "
                    f"{why}")
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
    return Bwrap(shutil.which("bwrap") or "bwrap")  # run by root: drops to SANDBOX_USER
