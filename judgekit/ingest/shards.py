"""Shards of a JSON-lines file: byte ranges that start and end at line starts.

A large ``.jsonl`` file is cut into ranges of about ``target`` bytes, each ending just after a
newline, so that worker processes can read their own range and no line is split. Each range
is read in one go and handed out a line at a time, with the line's number within the range
(1 for its first line) and its byte offset in the file: together with the line counts of the
ranges before it, that gives the line's number in the file.

Example:
    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("wb", suffix=".jsonl", delete=False) as fh:
    ...     _ = fh.write(b"{}\\n{}\\n{}\\n")
    >>> plan(fh.name, target=2)
    [(0, 3), (3, 6), (6, 9)]
    >>> [(n, raw) for n, _, raw in lines_of(fh.name, 3, 9)]
    [(1, b'{}\\n'), (2, b'{}\\n')]
    >>> os.unlink(fh.name)
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from judgekit.io import cannot_read, open_regular

_WINDOW = 1 << 20


def _next_line_start(fh: IO[bytes], pos: int, size: int, limit: int) -> int | None:
    """The first line start after ``pos`` (the byte after the next newline), or ``None`` when
    no newline follows within ``limit`` bytes."""
    fh.seek(pos)
    scanned = 0
    while scanned <= limit:
        block = fh.read(_WINDOW)
        if not block:
            return None
        at = block.find(b"\n")
        if at >= 0:
            start = pos + scanned + at + 1
            return start if start < size else None
        scanned += len(block)
    return None


def plan(path: str | Path, *, target: int, limit: int = 64 * 1024 * 1024
         ) -> list[tuple[int, int]]:
    """``(start, end)`` byte ranges covering the file, each of about ``target`` bytes and cut
    just after a newline. A line longer than ``limit`` is not searched past: the range that
    holds it runs on to the end of the file."""
    with open_regular(path) as fh:
        size = os.fstat(fh.fileno()).st_size
        cuts = [0]
        pos = target
        while pos < size:
            start = _next_line_start(fh, pos, size, limit)
            if start is None:
                break
            cuts.append(start)
            pos = start + target
    cuts.append(size)
    return [(a, b) for a, b in zip(cuts, cuts[1:]) if b > a]


def lines_of(path: str | Path, start: int, end: int, limit: int = 64 * 1024 * 1024
             ) -> Iterator[tuple[int, int, bytes]]:
    """``(number within the range, offset in the file, bytes with the newline)`` of each line
    of the range ``[start, end)``, blank lines included.

    A range of up to ``2 * limit`` bytes is read in one go; a longer one (it holds a line
    longer than ``limit``) a line at a time, a line longer than ``limit`` handed out as its
    first ``limit + 1`` bytes (the caller reads such a line again from its offset, in
    blocks).
    """
    if end - start > 2 * limit:
        yield from _lines_one_by_one(path, start, end, limit)
        return
    with open_regular(path) as fh:
        fh.seek(start)
        try:
            data = fh.read(end - start)
        except OSError as exc:
            raise cannot_read(path, exc) from None
    pos, number, n = 0, 0, len(data)
    while pos < n:
        nl = data.find(b"\n", pos)
        stop = n if nl < 0 else nl + 1
        number += 1
        yield number, start + pos, data[pos:stop]
        pos = stop


def _lines_one_by_one(path: str | Path, start: int, end: int, limit: int
                      ) -> Iterator[tuple[int, int, bytes]]:
    with open_regular(path) as fh:
        fh.seek(start)
        pos, number = start, 0
        while pos < end:
            raw = fh.readline(limit + 1)
            if not raw:
                return
            number += 1
            yield number, pos, raw
            length = len(raw)
            while len(raw) > limit and not raw.endswith(b"\n"):  # the rest of a long line
                raw = fh.readline(limit + 1)
                length += len(raw)
            pos += length


def read_line(path: str | Path, offset: int, limit: int) -> bytes:
    """The line that starts at ``offset``, newline included, at most ``limit + 1`` bytes."""
    with open_regular(path) as fh:
        fh.seek(offset)
        return fh.readline(limit + 1)
