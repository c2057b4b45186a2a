"""File helpers: atomic writes (a reader never sees a half-written file, a crash never loses
the old one) and JSON-lines parsing with errors that name the line."""

from __future__ import annotations

import json
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

MAX_FILE_BYTES = 512 * 1024 * 1024
"""Largest JSON document judgekit reads whole (JSON-lines files are read a line at a time,
and judgekit run documents a result at a time)."""


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


def cannot_read(path: str | Path, exc: OSError) -> Exception:
    """The InputError for a file the system refused to read."""
    from judgekit.errors import InputError

    return InputError(path, None, f"cannot read: {exc.__class__.__name__}: "
                                  f"{exc.strerror or exc}")


def open_regular(path: str | Path) -> IO[bytes]:
    """Open a regular file for reading in binary mode; anything else is refused unopened.

    ``stat`` decides before anything is opened; the file is then opened non-blocking (a FIFO
    swapped in after the check cannot hang the caller) and checked again on the descriptor.
    """
    from judgekit.errors import InputError

    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise InputError(path, None, "not a regular file (FIFO, device, socket or "
                                         "directory): refused")
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise cannot_read(path, exc) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise InputError(path, None, "not a regular file: refused")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str | Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; an InputError otherwise."""
    from judgekit.errors import InputError

    with open_regular(path) as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > limit:
            raise InputError(path, None, f"file is {size} bytes, over the limit of {limit}: "
                                         "refused")
        try:
            data = fh.read(limit + 1)
        except OSError as exc:
            raise cannot_read(path, exc) from None
    if len(data) > limit:
        raise InputError(path, None, f"file grew over the limit of {limit} bytes: refused")
    return data
