"""Transcripts matched to results by task id: directories the caller names, a SWE-bench submission's
``trajs/`` beside its predictions, and a mini-swe-agent batch (``preds.json`` beside
``<id>/<id>.traj.json``).

A file belongs to the task its name starts with (``<id>.traj``, ``<id>.traj.json``,
``<id>/<id>.traj.json``, ``<id>.jsonl``, ...), or to the task its content names (an
OpenHands ``output.jsonl`` names every instance). A result that has a session already keeps
it. What was matched, left unmatched or could not be read is counted in a
:class:`LinkReport`.

Example:
    >>> task_of_name("django__django-11099.traj")
    'django__django-11099'
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from judgekit.errors import InputError
from judgekit.paths import contained
from judgekit.ingest.models import RunResult
from judgekit.diffs import files_touched
from judgekit.ingest.transcripts.build import relative_patch_files
from judgekit.ingest.transcripts.model import Transcript
from judgekit.ingest.transcripts.registry import TranscriptFile, read_transcripts

_SUFFIXES = (".traj.json", ".traj", ".jsonl", ".json", ".md", ".txt", ".log")
_MAX_LISTED = 5
#: files looked at under one directory, at most (a directory of anything is not walked whole)
MAX_FILES = 100_000
UNREADABLE_KEY = "transcript_unreadable"
"""The key of a result's ``metadata`` saying why the transcript it names was not read."""


def task_of_name(name: str) -> str:
    """The task id a transcript file's name gives (its name without the known suffix)."""
    for suffix in _SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


@dataclass
class LinkReport:
    """What matching transcripts to results did."""

    files: int = 0
    matched: int = 0
    #: files whose name is no wanted task's (not read)
    ignored: list[str] = field(default_factory=list)
    unmatched_files: list[str] = field(default_factory=list)
    #: (file, why) for each file that could not be read
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    #: for each file read with lines that are not JSON: how many, said
    partial: list[str] = field(default_factory=list)
    #: files of no known format that name a result's task: kept as its raw transcript
    raw: list[str] = field(default_factory=list)

    def warnings(self) -> list[str]:
        out = []
        bad = [f"{path}: {why}" for path, why in self.unreadable]
        for items, what in ((bad, "transcript file(s) could not be read"),
                            (self.raw, "transcript file(s) of no known format kept as raw "
                                       "text"),
                            (self.partial, "transcript file(s) read in part"),
                            (self.unmatched_files, "transcript file(s) matched no result")):
            if items:
                more = f" and {len(items) - _MAX_LISTED} more" if len(items) > _MAX_LISTED \
                    else ""
                out.append(f"{len(items)} {what}: {'; '.join(items[:_MAX_LISTED])}{more}")
        if self.ignored:
            more = f" and {len(self.ignored) - _MAX_LISTED} more" \
                if len(self.ignored) > _MAX_LISTED else ""
            out.append(f"{len(self.ignored)} file(s) beside the transcripts name no result's "
                       f"task: not read: {'; '.join(self.ignored[:_MAX_LISTED])}{more}")
        return out


def _files(directory: Path) -> list[Path]:
    out: list[Path] = []
    for root, dirs, names in os.walk(directory):
        dirs.sort()
        for name in sorted(names):
            if not name.startswith("."):
                out.append(Path(root) / name)
            if len(out) >= MAX_FILES:
                return out
    return out


def index(directory: Path, report: LinkReport, wanted: set[str]
          ) -> dict[str, Transcript]:
    """Task id → transcript for the files under ``directory`` that name a wanted task."""
    found: dict[str, Transcript] = {}
    raw: dict[str, tuple[str, Transcript]] = {}
    for path in _files(directory):
        by_name = task_of_name(path.name)
        if by_name not in wanted and path.suffix != ".jsonl":
            report.ignored.append(str(path))
            continue
        report.files += 1
        try:
            read = read_transcripts(path, within=directory)
        except InputError as exc:
            report.unreadable.append((str(path), exc.reason))
            continue
        if read.unrecognised:
            if by_name in wanted:  # kept as raw text unless a session of the task is found
                raw.setdefault(by_name, (str(path), read.transcripts[0]))
            else:
                report.unreadable.append((str(path), "no known transcript format"))
            continue
        if (left_out := read.left_out()) is not None:
            report.partial.append(left_out)
        hit = False
        for t in read.transcripts:
            task = t.task_id or by_name
            if task in wanted and task not in found:
                found[task] = t
                hit = True
        if not hit:
            report.unmatched_files.append(str(path))
    for task, (name, transcript) in raw.items():
        if task not in found:
            found[task] = transcript
            report.raw.append(name)
        else:  # the task has a session from a file of a known format
            report.unreadable.append((name, "no known transcript format"))
    return found


def attach(results: Iterable[RunResult], directories: Sequence[Path | str]) -> LinkReport:
    """Give each result without a session the transcript of its task found under
    ``directories`` (the first directory that has one)."""
    report = LinkReport()
    todo = [r for r in results if r.session is None]
    wanted = {r.task_id for r in todo}
    found: dict[str, Transcript] = {}
    for directory in directories:
        path = Path(directory)
        if not path.is_dir():
            raise InputError(path, None, "not a directory of transcripts")
        for task, t in index(path, report, wanted - set(found)).items():
            found.setdefault(task, t)
    why = {task_of_name(Path(path).name): reason for path, reason in report.unreadable}
    for result in todo:
        session = found.get(result.task_id)
        if session is not None:
            result.session = session
            report.matched += session.format != "raw"
        elif result.task_id in why:
            result.metadata[UNREADABLE_KEY] = why[result.task_id]
    return report


def named_in_metadata(run_file: Path, results: Iterable[RunResult]) -> None:
    """:func:`link_named` for each of ``results``."""
    for result in results:
        link_named(run_file, result)


def link_named(run_file: Path, result: RunResult) -> RunResult:
    """Give ``result``, when it has no session, the transcript its
    ``metadata.transcript_file`` names (as ``judgekit run`` keeps them:
    ``NAME.transcripts/`` beside the run file), read only from under the run file's
    directory: a relative name is taken from there, an absolute one (a run file written by
    an older ``judgekit run`` names the file where it was written) where it still lies under
    that directory, else as ``NAME.transcripts/FILE`` beside the run file. One that cannot be
    found or read is named in the result's ``metadata.transcript_unreadable`` (loading counts
    it as a warning); ``result`` itself is returned."""
    named = result.metadata.get("transcript_file")
    if result.session is not None or not isinstance(named, str) or not named:
        return result
    root = run_file.parent
    given = Path(named)
    found = contained(root, given)
    if found is None or not found.is_file():
        found = contained(root, given.parent.name, given.name)
    if found is None or not found.is_file():
        result.metadata[UNREADABLE_KEY] = "not found under the run file's directory"
        return result
    try:
        read = _read_named(found, root)
    except InputError as exc:
        result.metadata[UNREADABLE_KEY] = exc.reason
        return result
    session, why = of_task(read, result.task_id)
    if session is None:
        result.metadata[UNREADABLE_KEY] = why
    else:  # a file of no known format is kept as raw text (loading counts it)
        result.session = relative_patch_files(
            session, diff_files=files_touched(result.agent_diff or "", exclude=())
            if session.patch_files else ())
    return result


#: the last file a result named, kept while results after it name it too (an OpenHands
#: output.jsonl named by every result of the run is read once)
_last_read: tuple[tuple[str, int, int], TranscriptFile] | None = None


def _read_named(path: Path, root: Path) -> TranscriptFile:
    global _last_read
    try:
        st = path.stat()
    except OSError:
        return read_transcripts(path, within=root)  # its error, said as the reader says it
    key = (str(path), st.st_mtime_ns, st.st_size)
    if _last_read is not None and _last_read[0] == key:
        return _last_read[1]
    read = replace(read_transcripts(path, within=root), text="")  # its transcripts are what is kept
    _last_read = (key, read)
    return read


def of_task(read: TranscriptFile, task_id: str) -> tuple[Transcript | None, str]:
    """The transcript of ``read`` that is ``task_id``'s (a copy), or why there is none: a
    file whose transcripts name their tasks gives only the one that names ``task_id``."""
    named = [t for t in read.transcripts if t.task_id]
    if not named:
        return read.transcripts[0].model_copy(), ""
    for t in named:
        if t.task_id == task_id:
            return t.model_copy(), ""
    others = list(dict.fromkeys(str(t.task_id) for t in named))
    shown = ", ".join(others[:_MAX_LISTED]) + (
        f" and {len(others) - _MAX_LISTED} more" if len(others) > _MAX_LISTED else "")
    return None, (f"holds no transcript of this task (it holds {len(others)} of other "
                  f"task{'s' * (len(others) != 1)}: {shown})")


def beside(predictions: Path) -> list[Path]:
    """Where a predictions file's transcripts lie: ``trajs/`` beside it (a SWE-bench
    submission), or its own directory when it is a mini-swe-agent batch's ``preds.json``."""
    out = [d for d in (predictions.parent / "trajs",) if d.is_dir()]
    if predictions.name == "preds.json":
        out.append(predictions.parent)
    return out


__all__ = ["LinkReport", "MAX_FILES", "UNREADABLE_KEY", "attach", "beside", "index",
           "link_named", "named_in_metadata", "of_task", "task_of_name"]
