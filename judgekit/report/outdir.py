"""Replace an output directory's set of files so that a kill at any instant loses nothing.

A directory written by judgekit holds the files of one evaluation (:data:`OUTPUT_FILES`) and
perhaps files of the user's, which judgekit never moves, renames or deletes. A new set is
written into a staging directory that carries a marker (``.judgekit-staging``: the writer's
pid, a random token, the time), then put in place in one of two ways:

- **swapped**: the staging directory (a hidden sibling, ``.NAME.judgekit-PID-TOKEN``) takes
  ``DIR``'s place in one rename or one atomic exchange, so ``DIR`` holds the whole old set
  or the whole new set at every instant; the old set is then removed. The user's files in
  ``DIR`` are first given a second link in the staging directory, so they are in ``DIR``,
  the very same files, before and after the exchange (the second link, and only one that
  still names the same file as ``DIR``'s, is removed with the old set).
- **in place**: when ``DIR`` holds a folder of the user's (folders cannot be linked), is a
  mount point, holds the working directory, or the system cannot exchange two directories
  or link files, a commit record (the files to move in, and the old set's other files with
  their identities) is first put into ``DIR`` as ``DIR/.judgekit-incomplete``, in one
  rename; then each file moves in with one atomic rename, the old set's other files are
  removed, and the record is removed last. ``DIR`` then holds a mix of two sets only while
  that record is there: a reader that finds it knows the set is not whole. A process
  killed after the record was put in place leaves a write that the next judgekit process
  to open ``DIR`` (a write, ``judgekit report``) finishes before anything else; killed
  before it, ``DIR`` is as it was. The staging directory is then a sibling of ``DIR`` or,
  for a mount point or a parent that cannot be written, ``DIR/.judgekit-PID-TOKEN``.

  Why not whole at every instant here: each rename or exchange changes at most two names
  of a directory, and a set is five files or more, so files in ``DIR`` change one by one
  unless ``DIR`` itself is replaced; replacing it keeps the user's entries in place only
  when the new directory holds them too, and a folder has one parent (no second link),
  so moving the user's folder across would leave it out of ``DIR`` for an instant.

One process writes a directory at a time: a lock (``.NAME.judgekit-lock`` beside ``DIR``,
``flock``) is held for the whole write, and a second writer is refused in one line. Staging
directories are cleaned only under that lock (so their writer is gone), only when their
name is judgekit's, and only of the files judgekit names (and of second links to files
``DIR`` still holds); one that still holds anything else is left where it is.

Example:
    >>> import tempfile, pathlib
    >>> from judgekit.outputs import REPORT_MD, SUMMARY_FILE
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "out"
    >>> replace_dir(out, lambda d: (d / SUMMARY_FILE).write_text("{}"))
    >>> sorted(p.name for p in out.iterdir())
    ['summary.json']
    >>> replace_dir(out, lambda d: (d / REPORT_MD).write_text("#"))
    >>> sorted(p.name for p in out.iterdir())
    ['report.md']
    >>> import shutil; shutil.rmtree(out.parent)
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import json
import os
import re
import secrets
import stat
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from judgekit.errors import InputError
from judgekit.outputs import (
    CALIBRATION_FILE,
    REPORT_HTML,
    REPORT_MD,
    RESULTS_FILE,
    RUNS_FILE,
    SUMMARY_FILE,
)
from judgekit.pairwise.kind import PAIRWISE
from judgekit.step_registry import record_files

#: Files an evaluation's output directory may hold; a new set replaces all of them.
OUTPUT_FILES: tuple[str, ...] = (SUMMARY_FILE, RESULTS_FILE, RUNS_FILE, *record_files(),
                                 REPORT_MD, REPORT_HTML, CALIBRATION_FILE)

#: the verdicts a judged output keeps (what re-judging adds judges to).
RECORDS = str(PAIRWISE.records_file)

MARKER = ".judgekit-staging"
"""The file that makes a staging directory judgekit's: JSON with pid, token and time."""
COMMIT = ".judgekit-commit"
"""The commit record an earlier judgekit kept in the staging directory (still finished)."""
INCOMPLETE = ".judgekit-incomplete"
"""The commit record of an in-place write, in ``DIR`` from before its first file moves in
until after its last change: while it exists, ``DIR``'s set may be a mix of two; once it
exists, the write is finished, not undone."""
_COMMIT_TMP = COMMIT + ".tmp"
_LOCK = "judgekit-lock"
#: every name judgekit removes from a staging directory; nothing else is ever removed.
_OWN = frozenset(OUTPUT_FILES) | {MARKER, COMMIT, _COMMIT_TMP, INCOMPLETE}
_STAGING = re.compile(r"\.judgekit-(\d+)-([0-9a-f]+)(-old)?")
_NOT_PERMITTED = {errno.EACCES, errno.EPERM, errno.EROFS}


def is_judged_output(path: str | Path) -> bool:
    """True when ``path`` is an output directory of judgekit with pairwise verdicts (its
    ``summary.json`` and ``pairwise.jsonl``)."""
    p = Path(path)
    return p.is_dir() and (p / SUMMARY_FILE).is_file() and (p / RECORDS).is_file()


def _target(out: str | Path) -> Path:
    """``out`` made absolute, a link to a directory followed; anything else refused."""
    path = Path(out)
    if path.is_symlink():
        try:
            resolved = path.resolve()
        except (OSError, RuntimeError):  # a loop of links
            raise InputError(path, None, "a symbolic link that leads nowhere (a loop): "
                                         "refused; give a directory") from None
        if not resolved.exists():
            raise InputError(path, None, f"a symbolic link to {resolved}, which does not "
                                         "exist: refused; give a directory")
        path = resolved
    if path.exists() and not path.is_dir():
        raise InputError(path, None, "is a file; output goes into a directory")
    return path.absolute()


def _cannot_write(out: Path, exc: OSError) -> InputError:
    return InputError(out, None, f"cannot write: {exc.strerror or exc}")


# -- the lock ---------------------------------------------------------------------------------

class OutputBusy(InputError):
    """Another process holds the write lock of an output directory."""


def _busy(out: Path, fd: int) -> OutputBusy:
    try:
        holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        holder = ""
    who = f" (pid {holder})" if holder.isdigit() else ""
    return OutputBusy(out, None, f"is being written by another judgekit process{who}: "
                                 "nothing written; try again when it is done")


def _take(path: Path, out: Path) -> int:
    """A descriptor of ``path`` holding its exclusive lock; the file is this process's."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            err = _busy(out, fd)
            os.close(fd)
            raise err from None
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(path, follow_symlinks=False))
        except FileNotFoundError:
            same = False  # its last holder removed it after this process opened it
        if same:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
            return fd
        os.close(fd)


@contextmanager
def _locked(out: Path) -> Iterator[None]:
    """Hold ``out``'s write lock: beside it, or inside it when its parent cannot be written."""
    path = out.parent / f".{out.name}.{_LOCK}"
    try:
        fd = _take(path, out)
    except OSError as exc:
        if exc.errno not in _NOT_PERMITTED or not out.is_dir():
            raise _cannot_write(out, exc) from None
        path = out / f".{_LOCK}"
        try:
            fd = _take(path, out)
        except OSError as exc2:
            raise _cannot_write(out, exc2) from None
    try:
        yield
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass
        os.close(fd)


# -- staging directories ------------------------------------------------------------------------

def _staging_dirs(out: Path) -> list[Path]:
    """Staging directories of ``out``'s writes: hidden siblings and hidden entries inside."""
    found: list[Path] = []
    for where, prefix in ((out.parent, f".{out.name}"), (out, "")):
        try:
            entries = list(os.scandir(where))
        except OSError:
            continue
        for entry in entries:
            rest = entry.name[len(prefix):] if entry.name.startswith(prefix) else None
            if rest is not None and _STAGING.fullmatch(rest) \
                    and entry.is_dir(follow_symlinks=False):
                found.append(Path(entry.path))
    return found


def _marked(staging: Path) -> bool:
    """Whether ``staging`` carries judgekit's marker, with the token of its name."""
    match = _STAGING.search(staging.name)
    try:
        mark = json.loads((staging / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(mark, dict) and match is not None and mark.get("token") == match.group(2)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samestat(os.lstat(a), os.lstat(b))
    except OSError:
        return False


def _discard(staging: Path, out: Path) -> None:
    """Remove judgekit's files from ``staging`` (data first, the marker last), and the links
    it holds to the user's files that ``out`` links too (the files stay, by ``out``'s
    links), then the directory if that emptied it; anything else is left where it is."""
    try:
        names = [e.name for e in os.scandir(staging)]
    except OSError:
        return
    order = sorted((n for n in names if n in _OWN or _same_file(staging / n, out / n)),
                   key=lambda n: (n in _OWN, n == MARKER, n == COMMIT))
    for name in order:
        try:
            os.unlink(staging / name)
        except FileNotFoundError:
            pass
        except OSError:
            return  # not a file, or not this process's to remove: it stays
    try:
        os.rmdir(staging)
    except OSError:
        pass  # something that is not judgekit's is in it: it stays


def _read_commit(staging: Path, name: str = COMMIT) -> dict[str, object] | None:
    try:
        record = json.loads((staging / name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def _finish(staging: Path, out: Path, record: dict[str, object]) -> None:
    """Carry out a committed in-place write (again, if it was cut short), then discard
    ``staging``. Each step can be repeated: a file already moved is not there to move, and a
    file is removed only while it is the very file the record names."""
    for name in record.get("write", []):  # type: ignore[attr-defined]
        if name in OUTPUT_FILES and os.path.lexists(staging / name):
            os.replace(staging / name, out / name)
    _remove_old(out, record)
    if record.get("staging") == staging.name:  # the record in ``out`` goes last
        try:
            os.unlink(out / INCOMPLETE)
        except FileNotFoundError:
            pass
    _discard(staging, out)


def _remove_old(out: Path, record: dict[str, object]) -> None:
    """Remove the old set's files the record names, each only while it is that very file."""
    for name, ident in dict(record.get("remove", {})).items():  # type: ignore[call-overload]
        if name not in OUTPUT_FILES:
            continue
        try:
            st = os.lstat(out / name)
        except FileNotFoundError:
            continue
        if [st.st_dev, st.st_ino] == list(ident):
            os.unlink(out / name)


def _settle(out: Path) -> None:
    """Finish the committed write a killed process left, and discard what else it left.
    Called with ``out``'s lock held, so no writer of ``out`` is alive."""
    stale = _staging_dirs(out)
    current = _read_commit(out, INCOMPLETE)
    for staging in stale:
        record = _read_commit(staging) if _marked(staging) else None
        if current is not None and current.get("staging") == staging.name:
            record = current
        if record is not None:
            try:
                _finish(staging, out, record)
            except OSError:
                if out.is_dir():  # a committed write must not outlive this lock unfinished
                    raise
                _discard(staging, out)  # its directory is gone: nothing to finish
    for staging in stale:
        if staging.exists():
            _discard(staging, out)
    if os.path.lexists(out / INCOMPLETE):  # its staging directory is gone: all moved in
        if current is not None:
            _remove_old(out, current)
        os.unlink(out / INCOMPLETE)


@contextmanager
def writing(out: str | Path) -> Iterator[None]:
    """Hold ``out``'s write lock, after finishing or removing what a killed writer of ``out``
    left (a committed write is finished, anything else of judgekit's removed): no other
    judgekit process writes ``out`` meanwhile.

    Raises :class:`OutputBusy` when another process is writing ``out``. Where the lock cannot
    be taken for want of permission, nothing is held: a write that follows meets the same
    refusal.
    """
    try:
        target = _target(out)
    except InputError:
        target = None
    lock = _locked(target) if target is not None and target.parent.is_dir() else None
    try:
        if lock is not None:
            lock.__enter__()
    except OutputBusy:
        raise
    except InputError:
        lock = None
    try:
        if lock is not None and target is not None:
            try:
                _settle(target)
            except OSError:
                pass
        yield
    finally:
        if lock is not None:
            lock.__exit__(None, None, None)


def remove_stale(out: str | Path) -> None:
    """Finish or remove what a killed writer of ``out`` left behind (:func:`writing`).

    Raises :class:`OutputBusy` when another process is writing ``out``.
    """
    with writing(out):
        pass


# -- putting a set in place ---------------------------------------------------------------------

def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (Linux ``renameat2``); ``False`` when not available."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    return bool(renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b),
                          rename_exchange) == 0)


def _holds_cwd(out: Path) -> bool:
    try:
        cwd = Path.cwd().resolve()
    except OSError:
        return False
    target = out.resolve()
    return cwd == target or target in cwd.parents


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _new_staging(out: Path) -> Path:
    """A new, marked staging directory: beside ``out``, or inside it where ``out`` is a mount
    point or its parent cannot be written."""
    token = secrets.token_hex(6)
    name = f".judgekit-{os.getpid()}-{token}"
    inside = out.is_dir() and (os.path.ismount(out)
                               or os.stat(out).st_dev != os.stat(out.parent).st_dev)
    staging = out / name if inside else out.parent / f".{out.name}{name}"
    try:
        staging.mkdir()
    except OSError as exc:
        if inside or exc.errno not in _NOT_PERMITTED or not out.is_dir():
            raise
        staging = out / name
        staging.mkdir()
    os.chmod(staging, 0o777 & ~_umask())
    _mark(staging)
    return staging


def _mark(staging: Path) -> None:
    """Write ``staging``'s marker: this process's pid, the token of its name, the time."""
    match = _STAGING.search(staging.name)
    token = match.group(2) if match else ""
    (staging / MARKER).write_text(json.dumps({"pid": os.getpid(), "token": token,
                                              "created": time.time()}), encoding="utf-8")


def _link_others(staging: Path, out: Path) -> list[str] | None:
    """Give ``staging`` a second link to each of the user's entries of ``out``, so that the
    user's files stay where they are when ``staging`` takes ``out``'s place; ``None`` (and
    no links) when one cannot be linked (a directory, a file system without links)."""
    linked: list[str] = []
    for entry in os.scandir(out):
        if entry.name in OUTPUT_FILES:
            if entry.is_file(follow_symlinks=False):
                continue
            break  # a directory under judgekit's name: written in place, where it is refused
        if entry.is_dir(follow_symlinks=False) or entry.name in _OWN:
            break
        try:
            os.link(entry.path, staging / entry.name, follow_symlinks=False)
        except OSError:
            break
        linked.append(entry.name)
    else:
        return linked
    _drop_links(staging, out, linked)
    return None


def _drop_links(staging: Path, out: Path, names: list[str]) -> None:
    for name in names:
        if _same_file(staging / name, out / name):
            os.unlink(staging / name)


def _keep_owner(staging: Path, out: Path) -> None:
    st = os.stat(out)
    os.chmod(staging, stat.S_IMODE(st.st_mode))
    if os.geteuid() == 0 and (st.st_uid, st.st_gid) != (0, 0):
        try:
            os.chown(staging, st.st_uid, st.st_gid)
        except OSError:
            pass


def _swap(staging: Path, out: Path) -> bool:
    """Put ``staging`` in ``out``'s place in one step; ``False`` when that cannot be done
    (the caller writes in place)."""
    if staging.parent != out.parent or _holds_cwd(out):
        return False
    if not os.path.lexists(out):
        os.unlink(staging / MARKER)
        try:
            os.rename(staging, out)
            return True
        except OSError as exc:  # made meanwhile by a process that is not judgekit
            if exc.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                raise
        _mark(staging)
        return False
    linked = _link_others(staging, out)
    if linked is None:
        return False
    _keep_owner(staging, out)
    os.unlink(staging / MARKER)
    if not _exchange(staging, out):
        _mark(staging)
        _drop_links(staging, out, linked)
        return False
    # ``staging`` holds the old set now, and second links to the user's files
    made_meanwhile = [e.name for e in os.scandir(staging)
                      if e.name not in OUTPUT_FILES and e.name not in linked]
    if made_meanwhile and _exchange(staging, out):  # put the user's new entry back at once
        _mark(staging)
        _drop_links(staging, out, linked)
        return False
    _discard(staging, out)
    return True


def _commit(staging: Path, out: Path) -> dict[str, object]:
    """Write the commit record of an in-place write of ``staging``'s set into ``out``."""
    new = sorted(e.name for e in os.scandir(staging) if e.name != MARKER)
    for name in new:
        if name not in OUTPUT_FILES:
            raise ValueError(f"{name} is not an output file of judgekit")
        if os.path.isdir(out / name) and not os.path.islink(out / name):
            raise InputError(out / name, None, "is a directory where judgekit writes a file: "
                                               "nothing written")
    remove: dict[str, list[int]] = {}
    for name in OUTPUT_FILES:
        if name not in new:
            try:
                st = os.lstat(out / name)
            except FileNotFoundError:
                continue
            if stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode):
                remove[name] = [st.st_dev, st.st_ino]
    # summary.json moves last: a reader that does not finish writes sees it change last
    write = sorted(new, key=lambda n: n == SUMMARY_FILE)
    record: dict[str, object] = {"write": write, "remove": remove, "staging": staging.name}
    (staging / _COMMIT_TMP).write_text(json.dumps(record), encoding="utf-8")
    os.replace(staging / _COMMIT_TMP, out / INCOMPLETE)
    return record


def replace_dir(out: str | Path, fill: Callable[[Path], object]) -> None:
    """Make judgekit's files in ``out`` exactly what ``fill(staging_dir)`` writes (names of
    :data:`OUTPUT_FILES`); every other entry of ``out`` is left as it is.

    Raises :class:`~judgekit.errors.InputError` when ``out`` is a link to nothing or a file,
    when another process is writing it, or when the system refuses the write.
    """
    target = _target(out)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _cannot_write(target, exc) from None
    with _locked(target):
        try:
            _settle(target)
            staging = _new_staging(target)
        except OSError as exc:
            raise _cannot_write(target, exc) from None
        record: dict[str, object] | None = None
        try:
            fill(staging)
            if not _swap(staging, target):
                record = _commit(staging, target)
                _finish(staging, target, record)
        except BaseException as exc:
            if record is not None:  # committed: finish it now, else the next process will
                try:
                    _finish(staging, target, record)
                except OSError:
                    pass
            elif os.path.lexists(staging):
                _discard(staging, target)
            if isinstance(exc, OSError):
                raise _cannot_write(target, exc) from None
            raise
