"""Shell commands run to the end of their whole process tree, optionally in a sandbox.

Each command starts in a new session. Under the ``bwrap`` sandbox it also runs in its own
PID namespace, so killing it (on timeout or cancellation) or its first process exiting
ends every process it started, ``setsid`` children included. Without a sandbox, every
process carrying the command's marker in its environment is killed as well, which catches
children that left the process group.

Output is read as it comes, through pipes, into a bounded buffer per stream: the first
fifth of :data:`MAX_OUTPUT_BYTES` and a ring of the last bytes, with the stream's whole size
and SHA-256. An agent that prints gigabytes costs judgekit that much time, not memory nor
disk; the outcome says which streams were cut (``stdout_cut``, ``stderr_cut``).

Example:
    >>> import tempfile
    >>> out = run_shell("echo hi", cwd=tempfile.gettempdir(), timeout=10)
    >>> out.exit_code, out.output.strip(), out.timed_out
    (0, 'hi', False)
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from judgekit.execute.environment import clean_environment
from judgekit.execute.sandbox import NoSandbox, Sandbox, SandboxSpec
from judgekit.ingest.headtail import HeadTail
from judgekit.ingest.models import Cut

MAX_OUTPUT_BYTES = 1_000_000
"""Bytes of each output stream kept: its head and tail; the middle of a longer one is cut."""

_CHUNK = 1 << 16
PIPE_DRAIN_S = 5.0
"""Seconds the output pipes are read after the command's tree has ended (a process that
escaped it may hold them open)."""

KILL_GRACE_S = 3.0
"""Seconds between SIGTERM and SIGKILL of a timed-out or cancelled command."""

POLL_S = 0.1
"""How often a running command checks for cancellation."""

MARKER_VAR = "JUDGEKIT_PROCESS_MARK"
"""Environment variable carrying a per-command marker (finds stray processes)."""


class Cancelled(Exception):
    """The command was stopped because the run was cancelled (SIGINT/SIGTERM)."""


@dataclass(frozen=True)
class ProcessOutcome:
    """What a finished (or killed) command did."""

    exit_code: int | None
    timed_out: bool
    duration_s: float
    stdout: str
    stderr: str
    stdout_cut: Cut | None = None
    """Set when stdout was longer than :data:`MAX_OUTPUT_BYTES`: its whole size and hash."""
    stderr_cut: Cut | None = None

    @property
    def output(self) -> str:
        """stdout followed by stderr, the way a terminal would mostly show them."""
        if self.stdout and self.stderr:
            sep = "" if self.stdout.endswith("\n") else "\n"
            return f"{self.stdout}{sep}{self.stderr}"
        return self.stdout or self.stderr


class Capture(HeadTail):
    """One output stream, kept bounded: its first bytes, a ring of its last ones, its whole
    size and SHA-256.

    Example:
        >>> c = Capture(10)
        >>> for _ in range(5): c.feed(b"0123456789")
        >>> c.size, c.cut().bytes, c.text().startswith("01")
        (50, 50, True)
    """

    def __init__(self, limit: int | None = None) -> None:
        super().__init__(MAX_OUTPUT_BYTES if limit is None else limit)
        self.sha = hashlib.sha256()

    def feed(self, chunk: bytes) -> None:
        self.sha.update(chunk)
        super().feed(chunk)

    def cut(self) -> Cut | None:
        """What was cut, or ``None`` when the stream is kept whole."""
        if self.whole:
            return None
        return Cut(bytes=self.size, kept=self.head_n + self.tail_n,
                   sha256=self.sha.hexdigest())

    def text(self) -> str:
        """The stream (decoded, bad UTF-8 replaced), cut in the middle when over the cap."""
        if self.whole:
            return (bytes(self.head) + bytes(self.tail)).decode("utf-8", errors="replace")
        missing = self.size - self.head_n - self.tail_n
        return (f"{bytes(self.head).decode('utf-8', errors='replace')}\n[... {missing} bytes "
                f"cut by judgekit ...]\n{self.last().decode('utf-8', errors='replace')}")


def _pump(stream: IO[bytes], capture: Capture) -> None:
    """Read ``stream`` to its end into ``capture``."""
    try:
        while True:
            chunk = stream.read1(_CHUNK)  # type: ignore[attr-defined]
            if not chunk:
                return
            capture.feed(chunk)
    except (OSError, ValueError):
        return


def _shell() -> list[str]:
    bash = shutil.which("bash")
    return [bash, "-c"] if bash else ["/bin/sh", "-c"]


def _kill_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _marked(mark: str) -> list[int]:
    """Processes whose environment carries ``mark`` (this user's processes only)."""
    needle = f"{MARKER_VAR}={mark}".encode()
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/environ", "rb") as fh:
                if needle in fh.read().split(b"\0"):
                    found.append(int(entry.name))
        except OSError:
            continue
    return found


def _kill_marked(mark: str, sig: int, pids: list[int] | None = None) -> None:
    """Send ``sig`` to the processes carrying ``mark`` (``pids``, when found already)."""
    for pid in _marked(mark) if pids is None else pids:
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


REAP_S = 2.0
"""Seconds the killed processes of a command are waited for before it is said to be done."""


def _kill_marked_until_gone(mark: str) -> None:
    """SIGKILL every process carrying ``mark`` until none is left alive, within
    :data:`REAP_S`: a signal is only queued, and a process killed on a busy machine may
    still run (or fork, or be between two programs) when the next command starts. A dead
    process's environment reads empty, so zombies are not waited for."""
    deadline = time.monotonic() + REAP_S
    while (left := _marked(mark)) and time.monotonic() < deadline:
        _kill_marked(mark, signal.SIGKILL, left)
        time.sleep(0.01)


def _wait(proc: subprocess.Popen[bytes], timeout: float | None,
          cancel: threading.Event | None) -> str | None:
    """Wait for ``proc``; ``'timeout'`` or ``'cancelled'`` when it was not let finish."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        step = POLL_S
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                return "timeout"
            step = min(step, left)
        try:
            proc.wait(timeout=step if cancel is not None or deadline is not None else None)
            return None
        except subprocess.TimeoutExpired:
            if cancel is not None and cancel.is_set():
                return "cancelled"


def _end_tree(proc: subprocess.Popen[bytes], mark: str) -> None:
    """SIGTERM the command's tree, SIGKILL what is left after the grace period."""
    _kill_group(proc.pid, signal.SIGTERM)
    _kill_marked(mark, signal.SIGTERM)
    try:
        proc.wait(timeout=KILL_GRACE_S)
    except subprocess.TimeoutExpired:
        pass
    _kill_group(proc.pid, signal.SIGKILL)
    _kill_marked_until_gone(mark)
    proc.wait()


def run_shell(
    command: str,
    *,
    cwd: str | Path,
    timeout: float | None,
    env: Mapping[str, str] | None = None,
    log_dir: str | Path | None = None,
    log_name: str = "command",
    stdin_devnull: bool = True,
    sandbox: Sandbox | None = None,
    spec: SandboxSpec | None = None,
    cancel: threading.Event | None = None,
) -> ProcessOutcome:
    """Run ``command`` through the shell, in ``sandbox`` (none by default).

    On timeout the whole tree gets SIGTERM, then SIGKILL after :data:`KILL_GRACE_S`;
    whatever the command leaves running when it exits is killed too. When ``cancel`` is
    set while the command runs, the tree is ended the same way and :class:`Cancelled` is
    raised. stdout and stderr, as kept (see :class:`Capture`), go to
    ``<log_dir>/<log_name>.stdout|.stderr`` (a temp dir if none). ``env`` is the command's
    whole environment (default: the clean one of
    :func:`~judgekit.execute.environment.clean_environment`); the sandbox sets ``HOME`` and
    ``TMPDIR``.
    """
    if cancel is not None and cancel.is_set():
        raise Cancelled("the run was cancelled")
    box = sandbox or NoSandbox()
    spec = spec or SandboxSpec()
    own_tmp = None
    if log_dir is None:
        own_tmp = tempfile.TemporaryDirectory(prefix="judgekit-log-")
        log_dir = own_tmp.name
    log = Path(log_dir)
    log.mkdir(parents=True, exist_ok=True)
    out_path, err_path = log / f"{log_name}.stdout", log / f"{log_name}.stderr"
    mark = uuid.uuid4().hex
    full_env = box.environment(dict(clean_environment() if env is None else env), spec)
    full_env[MARKER_VAR] = mark
    box.prepare(spec)  # run by root, the sandbox's user gets the paths it may write
    argv = box.wrap([*_shell(), command], spec, Path(cwd))
    start = time.monotonic()
    captures = (Capture(), Capture())
    try:
        stopped, exit_code = _run_tree(argv, Path(cwd), full_env, captures, spec, mark,
                                       stdin_devnull=stdin_devnull, timeout=timeout, cancel=cancel)
        duration = time.monotonic() - start
        out_text, err_text = captures[0].text(), captures[1].text()
        out_path.write_text(out_text, encoding="utf-8", errors="replace")
        err_path.write_text(err_text, encoding="utf-8", errors="replace")
        if stopped == "cancelled":
            raise Cancelled("the run was cancelled")
        timed_out = stopped == "timeout"
        return ProcessOutcome(
            exit_code=None if timed_out else exit_code, timed_out=timed_out,
            duration_s=round(duration, 3), stdout=out_text, stderr=err_text,
            stdout_cut=captures[0].cut(), stderr_cut=captures[1].cut(),
        )
    finally:
        if own_tmp is not None:
            own_tmp.cleanup()


def _run_tree(argv: list[str], cwd: Path, env: dict[str, str],
              captures: tuple[Capture, Capture], spec: SandboxSpec, mark: str, *,
              stdin_devnull: bool, timeout: float | None,
              cancel: threading.Event | None) -> tuple[str | None, int | None]:
    """Start ``argv`` in a new session, its output read into the two ``captures``, and wait
    for it; then end whatever of its tree is left. ``(why it was stopped or None, exit
    code)``."""
    proc = subprocess.Popen(
        argv, cwd=str(cwd), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL if stdin_devnull else None, start_new_session=True,
        preexec_fn=spec.limits.preexec(),  # noqa: PLW1509 - only setrlimit
    )
    pumps = [threading.Thread(target=_pump, args=(stream, capture), daemon=True)
             for stream, capture in ((proc.stdout, captures[0]), (proc.stderr, captures[1]))]
    for pump in pumps:
        pump.start()
    try:
        try:
            stopped = _wait(proc, timeout, cancel)
        except BaseException:
            _end_tree(proc, mark)
            raise
        if stopped:
            _end_tree(proc, mark)
        else:
            _kill_group(proc.pid, signal.SIGKILL)
            _kill_marked_until_gone(mark)
    finally:
        drain_until = time.monotonic() + PIPE_DRAIN_S
        for pump in pumps:
            pump.join(max(0.0, drain_until - time.monotonic()))
        if not any(pump.is_alive() for pump in pumps):
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()
    return stopped, proc.returncode
