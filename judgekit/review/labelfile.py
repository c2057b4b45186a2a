"""The label files on disk: read and appended without following links, each label a whole
line or nothing.

``OUT/labels`` must be a directory of its own (not a link) and each label file a regular
file (not a link, FIFO or device): anything else is refused with one line naming it, before
anything is read, created or written. Nothing here ever removes a line:

* :func:`append_line` writes one label line under an exclusive lock of the file (``flock``:
  every writer, in this process or another, takes it), the whole line or nothing. A write
  cut short (a full disk, a file size limit) is continued until the line is whole; when it
  cannot be, the file is cut back to the size it had before this write (nobody else wrote
  in between: the lock) and :class:`LabelWriteError` says why. The line is synced before
  the function returns. A last line without its newline (left by a crash during a write,
  never confirmed) is ended with a newline first, so the new line is whole and the earlier
  fragment stays a line of its own.
* :func:`read_label_lines` keeps every line that is a JSON object and reports the others
  (a fragment left by a crash, a line mangled by hand) by line number, without changing the
  file. A fragment glued before a whole label (as earlier versions could leave it) gives
  that label back.

Example:
    >>> import tempfile
    >>> out = Path(tempfile.mkdtemp())
    >>> append_line(out, "x.jsonl", b'{"a": 1}\\n')
    >>> got = read_label_lines(out, "x.jsonl")
    >>> got.rows, got.bad
    ([(1, {'a': 1})], [])
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from judgekit.errors import InputError, JudgekitError
from judgekit.io import MAX_FILE_BYTES
from judgekit.jsonread import loads
from judgekit.outputs import LABELS_DIR

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
#: how many places a malformed line is searched for a whole label glued after a fragment
_GLUE_TRIES = 8


class LabelWriteError(JudgekitError):
    """A label could not be written whole: nothing of it is in the file."""


@dataclass
class LabelLines:
    """The JSON objects of a label file with their line numbers, and the lines that are not
    whole labels (``bad``: line number and why), none of them removed from the file."""

    rows: list[tuple[int, dict[str, object]]] = field(default_factory=list)
    bad: list[tuple[int, str]] = field(default_factory=list)
    #: labels read back from after a fragment glued before them on the same line
    recovered: int = 0


def _refuse(path: Path, exc: OSError | None, what: str) -> InputError:
    if exc is not None and exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
        what = "a symbolic link or not a directory: refused (label files are kept only " \
               "in a directory of the output itself)"
    elif exc is not None:
        what = f"cannot open ({exc.strerror or exc})"
    return InputError(path, None, what)


@contextmanager
def labels_dir(out_dir: Path, *, create: bool) -> Iterator[int | None]:
    """A descriptor of ``out_dir/labels`` opened without following a link (``None`` when
    it does not exist and ``create`` is false); a link or anything but a directory is an
    InputError."""
    path = out_dir / LABELS_DIR
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        if not create:
            yield None
            return
        try:
            path.mkdir(mode=0o755)  # never follows a link: a dangling one is "exists"
            fd = os.open(path, flags)
        except OSError as exc:
            raise _refuse(path, exc if not isinstance(exc, FileExistsError) else
                          OSError(errno.ELOOP, "a link"), "") from None
    except OSError as exc:
        raise _refuse(path, exc, "") from None
    try:
        yield fd
    finally:
        os.close(fd)


def _open_file(dir_fd: int, name: str, path: Path, flags: int) -> int:
    """``name`` in ``dir_fd`` opened with ``flags``, never through a link, never blocking
    on a FIFO; anything but a regular file is an InputError."""
    try:
        fd = os.open(name, flags | os.O_NOFOLLOW | os.O_NONBLOCK | _CLOEXEC, 0o644,
                     dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK):
            raise InputError(path, None, "a symbolic link: refused (label files are "
                                         "read and written only as regular files)") from None
        if exc.errno == errno.ENXIO:
            raise InputError(path, None, "not a regular file (a FIFO): refused") from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InputError(path, None, "not a regular file (FIFO, device, socket or "
                                         "directory): refused")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_label_lines(out_dir: Path, name: str) -> LabelLines:
    """The lines of ``out_dir/labels/name`` (none when it does not exist); the file is
    never changed."""
    path = out_dir / LABELS_DIR / name
    with labels_dir(out_dir, create=False) as dfd:
        if dfd is None:
            return LabelLines()
        try:
            fd = _open_file(dfd, name, path, os.O_RDONLY)
        except FileNotFoundError:
            return LabelLines()
        except OSError as exc:
            raise InputError(path, None, f"cannot read ({exc.strerror or exc})") from None
    with os.fdopen(fd, "rb") as fh:
        data = fh.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise InputError(path, None, f"larger than {MAX_FILE_BYTES} bytes: refused")
    return parse_label_lines(path, data)


def parse_label_lines(path: Path, data: bytes) -> LabelLines:
    """Every line of ``data`` that is a JSON object; the others reported by number. A line
    that is JSON but not an object is an InputError (no crash leaves one)."""
    out = LabelLines()
    lines = data.split(b"\n")
    for n, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        last = n == len(lines)  # no newline after it: cut short, or written by hand
        try:
            obj = loads(raw, path, f"line {n}: ")
        except InputError as exc:
            glued = _glued(raw, path)
            if glued is not None:
                out.rows.append((n, glued))
                out.recovered += 1
                out.bad.append((n, "a fragment before a whole label (the label is kept)"))
            else:
                out.bad.append((n, ("cut short, no newline" if last else "not a whole label")
                                + f" ({exc.reason})"))
            continue
        if not isinstance(obj, dict):
            raise InputError(path, f"line {n}", "expected a JSON object")
        out.rows.append((n, obj))
    return out


def _glued(raw: bytes, path: Path) -> dict[str, object] | None:
    """A whole JSON object that ends ``raw`` after a fragment, if there is one."""
    start = 0
    for _ in range(_GLUE_TRIES):
        start = raw.find(b'{"', start + 1)
        if start < 0:
            return None
        try:
            obj = loads(raw[start:], path)
        except InputError:
            continue
        if isinstance(obj, dict):
            return obj
    return None


def append_line(out_dir: Path, name: str, line: bytes) -> None:
    """Append ``line`` (ending in a newline) to ``out_dir/labels/name`` whole and synced,
    or raise :class:`LabelWriteError` leaving the file as it was (an InputError when the
    file or its directory is a link or not a regular file)."""
    path = out_dir / LABELS_DIR / name
    with labels_dir(out_dir, create=True) as dfd:
        assert dfd is not None
        new = True
        try:
            fd = _open_file(dfd, name, path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_EXCL)
        except FileExistsError:
            new = False
            try:
                fd = _open_file(dfd, name, path, os.O_RDWR | os.O_APPEND)
            except OSError as exc:
                raise LabelWriteError(f"{path}: cannot open ({exc.strerror or exc}); "
                                      "the label was not stored") from None
        except OSError as exc:
            raise LabelWriteError(f"{path}: cannot create ({exc.strerror or exc}); "
                                  "the label was not stored") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            _write_whole(fd, path, line)
        finally:
            os.close(fd)  # the lock goes with it
        if new:
            os.fsync(dfd)


def _write_whole(fd: int, path: Path, line: bytes) -> None:
    """Write ``line`` at the end of ``fd`` (locked) and sync it; on any failure cut the file
    back to its size before and raise LabelWriteError."""
    size = os.fstat(fd).st_size
    if size and os.pread(fd, 1, size - 1) != b"\n":
        line = b"\n" + line  # a fragment left by a crash: it stays a line of its own
    done = 0
    try:
        while done < len(line):
            n = os.write(fd, line[done:])
            if n <= 0:
                raise OSError(errno.EIO, "nothing written")
            done += n
        os.fsync(fd)
    except OSError as exc:
        why = exc.strerror or str(exc)
        try:
            os.ftruncate(fd, size)
            os.fsync(fd)
        except OSError as undo:
            raise LabelWriteError(
                f"{path}: the label was not stored ({why}), and the part written could "
                f"not be removed ({undo.strerror or undo}): a line not whole is left at "
                "the end, reported and left out when the file is read") from None
        raise LabelWriteError(f"{path}: the label was not stored ({why}, after {done} of "
                              f"{len(line)} bytes; the file is as it was)") from None
