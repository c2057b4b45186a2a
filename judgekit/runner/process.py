"""Shell commands in their own process group, killed wholesale on timeout.

Example:
    >>> import tempfile
    >>> out = run_shell("echo hi", cwd=tempfile.gettempdir(), timeout=10)
    >>> out.exit_code, out.output.strip(), out.timed_out
    (0, 'hi', False)
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

MAX_OUTPUT_CHARS = 1_000_000
"""Captured output beyond this is cut in the middle (head and tail are kept)."""

KILL_GRACE_S = 5.0
"""Seconds between SIGTERM and SIGKILL of a timed-out process group."""


@dataclass(frozen=True)
class ProcessOutcome:
    """What a finished (or killed) command did."""

    exit_code: int | None
    timed_out: bool
    duration_s: float
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        """stdout followed by stderr, the way a terminal would mostly show them."""
        if self.stdout and self.stderr:
            sep = "" if self.stdout.endswith("\n") else "\n"
            return f"{self.stdout}{sep}{self.stderr}"
        return self.stdout or self.stderr


def clip(text: str, limit: int = MAX_OUTPUT_CHARS) -> str:
    """Keep the head and tail of ``text`` when it is longer than ``limit``."""
    if len(text) <= limit:
        return text
    head = limit // 5
    tail = limit - head
    cut = len(text) - head - tail
    return f"{text[:head]}\n[... {cut} characters cut by judgekit ...]\n{text[-tail:]}"


def _shell() -> list[str]:
    bash = shutil.which("bash")
    return [bash, "-c"] if bash else ["/bin/sh", "-c"]


def _kill_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _read(path: Path) -> str:
    return clip(path.read_text(encoding="utf-8", errors="replace"))


def run_shell(
    command: str,
    *,
    cwd: str | Path,
    timeout: float | None,
    env: Mapping[str, str] | None = None,
    log_dir: str | Path | None = None,
    log_name: str = "command",
    stdin_devnull: bool = True,
) -> ProcessOutcome:
    """Run ``command`` through the shell in a new session (its own process group).

    On timeout the whole group gets SIGTERM, then SIGKILL after :data:`KILL_GRACE_S`.
    Whatever the command leaves running in its group after it exits is killed too.
    stdout and stderr go to ``<log_dir>/<log_name>.stdout|.stderr`` (a temp dir if none).
    """
    own_tmp = None
    if log_dir is None:
        own_tmp = tempfile.TemporaryDirectory(prefix="judgekit-log-")
        log_dir = own_tmp.name
    log = Path(log_dir)
    log.mkdir(parents=True, exist_ok=True)
    out_path, err_path = log / f"{log_name}.stdout", log / f"{log_name}.stderr"
    full_env = dict(os.environ if env is None else env)
    start = time.monotonic()
    timed_out = False
    try:
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            proc = subprocess.Popen(
                [*_shell(), command], cwd=str(cwd), env=full_env, stdout=out, stderr=err,
                stdin=subprocess.DEVNULL if stdin_devnull else None, start_new_session=True,
            )
            pgid = proc.pid
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                _kill_group(pgid, signal.SIGTERM)
                try:
                    proc.wait(timeout=KILL_GRACE_S)
                except subprocess.TimeoutExpired:
                    pass
                _kill_group(pgid, signal.SIGKILL)
                proc.wait()
            finally:
                _kill_group(pgid, signal.SIGKILL)
        duration = time.monotonic() - start
        return ProcessOutcome(
            exit_code=None if timed_out else proc.returncode, timed_out=timed_out,
            duration_s=round(duration, 3), stdout=_read(out_path), stderr=_read(err_path),
        )
    finally:
        if own_tmp is not None:
            own_tmp.cleanup()
