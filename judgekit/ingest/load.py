"""Load run results from files and directory trees, whatever harness wrote them.

Loading streams: ``.jsonl`` files are read a line at a time and :func:`iter_results` yields
results as it reads them, so scoring a large run never holds its text in memory twice.
What loading noticed (the same file reached twice, duplicate results, side files without
their result file, documents of no known format) goes into a :class:`LoadResult`, whose
``warnings`` reach the scoring summary. Results of an adapter that settles them together
(Inspect AI logs, whose arms depend on every eval) are yielded after the last file.

Only regular files are read: FIFOs, devices and sockets are refused without being opened.
A judgekit ``.json`` run document of :data:`STREAM_BYTES` or more is read a result at a time
(:mod:`judgekit.ingest.jsondoc`), whatever its size; other documents over
:data:`MAX_FILE_BYTES` are refused. A line, or a streamed result, over :data:`MAX_LINE_BYTES`
is read with every string over :data:`~judgekit.ingest.cuts.READ_FIELD_BYTES` cut to its head
and tail as it is read, and the result's ``truncated`` names the fields cut: one long result
never stops the others from being read (only one still too long once cut is refused).

Example:
    >>> results = load_runs(["examples/bobbin"])  # doctest: +SKIP
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from judgekit.errors import InputError
from judgekit.io import MAX_FILE_BYTES, cannot_read, open_regular, read_regular
from judgekit.ingest.adapters.protocol import Adapter, Settling
from judgekit.ingest.adapters.registry import default_adapters, load_problems
from judgekit.ingest.adapters.bobbin import is_bobbin_side_file, is_bobbin_result_name
from judgekit.ingest.adapters.native import NativeAdapter
from judgekit.ingest.cuts import compact_value, mark_read_cuts
from judgekit.ingest.fastjson import loads
from judgekit.ingest.jsondoc import NotStreamable, StreamedDocument, stream_document
from judgekit.ingest.models import ResultKey, RunFile, RunResult
from judgekit.ingest.transcripts.link import UNREADABLE_KEY, link_named
from judgekit.ingest.validation import validate
from judgekit.outputs import REPORT_MD, RESULTS_FILE, SUMMARY_FILE

RUN_SUFFIXES = (".json", ".jsonl", ".eval")
#: judgekit's own files, never read as runs (a step's records file, read as one, holds no
#: run of any known format: it is skipped with a warning).
_OUTPUT_NAMES = {SUMMARY_FILE, RESULTS_FILE}
_SUMMARY_KEYS = {"results", "arms", "comparisons"}
_SCORED_KEYS = {"task_id", "arm", "test_status"}
_MAX_LISTED = 5


def _s(n: int, *, verb: bool = False) -> str:
    """The ending of a noun (``results``) or of its verb (``names``) for ``n`` of them."""
    return ("s" if n == 1 else "") if verb else ("s" if n != 1 else "")


MAX_LINE_BYTES = 64 * 1024 * 1024
"""Longest line of a JSON-lines file judgekit reads whole (and longest result of a document read
a result at a time); a longer one is read with its long strings cut."""
STREAM_BYTES = 16 * 1024 * 1024
"""``.json`` documents of this size or more are read a result at a time: a judgekit run
document of any size is read so (:mod:`judgekit.ingest.jsondoc`)."""

__all__ = ["MAX_FILE_BYTES", "MAX_LINE_BYTES", "LoadResult", "Reading", "iter_items",
           "iter_results", "load_file", "load_runs", "load_runs_result", "native_line",
           "no_results", "read_jsonl", "validate", "write_jsonl"]

T = TypeVar("T")
Key = tuple[str, str, str, int]


@dataclass
class LoadResult:
    """What :func:`load_runs_result` loaded, and what it noticed on the way."""

    results: list[RunResult] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    files: int = 0
    side_files: int = 0
    duplicates: int = 0


class _Notes:
    """Collects load-time observations; turned into warning lines once loading ends."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        #: plug-in adapters that could not be used, one line each
        self.plugins: list[str] = []
        self.unknown: list[str] = []
        self.empty: list[str] = []
        self.orphans: list[str] = []
        self.output_dirs: list[str] = []
        self.duplicates: list[str] = []
        self.n_duplicates = 0
        #: results whose run file names a transcript file that could not be read
        self.transcripts: list[str] = []
        self.n_transcripts = 0
        #: results whose run file names a transcript file of no known format (kept raw)
        self.raw_transcripts: list[str] = []
        self.n_raw_transcripts = 0
        self.side_files = 0
        self.files = 0
        #: results of settling adapters, held until every file is read
        self.held: list[tuple[Settling, Path, list[RunResult]]] = []
        self.n_held = 0

    def settled(self) -> Iterator[tuple[RunResult, Path]]:
        """The held results, each adapter's settled together, with the file of each."""
        by_adapter: dict[int, list[tuple[Settling, Path, list[RunResult]]]] = {}
        for entry in self.held:
            by_adapter.setdefault(id(entry[0]), []).append(entry)
        self.held, self.n_held = [], 0
        for entries in by_adapter.values():
            path_of = {id(r): path for _, path, rs in entries for r in rs}
            kept, lines = entries[0][0].settle([r for _, _, rs in entries for r in rs])
            self.lines.extend(lines)
            for result in kept:
                yield result, path_of[id(result)]

    def warnings(self) -> list[str]:
        out = self.plugins + self.lines
        for items, what in (
            (self.unknown, "not a run file of any known format: skipped"),
            (self.empty, "empty file: skipped"),
            (self.orphans, "side file without its result file: skipped"),
            (self.output_dirs, "judgekit output directory (summary.json): skipped"),
        ):
            if items:
                shown = ", ".join(items[:_MAX_LISTED])
                more = f" and {len(items) - _MAX_LISTED} more" if len(items) > _MAX_LISTED else ""
                out.append(f"{len(items)} file{_s(len(items))} {what}: "
                           f"{shown}{more}")
        dup, bad, raw = self.n_duplicates, self.n_transcripts, self.n_raw_transcripts
        for n, listed, said in (
            (dup, self.duplicates, f"duplicate result{_s(dup)} (same run, task, arm and "
                                   "attempt) loaded once"),
            (bad, self.transcripts, f"result{_s(bad)} name{_s(bad, verb=True)} a transcript "
                                    "file that could not be read (loaded without it)"),
            (raw, self.raw_transcripts, f"result{_s(raw)} name{_s(raw, verb=True)} a "
                                        "transcript file of no known format (kept as raw "
                                        "text)"),
        ):
            if n:
                more = f"; and {n - _MAX_LISTED} more" if n > _MAX_LISTED else ""
                out.append(f"{n} {said}: {'; '.join(listed[:_MAX_LISTED])}{more}")
        return out

    def transcript(self, reading: Reading[T], item: T) -> None:
        """Note ``item`` when the transcript file its result names could not be read."""
        why = reading.transcript_problem(item)
        if why is not None:
            self.n_transcripts += 1
            if len(self.transcripts) < _MAX_LISTED:
                self.transcripts.append(f"{reading.label(item)}: {why}")
        elif reading.transcript_raw(item):
            self.n_raw_transcripts += 1
            if len(self.raw_transcripts) < _MAX_LISTED:
                self.raw_transcripts.append(reading.label(item))


def _stat_regular(path: Path) -> os.stat_result:
    """``stat`` of a regular file, or an InputError; nothing is opened."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise cannot_read(path, exc) from None
    if not stat.S_ISREG(st.st_mode):
        raise InputError(path, None, f"not a regular file ({_kind(st.st_mode)}): refused")
    return st


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISDIR, "a directory")):
        if test(mode):
            return name
    return "not a regular file"


def _read_json(path: Path) -> Any:
    return loads(read_regular(path), path)


def _is_summary(document: Any) -> bool:
    return isinstance(document, dict) and _SUMMARY_KEYS <= document.keys()


def _refuse_own_output(path: Path, document: Any) -> None:
    if _is_summary(document):
        raise InputError(path, None, "a judgekit summary (written by score or judge), not a run "
                                     "file: score the run files it was made from, or rebuild "
                                     "its report with `judgekit report DIR`")
    if isinstance(document, dict) and _SCORED_KEYS <= document.keys() and "task" not in document:
        raise InputError(path, "line 1", "a judgekit results file (scores written by score or "
                                         "judge), not a run file: score the run files instead")


def _jsonl_lines(path: Path) -> Generator[tuple[int, Any], None, None]:
    """``(line number, parsed value)`` of each non-blank line, read a line at a time."""
    with open_regular(path) as fh:
        number = 0
        while True:
            offset = fh.tell()
            raw = fh.readline(MAX_LINE_BYTES + 1)
            if not raw:
                break
            number += 1
            if len(raw) > MAX_LINE_BYTES:
                del raw
                value, consumed = long_line(path, offset, number)
                fh.seek(offset + consumed)
                fh.read(1)  # its newline
                yield number, value
                continue
            if not raw.strip():
                continue
            yield number, loads(raw, path, f"line {number}: ")


def long_line(path: Path, offset: int, number: int) -> tuple[Any, int]:
    """The value of line ``number`` (at byte ``offset``), longer than :data:`MAX_LINE_BYTES`,
    read with its long strings cut (and the cuts noted in its ``truncated``); and its length
    without the newline."""
    where = f"line {number}"
    raw, consumed = compact_value(path, offset, where, limit=MAX_LINE_BYTES, line=True)
    value = loads(raw, path, f"{where}: ")
    mark_read_cuts(value)
    return value, consumed


def native_line(raw: bytes, path: Path, number: int, offset: int) -> RunResult:
    """The result on line ``number`` of a judgekit ``.jsonl`` file (``raw``, its bytes with
    any newline, or the first ones of a line longer than :data:`MAX_LINE_BYTES`; ``offset``,
    where it starts in the file), or the InputError the line-by-line reader raises for it."""
    if len(raw) > MAX_LINE_BYTES:
        value = long_line(path, offset, number)[0]
    else:
        value = loads(raw, path, f"line {number}: ")
    if not isinstance(value, dict):
        raise InputError(path, f"line {number}",
                         f"expected a result object, got {_json_type(value)}")
    return link_named(path, validate(RunResult, value, path, f"line {number}: "))


class Reading(Generic[T]):
    """What the files' results are handed out as: :class:`RunResult` objects (this class) or
    what a subclass makes of each (its scores, say). Finding files, the checks, duplicates
    and warnings do not depend on it.
    """

    def convert(self, result: RunResult) -> T:
        """The item handed out for one loaded result."""
        return result  # type: ignore[return-value]

    def key(self, item: T) -> Key | None:
        """Run, task, arm and attempt of an item (``None`` without a run id)."""
        r: RunResult = item  # type: ignore[assignment]
        return None if r.run_id is None else (r.run_id, r.task.id, r.arm, r.attempt)

    def label(self, item: T) -> str:
        """How a duplicate is named in the warnings."""
        r: RunResult = item  # type: ignore[assignment]
        return ResultKey.of(r).with_run()

    def transcript_problem(self, item: T) -> str | None:
        """Why the transcript file the item's result names could not be read, if so."""
        r: RunResult = item  # type: ignore[assignment]
        why = r.metadata.get(UNREADABLE_KEY)
        return why if isinstance(why, str) else None

    def transcript_raw(self, item: T) -> bool:
        """The item's result holds a transcript of no known format, kept as raw text."""
        r: RunResult = item  # type: ignore[assignment]
        return r.session is not None and r.session.format == "raw"

    def fill_run_id(self, item: T, run_id: str) -> None:
        """Give an item without a run id its document's."""
        r: RunResult = item  # type: ignore[assignment]
        if r.run_id is None:
            r.run_id = run_id

    def document_items(self, doc: StreamedDocument,
                       values: Iterator[tuple[int, Any, tuple[int, int]]]) -> Iterator[T]:
        """The items of a run document's results: ``values`` gives each result's index,
        value and place in the file (as :func:`judgekit.ingest.jsondoc.stream_document` read
        them)."""
        for index, value, _ in values:
            where = f"{doc.prefix}[{index}]"
            yield self.convert(link_named(doc.path, validate(RunResult, value, doc.path,
                                                             where)))

    def native_jsonl(self, path: Path, first: tuple[int, Any],
                     rest: Iterator[tuple[int, Any]]) -> Iterator[T]:
        """The items of a judgekit ``.jsonl`` file, whose first line (``first``, already
        parsed) is a result object; ``rest`` reads the lines after it."""
        number, value = first
        yield self.convert(link_named(path, validate(RunResult, value, path,
                                                     f"line {number}: ")))
        for number, value in rest:
            if not isinstance(value, dict):
                raise InputError(path, f"line {number}",
                                 f"expected a result object, got {_json_type(value)}")
            yield self.convert(link_named(path, validate(RunResult, value, path,
                                                         f"line {number}: ")))


_RESULTS: Reading[RunResult] = Reading()


def _iter_jsonl(path: Path, adapters: Sequence[Adapter], notes: _Notes | None,
                strict: bool, reading: Reading[T]) -> Iterator[T]:
    lines = _jsonl_lines(path)
    first = next(lines, None)
    if first is None:
        if strict:
            raise InputError(path, None, "holds no run results (empty file)")
        if notes is not None:
            notes.empty.append(str(path))
        return
    number, value = first
    _refuse_own_output(path, value)
    if isinstance(value, dict) and "task" in value and "arm" in value:
        try:
            yield from reading.native_jsonl(path, first, lines)
        finally:
            lines.close()
        return
    # Not judgekit's own lines: another harness's JSON lines (e.g. SWE-bench predictions).
    document = [value] + [v for _, v in lines]
    yield from map(reading.convert, _from_document(path, document, adapters, notes, strict))


def _json_type(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
            type(None): "null", int: "a number", float: "a number"}.get(type(value), "a value")


def _from_document(path: Path, document: Any, adapters: Sequence[Adapter],
                   notes: _Notes | None, strict: bool) -> Iterator[RunResult]:
    _refuse_own_output(path, document)
    adapter = next((a for a in adapters if a.detect(path, document)), None)
    if adapter is None:
        if is_bobbin_result_name(path.name) and not isinstance(document, dict):
            raise InputError(path, None, f"expected a bobbin result object, got "
                                         f"{_json_type(document)}")
        if strict:
            tried = ", ".join(a.name for a in adapters)
            left_out = "".join(f"; {line}" for line in notes.plugins) if notes else ""
            raise InputError(path, None, f"not a run file of any known format (tried: {tried})"
                                         f"{left_out}")
        if notes is not None:
            notes.unknown.append(str(path))
        return
    if adapter.is_auxiliary(path, document):
        return
    yield from _loaded(adapter, path, document, notes)


def _loaded(adapter: Adapter, path: Path, document: Any,
            notes: _Notes | None) -> Iterator[RunResult]:
    """What ``adapter`` loads from ``path``; a settling adapter's results are held in
    ``notes`` (or, for a file loaded on its own, settled at once)."""
    results = adapter.load(path, document)
    if not isinstance(adapter, Settling):
        yield from results
    elif notes is None:
        yield from adapter.settle(results)[0]
    else:
        notes.held.append((adapter, path, results))
        notes.n_held += len(results)


class _NotStreamed(Exception):
    """A document the streamed reading cannot decide on as the whole-document reading does."""


def _streamed_or_none(path: Path, size: int, adapters: Sequence[Adapter],
                      reading: Reading[T]) -> list[T] | None:
    """The items of a judgekit run document read a result at a time, or ``None`` when it is
    to be read whole. A document the whole-document reading can take (up to
    :data:`MAX_FILE_BYTES`) is given to it on any error, so its error is the one raised."""
    try:
        return _streamed_document(path, adapters, reading)
    except _NotStreamed:
        return None
    except InputError:
        if size > MAX_FILE_BYTES:
            raise
        return None


def _checked(values: Iterator[tuple[int, Any, tuple[int, int]]], first: list[Any],
             check: Callable[[], None]) -> Iterator[tuple[int, Any, tuple[int, int]]]:
    """``values``, held back until the first five (or all, when fewer) are in ``first`` and
    ``check`` has passed on them."""
    pending: list[tuple[int, Any, tuple[int, int]]] = []
    for item in values:
        if len(first) < 5:
            first.append(item[1])
            pending.append(item)
            if len(first) == 5:
                check()
                yield from pending
                pending = []
            continue
        yield item
    if len(first) < 5:
        check()
        yield from pending


def _streamed_document(path: Path, adapters: Sequence[Adapter], reading: Reading[T]
                       ) -> list[T]:
    """A judgekit run document (a :class:`RunFile` object or a list of results), read a
    result at a time; what reading it whole gives, or :class:`_NotStreamed`.

    The native adapter decides on its documents by their members and first five results:
    the same decision is made here on the same facts, before the results are read (from the
    members before the list) and after (from all of them)."""
    native = adapters[0] if adapters else None
    if not isinstance(native, NativeAdapter):
        raise _NotStreamed
    try:
        doc = stream_document(path, limit=MAX_LINE_BYTES)
    except NotStreamable:
        raise _NotStreamed from None
    first: list[Any] = []

    def like_whole() -> Any:  # what the decisions read of the whole document
        return first if doc.is_list else {**doc.members, "results": first}

    def check() -> None:
        _refuse_own_output(path, like_whole())
        if next((a for a in adapters if a.detect(path, like_whole())), None) is not native:
            raise _NotStreamed

    try:
        items = list(reading.document_items(doc, _checked(doc.items, first, check)))
        check()  # every member is known now
    except NotStreamable:
        raise _NotStreamed from None
    finally:
        doc.items.close()  # type: ignore[attr-defined]
    if not doc.is_list:
        run = validate(RunFile, {**doc.members, "results": []}, path)
        if run.run_id:
            for item in items:
                reading.fill_run_id(item, run.run_id)
    return items


def _iter_file(path: Path, adapters: Sequence[Adapter], notes: _Notes | None,
               strict: bool, reading: Reading[T]) -> Iterator[T]:
    st = _stat_regular(path)
    if path.suffix == ".json" and st.st_size >= STREAM_BYTES:
        streamed = _streamed_or_none(path, st.st_size, adapters, reading)
        if streamed is not None:
            yield from streamed
            return
    if st.st_size > MAX_FILE_BYTES and path.suffix != ".jsonl":
        what = (" (only a judgekit run document is read a result at a time)"
                if path.suffix == ".json" else "")
        raise InputError(path, None, f"file is {st.st_size} bytes, over the limit of "
                                     f"{MAX_FILE_BYTES}{what}: refused")
    if st.st_size == 0 and not strict:
        if notes is not None:
            notes.empty.append(str(path))
        return
    if path.suffix == ".jsonl":
        yield from _iter_jsonl(path, adapters, notes, strict, reading)
        return
    if path.suffix not in (".json", ""):
        claimed = next((a for a in adapters if a.detect(path, None)), None)
        if claimed is not None:
            yield from map(reading.convert, _loaded(claimed, path, None, notes))
            return
    yield from map(reading.convert,
                   _from_document(path, _read_json(path), adapters, notes, strict))


def load_file(path: str | Path, *, strict: bool = True,
              adapters: Sequence[Adapter] | None = None) -> list[RunResult]:
    """Load one run file. With ``strict=False`` an unrecognised JSON document yields ``[]``."""
    return list(_iter_file(Path(path), default_adapters() if adapters is None else adapters,
                           None, strict, _RESULTS))


def read_jsonl(path: str | Path) -> list[RunResult]:
    """Read a ``.jsonl`` file of results; an InputError names the line and field at fault."""
    path = Path(path)
    _stat_regular(path)
    return [validate(RunResult, value, path, f"line {number}: ")
            for number, value in _jsonl_lines(path)]


def _walk(directory: Path, notes: _Notes) -> Iterator[Path]:
    def fail(exc: OSError) -> None:
        raise InputError(exc.filename or directory, None,
                         f"cannot read: {exc.__class__.__name__}: {exc.strerror}")

    for root, dirs, files in os.walk(directory, onerror=fail):
        here = Path(root)
        if root != str(directory) and SUMMARY_FILE in files:
            notes.output_dirs.append(str(here))
            dirs[:] = []
            continue
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        names = set(files)
        for name in sorted(files):
            if not name.endswith(RUN_SUFFIXES) or name in _OUTPUT_NAMES:
                continue
            side = is_bobbin_side_file(name)
            if side is not None:
                if side not in names:
                    notes.orphans.append(str(here / name))
                else:
                    notes.side_files += 1
                continue
            yield here / name


def _is_output_dir(path: Path) -> bool:
    return (path / SUMMARY_FILE).is_file() and (
        (path / REPORT_MD).exists() or (path / RESULTS_FILE).exists())


def _paths_of(raw: str | Path, notes: _Notes) -> tuple[list[Path], bool]:
    """The files one argument names, and whether they are a directory's (loaded leniently)."""
    path = Path(raw)
    try:
        st = os.stat(path)
    except OSError as exc:
        if isinstance(exc, FileNotFoundError):
            raise InputError(path, None, "no such file or directory") from None
        raise cannot_read(path, exc) from None
    if stat.S_ISDIR(st.st_mode):
        if _is_output_dir(path):
            raise InputError(path, None, "a judgekit output directory (summary.json), not runs: "
                                         "rebuild its report with `judgekit report DIR`, or "
                                         "score the run files it was made from")
        return list(_walk(path, notes)), True
    if not stat.S_ISREG(st.st_mode):
        raise InputError(path, None, f"not a regular file ({_kind(st.st_mode)}): refused")
    if path.name == SUMMARY_FILE:
        raise InputError(path, None, "a judgekit summary (written by score or judge), not a run "
                                     "file: score the run files it was made from, or rebuild "
                                     "its report with `judgekit report DIR`")
    side = is_bobbin_side_file(path.name)
    if side is not None:
        notes.lines.append(f"{path}: a bobbin side file (agent event stream or metrics), not a "
                           f"result: loaded with its result file {side} when that is given")
        return [], False
    return [path], False


def _identity(path: Path) -> tuple[int, int]:
    st = os.stat(path)
    return (st.st_dev, st.st_ino)


def iter_results(paths: str | Path | Sequence[str | Path], *,
                 adapters: Sequence[Adapter] | None = None,
                 report: LoadResult | None = None) -> Iterator[RunResult]:
    """Yield every result of files and directories (searched recursively), as it is read.

    Each file is read once however many arguments reach it; a result whose run, task, arm
    and attempt were already seen is skipped. Both are noted in ``report.warnings``, which is
    complete once the iterator is exhausted.
    """
    return iter_items(paths, _RESULTS, adapters=adapters, report=report)


def iter_items(paths: str | Path | Sequence[str | Path], reading: Reading[T], *,
               adapters: Sequence[Adapter] | None = None,
               report: LoadResult | None = None) -> Iterator[T]:
    """:func:`iter_results`, each result handed out as ``reading`` makes it."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    if not paths:
        raise InputError("(arguments)", None, "no path given")
    tried = default_adapters() if adapters is None else adapters
    notes = _Notes()
    notes.plugins = load_problems(tried)
    tried = list(tried)
    seen_files: dict[tuple[int, int], Path] = {}
    seen_keys: set[tuple[str, str, str, int]] = set()
    for raw in paths:
        files, lenient = _paths_of(raw, notes)
        found = 0
        repeated: list[tuple[Path, Path]] = []
        for path in files:
            ident = _identity_or_error(path)
            if ident in seen_files:
                repeated.append((path, seen_files[ident]))
                found += 1
                continue
            seen_files[ident] = path
            notes.files += 1
            held = notes.n_held
            for item in _iter_file(path, tried, notes, not lenient, reading):
                found += 1
                if _first_seen(reading, item, path, seen_keys, notes):
                    notes.transcript(reading, item)
                    yield item
            found += notes.n_held - held
        if repeated:
            path, first = repeated[0]
            same = f"{path}" if path == first else f"{path}, the same file as {first}"
            more = f", and {len(repeated) - 1} more" if len(repeated) > 1 else ""
            notes.lines.append(f"{raw}: {len(repeated)} file{'s' if len(repeated) != 1 else ''} "
                               f"already reached through another argument ({same}{more}): "
                               "loaded once")
        if not found and not (files == [] and not lenient and notes.lines):
            kind = "directory" if lenient else "file"
            raise InputError(raw, None, f"{kind} holds no run results")
    for result, path in notes.settled():
        item = reading.convert(result)
        if _first_seen(reading, item, path, seen_keys, notes):
            notes.transcript(reading, item)
            yield item
    if report is not None:
        report.warnings.extend(notes.warnings())
        report.files += notes.files
        report.side_files += notes.side_files
        report.duplicates += notes.n_duplicates


def _first_seen(reading: Reading[T], item: T, path: Path, seen_keys: set[Key],
                notes: _Notes) -> bool:
    """False for an item whose run, task, arm and attempt were already seen (noted)."""
    key = reading.key(item)
    if key is None:
        return True
    if key in seen_keys:
        notes.n_duplicates += 1
        if len(notes.duplicates) < _MAX_LISTED:
            notes.duplicates.append(f"{reading.label(item)} in {path}")
        return False
    seen_keys.add(key)
    return True


def _identity_or_error(path: Path) -> tuple[int, int]:
    try:
        return _identity(path)
    except OSError as exc:
        raise cannot_read(path, exc) from None


def load_runs_result(paths: str | Path | Sequence[str | Path], *,
                     adapters: Sequence[Adapter] | None = None) -> LoadResult:
    """Load every result and say what loading noticed (see :func:`iter_results`)."""
    report = LoadResult()
    report.results = list(iter_results(paths, adapters=adapters, report=report))
    if not report.results:
        raise no_results(paths, report.warnings)
    return report


def no_results(paths: str | Path | Sequence[str | Path], warnings: Sequence[str]) -> InputError:
    """The error for arguments that held no result, with what loading noticed first."""
    named = ", ".join(map(str, [paths] if isinstance(paths, (str, Path)) else paths))
    detail = f" ({warnings[0]})" if warnings else ""
    return InputError(named, None, f"holds no run results{detail}")


def load_runs(paths: str | Path | Sequence[str | Path], *,
              adapters: Sequence[Adapter] | None = None) -> list[RunResult]:
    """Load every result from files and directories (searched recursively).

    Raises :class:`~judgekit.errors.InputError` for unreadable or malformed input and for a
    directory that holds no run file. :func:`load_runs_result` also returns the warnings.
    """
    return load_runs_result(paths, adapters=adapters).results


def write_jsonl(results: Iterable[RunResult], path: str | Path) -> None:
    """Write results as JSONL atomically (temp file, fsync, rename)."""
    from judgekit.io import atomic_write_text

    text = "".join(r.model_dump_json(exclude_none=True) + "\n" for r in results)
    atomic_write_text(path, text)

