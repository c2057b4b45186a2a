"""Replace an output directory as a set: write beside it, then swap it in by renaming.

A directory written by judgekit always holds the files of one evaluation. The new set is
written into a hidden sibling (``.NAME.judgekit-PID-RANDOM``); entries that are not judgekit
output files are moved over, so they survive; the sibling then takes the directory's place
(one atomic exchange where the system offers it, else two renames) and the old set is
removed. A failure or an interrupt removes the sibling and leaves the directory as it was;
siblings left by a killed process are removed by the next write. When ``DIR`` is (or holds)
the working directory, the files are moved in one by one instead, so that no shell is left
in a removed directory.

Example:
    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "out"
    >>> replace_dir(out, lambda d: (d / "summary.json").write_text("{}"))
    >>> sorted(p.name for p in out.iterdir())
    ['summary.json']
    >>> replace_dir(out, lambda d: (d / "report.md").write_text("#"))
    >>> sorted(p.name for p in out.iterdir())
    ['report.md']
    >>> import shutil; shutil.rmtree(out.parent)
"""

from __future__ import annotations

import ctypes
import os
import secrets
import shutil
from collections.abc import Callable
from pathlib import Path

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

_MARK = ".judgekit-"
#: the verdicts a judged output keeps (what re-judging adds judges to).
RECORDS = str(PAIRWISE.records_file)


def is_judged_output(path: str | Path) -> bool:
    """True when ``path`` is an output directory of judgekit with pairwise verdicts (its
    ``summary.json`` and ``pairwise.jsonl``)."""
    p = Path(path)
    return p.is_dir() and (p / SUMMARY_FILE).is_file() and (p / RECORDS).is_file()


def _staging_prefix(out: Path) -> str:
    return f".{out.name}{_MARK}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale(out: Path) -> None:
    """Remove siblings of ``out`` that a killed judgekit process left behind."""
    prefix = _staging_prefix(out)
    try:
        entries = list(out.parent.iterdir())
    except OSError:
        return
    for entry in entries:
        if not entry.name.startswith(prefix):
            continue
        pid_text = entry.name[len(prefix):].split("-", 1)[0]
        if pid_text.isdigit() and not _alive(int(pid_text)):
            shutil.rmtree(entry, ignore_errors=True)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (Linux ``renameat2``); ``False`` when not available."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    return bool(renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b),
                          rename_exchange) == 0)


def _swap(new: Path, out: Path) -> None:
    """Put ``new`` in ``out``'s place; afterwards ``new`` names the old contents."""
    if _exchange(new, out):
        return
    old = new.with_name(new.name + "-old")
    os.rename(out, old)
    try:
        os.rename(new, out)
    except BaseException:
        os.rename(old, out)
        raise
    os.rename(old, new)


def _holds_cwd(out: Path) -> bool:
    try:
        cwd = Path.cwd().resolve()
    except OSError:
        return False
    target = out.resolve()
    return cwd == target or target in cwd.parents


def _replace_files(staging: Path, out: Path) -> None:
    """Move the new set into ``out`` file by file and remove output files it lacks."""
    for name in OUTPUT_FILES:
        if (staging / name).exists():
            os.replace(staging / name, out / name)
        else:
            (out / name).unlink(missing_ok=True)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def replace_dir(out: str | Path, fill: Callable[[Path], object]) -> None:
    """Make ``out`` hold exactly what ``fill(staging_dir)`` writes, plus any entries of the
    old ``out`` that are not judgekit output files."""
    out = Path(out)
    if out.is_symlink():
        out = out.resolve()
    out = out.absolute()
    out.parent.mkdir(parents=True, exist_ok=True)
    remove_stale(out)
    staging = out.parent / f"{_staging_prefix(out)}{os.getpid()}-{secrets.token_hex(4)}"
    staging.mkdir()
    try:
        os.chmod(staging, 0o777 & ~_umask())
        fill(staging)
        if not out.exists():
            os.rename(staging, out)
            return
        if _holds_cwd(out):  # swapping it would leave the shell in a deleted directory
            _replace_files(staging, out)
            return
        kept = [entry.name for entry in out.iterdir()
                if entry.name not in OUTPUT_FILES and not (staging / entry.name).exists()]
        try:
            for name in kept:
                os.rename(out / name, staging / name)
            _swap(staging, out)
        except BaseException:
            for name in kept:  # the user's own files go back where they were
                if (staging / name).exists() and not (out / name).exists():
                    os.rename(staging / name, out / name)
            raise
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
