"""Append-only ``.jsonl`` run files, safe against interruption and parallel writers.

Each result is one line written with a single ``os.write`` on an ``O_APPEND`` descriptor
under an exclusive ``flock``, then fsynced; a line is either fully there or not at all.

Example:
    >>> import tempfile, pathlib
    >>> from judgekit.runs.models import RunResult, Task
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "run.jsonl"
    >>> append_result(out, RunResult(task=Task(id="t1"), arm="baseline"))
    >>> sorted(done_keys(out))
    [('t1', 'baseline', 0)]
"""

from __future__ import annotations

import fcntl
import json
import os
import threading
from pathlib import Path

from judgekit.errors import InputError
from judgekit.runs.models import RunResult

_lock = threading.Lock()


def append_result(path: str | Path, result: RunResult) -> None:
    """Append ``result`` as one JSON line."""
    line = (result.model_dump_json(exclude_none=True) + "\n").encode("utf-8")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with _lock:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            view = memoryview(line)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
        finally:
            os.close(fd)


def repair_tail(path: str | Path) -> bool:
    """Cut a trailing partial line (left by a crash mid-write); True if one was cut."""
    path = Path(path)
    if not path.exists():
        return False
    with open(path, "rb+") as fh:
        data = fh.read()
        if not data or data.endswith(b"\n"):
            return False
        fh.truncate(data.rfind(b"\n") + 1)
        return True


def done_keys(path: str | Path) -> set[tuple[str, str, int]]:
    """``(task_id, arm, attempt)`` of every result already in the run file."""
    path = Path(path)
    if not path.exists():
        return set()
    keys: set[tuple[str, str, int]] = set()
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                doc = json.loads(line)
                keys.add((str(doc["task"]["id"]), str(doc["arm"]), int(doc.get("attempt", 0))))
            except (ValueError, KeyError, TypeError):
                raise InputError(path, f"line {number}", "not a judgekit result line") from None
    return keys
