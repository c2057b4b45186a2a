"""File helpers: atomic writes (a reader never sees a half-written file, a crash never loses
the old one) and JSON-lines parsing with errors that name the line."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temp file in the same directory and a rename.

    The file gets the mode a plain ``open(path, "w")`` would give it (0666 less the umask).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def append_line(path: str | Path, line: str) -> None:
    """Append one line with a single ``write`` on an ``O_APPEND`` descriptor, then fsync."""
    data = (line.rstrip("\n") + "\n").encode("utf-8")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def json_lines(text: str, where: str | Path) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` for each non-blank line of JSON-lines ``text``.

    A malformed line raises :class:`~judgekit.errors.InputError` naming ``where`` and the line.
    """
    from judgekit.errors import InputError

    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(where, f"line {number}", f"malformed JSON: {exc.msg}") from None
