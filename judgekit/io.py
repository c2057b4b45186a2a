"""File helpers: atomic writes (a reader never sees a half-written file, a crash never loses
the old one), and reading the files a user gives (JSON, JSON lines, CSV, text) with errors
that name the file and the line: one :class:`~judgekit.errors.InputError` each, whatever
the bytes (too deep, not UTF-8, cut short, a CSV field over the limit). A leading byte order
mark, as spreadsheets and some editors write, is skipped; a gzip CSV is read decompressed.
"""

from __future__ import annotations

import csv
import os
import stat
import tempfile
import zlib
from collections.abc import Iterator
from io import StringIO
from pathlib import Path
from typing import IO, Any

from judgekit.errors import InputError
from judgekit.jsonread import loads

MAX_FILE_BYTES = 512 * 1024 * 1024
"""Largest JSON document judgekit reads whole (JSON-lines files are read a line at a time,
and judgekit run documents a result at a time)."""

_BOM = b"\xef\xbb\xbf"
"""The byte order mark some editors and spreadsheets write first in a UTF-8 file."""


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

    A malformed line (or one nested too deep, ...) raises :class:`InputError` naming
    ``where`` and the line (:func:`judgekit.jsonread.loads`).
    """
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        yield number, loads(line, where, f"line {number}: ")


def cannot_read(path: str | Path, exc: OSError) -> Exception:
    """The InputError for a file the system refused to read."""
    return InputError(path, None, f"cannot read: {exc.__class__.__name__}: "
                                  f"{exc.strerror or exc}")


def open_regular(path: str | Path) -> IO[bytes]:
    """Open a regular file for reading in binary mode; anything else is refused unopened.

    ``stat`` decides before anything is opened; the file is then opened non-blocking (a FIFO
    swapped in after the check cannot hang the caller) and checked again on the descriptor.
    """
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


def read_regular(path: str | Path, limit: int | None = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes (``None``: any size); an
    InputError otherwise."""
    with open_regular(path) as fh:
        if limit is None:
            try:
                return fh.read()
            except OSError as exc:
                raise cannot_read(path, exc) from None
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


def read_text(path: str | Path, limit: int | None = MAX_FILE_BYTES) -> str:
    """The text of a regular UTF-8 file of at most ``limit`` bytes (a leading byte order
    mark skipped); an :class:`InputError` otherwise."""
    return _decode(read_regular(path, limit), path)


def _decode(data: bytes, path: str | Path) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(path, None, f"not valid UTF-8 (byte {exc.start}): {exc.reason}"
                         ) from None


#: the first two bytes of a gzip file.
GZIP_MAGIC = b"\x1f\x8b"


def read_unzipped(path: str | Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file, decompressed when it is gzip (its first two bytes say
    so, whatever its name: ``labels.csv.gz``), at most ``limit`` bytes either way; an
    :class:`InputError` for a gzip file cut short or damaged."""
    data = read_regular(path, limit)
    if not data.startswith(GZIP_MAGIC):
        return data
    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = inflate.decompress(data, limit + 1)
    except zlib.error as exc:
        raise InputError(path, None, f"a gzip file that cannot be decompressed ({exc})"
                         ) from None
    if len(out) > limit:
        raise InputError(path, None, f"decompresses to over the limit of {limit} bytes: "
                                     "refused")
    if not inflate.eof:
        raise InputError(path, None, "a gzip file cut short")
    return out


def read_json(path: str | Path, limit: int | None = MAX_FILE_BYTES) -> Any:
    """The value of a JSON file (:func:`judgekit.jsonread.loads`: strict, depth-guarded);
    an :class:`InputError` names the file and what is wrong."""
    return loads(read_regular(path, limit), path)


def read_json_lines(path: str | Path) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` of each non-blank line of a JSON-lines file of any size,
    read a line at a time; a line that is not UTF-8, not JSON or nested too deep is an
    :class:`InputError` naming the line."""
    with open_regular(path) as fh:
        for number, raw in enumerate(fh, 1):
            if number == 1 and raw.startswith(_BOM):
                raw = raw[len(_BOM):]
            if raw.strip():
                yield number, loads(raw, path, f"line {number}: ")


def read_csv(path: str | Path, limit: int = MAX_FILE_BYTES
             ) -> tuple[list[str], list[tuple[int, dict[str, Any]]]]:
    """The header of a CSV file (each name stripped) and its rows, each with the line it
    starts on; a field over :func:`csv.field_size_limit` or any other fault the CSV reader
    finds is an :class:`InputError` naming the line. A gzip file is read decompressed."""
    reader = csv.DictReader(StringIO(_decode(read_unzipped(path, limit), path), newline=""))
    rows: list[tuple[int, dict[str, Any]]] = []
    start = 1
    try:
        header = [name.strip() for name in reader.fieldnames or []]
        reader.fieldnames = header
        start = reader.line_num + 1
        for row in reader:
            rows.append((start, row))
            start = reader.line_num + 1
    except csv.Error as exc:
        limit_text = f"field larger than field limit ({csv.field_size_limit()})"
        reason = (f"a field is longer than {csv.field_size_limit()} characters: refused"
                  if str(exc) == limit_text else f"not valid CSV ({exc})")
        raise InputError(path, f"line {start}", reason) from None
    return header, rows
