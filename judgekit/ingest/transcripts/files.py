"""Session files read safely: a regular file only, inside the directory it was found under,
and no more bytes than a cap.

A session file is named by data (a run's metadata) or found under a directory the user gave
(the transcripts directory given); either may be a link to a host file, a device such as
``/dev/zero`` (whose size ``stat`` gives as 0) or a FIFO that never ends. The file is
opened without blocking and without following a link (``O_NONBLOCK | O_NOFOLLOW``), checked
to be a regular file on the open descriptor (``fstat``), and read in blocks until the cap:
what is read is counted, not what ``stat`` says.

Example:
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "t.jsonl").write_text("{}")
    >>> bytes(read_capped(d / "t.jsonl", within=d, limit=10))
    b'{}'
    >>> read_capped(pathlib.Path("/dev/null"), limit=10)
    Traceback (most recent call last):
    ...
    judgekit.errors.InputError: /dev/null: not a regular file (a character device): not read
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from judgekit.errors import InputError
from judgekit.paths import contained

#: Bytes read at a time.
BLOCK = 1 << 20

_KINDS = ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"))


def _kind(mode: int) -> str:
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a file"


def read_capped(path: Path, *, within: Path | None = None, limit: int) -> bytearray:
    """The bytes of the regular file ``path``, at most ``limit``; :class:`InputError` (one
    line naming the file) when it is not a regular file, leads out of ``within`` (a link
    pointing out of the directory), cannot be read or holds more than ``limit`` bytes.

    Without ``within`` (a file the user named) a link is followed to its target, which
    must be a regular file too."""
    target = contained(within, path.absolute()) if within is not None else _resolved(path)
    if target is None:
        raise InputError(path, None, "leads out of the directory it was found under (a "
                                     "symbolic link pointing out): not read")
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(target, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError(path, None, "a symbolic link: not read") from None
        raise InputError(path, None, f"cannot read: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise InputError(path, None, f"not a regular file ({_kind(mode)}): not read")
        data = bytearray()
        while block := os.read(fd, BLOCK):
            data += block
            if len(data) > limit:
                raise InputError(path, None, f"a transcript of more than {limit} bytes, "
                                             "over the limit: not read")
        return data
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def _resolved(path: Path) -> Path | None:
    try:
        return path.resolve()
    except (OSError, RuntimeError, ValueError):
        return None


__all__ = ["BLOCK", "read_capped"]
