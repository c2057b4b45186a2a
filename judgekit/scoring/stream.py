"""Score run files as they are read, large judgekit run files in worker processes.

:func:`iter_scored` finds, reads and checks files exactly as
:func:`judgekit.ingest.load.iter_results` does (same errors, warnings and duplicates), but hands
out each result's :class:`ScoredResult` and keeps no result. A judgekit ``.jsonl`` file of at
least ``parallel_bytes`` is cut into shards of whole lines (:mod:`judgekit.ingest.shards`);
each worker process reads, checks and scores its own shards, and sends back the scores only.
Scores come back in file order. A line a worker cannot accept is read again here and given
to the line-by-line reader, whose error (naming the file, the line and the field) is raised
after the scores of the lines before it, as when the file is read a line at a time.

A judgekit ``.json`` run document is read here a result at a time
(:mod:`judgekit.ingest.jsondoc` finds where each result starts and ends); the workers are
told where batches of results lie in the file, and read, check and score them.

Example:
    >>> rows = list(iter_scored("examples/bobbin"))  # doctest: +SKIP
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from judgekit.diffs import DEFAULT_INFRA_PATHS
from judgekit.errors import InputError
from judgekit.gcpause import collector_paused
from judgekit.io import open_regular
from judgekit.ingest.adapters import Adapter
from judgekit.ingest.load import (MAX_LINE_BYTES, Key, LoadResult, Reading, iter_items,
                                native_line)
from judgekit.ingest.cuts import compact_value, mark_read_cuts
from judgekit.ingest.jsondoc import StreamedDocument, read_value
from judgekit.ingest.models import ResultKey, RunResult
from judgekit.ingest.shards import lines_of, plan, read_line
from judgekit.ingest.transcripts.link import link_named
from judgekit.ingest.validation import validate
from judgekit.scoring.models import ScoredResult
from judgekit.scoring.score import score_result

SHARD_BYTES = 16 * 1024 * 1024
"""Bytes of a ``.jsonl`` file a worker reads and scores in one go."""
PARALLEL_BYTES = 32 * 1024 * 1024
"""Smallest ``.jsonl`` file scored in worker processes; smaller ones are scored here."""
MAX_WORKERS = 8

J = TypeVar("J")
_FIELDS = tuple(ScoredResult.model_fields)
_ALL_SET = frozenset(_FIELDS)
_FIELDS_SET = set(_ALL_SET)
"""The fields set of every score rebuilt here: one set, shared (each holds every field, so
setting a field, which adds its name, leaves it as it is)."""
_new = object.__new__
_set = object.__setattr__


_SHARED_FIELDS = frozenset({"run_id", "task_id", "arm", "model", "repo", "repo_source",
                            "test_status", "test_reason", "framework", "harness_status",
                            "sandbox", "precision", "recall", "f1", "precision_source",
                            "recall_source", "f1_source", "duration_s", "tests_run",
                            "transcript_format", "exit_status"})
_SHARED_AT = tuple(i for i, name in enumerate(_FIELDS) if name in _SHARED_FIELDS)
_LISTS_AT = tuple(i for i, name in enumerate(_FIELDS)
                  if ScoredResult.model_fields[name].annotation == list[str])
"""The list fields (files touched, left out, cut): one list for each equal list, the empty
one above all; no reader of a score changes its lists."""
_SHARE_MAX = 1 << 18
"""Distinct values kept for sharing; past it, values are kept as they come."""


class _Shared:
    """One object for each equal value of the fields results repeat (run, arm, model,
    repository, status and reason, common scores, lists of files): each score holds
    references, not copies, which is most of what a million scores weigh."""

    def __init__(self) -> None:
        self.values: dict[Any, Any] = {}

    def row(self, row: tuple[Any, ...]) -> tuple[Any, ...]:
        values = self.values
        if len(values) >= _SHARE_MAX:
            return row
        out = list(row)
        for i in _SHARED_AT:
            v = out[i]
            if v is not None:
                out[i] = values.setdefault((type(v), v), v)
        for i in _LISTS_AT:
            v = out[i]
            out[i] = values.setdefault((list, tuple(v)), v)
        return tuple(out)


def _row(scored: ScoredResult) -> tuple[Any, ...]:
    """A score as the tuple of its field values (cheap to send between processes)."""
    values = scored.__dict__
    return tuple(values[name] for name in _FIELDS)


def _scored(row: tuple[Any, ...]) -> ScoredResult:
    """The score whose validated field values ``row`` holds, rebuilt as unpickling rebuilds
    a model (``BaseModel.__setstate__``), without validating them again: every field was
    given when it was validated (the fields set is shared: see :data:`_FIELDS_SET`)."""
    scored = _new(ScoredResult)
    _set(scored, "__dict__", dict(zip(_FIELDS, row)))
    _set(scored, "__pydantic_extra__", None)
    _set(scored, "__pydantic_fields_set__", _FIELDS_SET)
    _set(scored, "__pydantic_private__", None)
    return scored


#: what is looked at in each result beside its score (the integrity checks): a
#: module-level function, so that worker processes can be sent it; None back means nothing
#: to tell, and nothing is sent back.
Inspect = Callable[[RunResult], object | None]


@dataclass(frozen=True)
class _Shard:
    path: str
    start: int
    end: int
    exclude: tuple[str, ...]
    inspect: Inspect | None = None


@dataclass(frozen=True)
class _ShardScores:
    rows: list[tuple[Any, ...]]
    lines: int
    #: (line number within the shard, offset in the file) of a line that was refused
    refused: tuple[int, int] | None = None
    #: row index → what ``inspect`` told of that result (results it told nothing of left out)
    seen: dict[int, object] | None = None


def _look(inspect: Inspect | None, result: RunResult, at: int,
          seen: dict[int, object]) -> None:
    if inspect is not None:
        told = inspect(result)
        if told is not None:
            seen[at] = told


def _score_shard(shard: _Shard) -> _ShardScores:
    """Read, check and score the lines of one shard; stop at the first refused line."""
    with collector_paused():
        return _score_lines(shard)


def _score_lines(shard: _Shard) -> _ShardScores:
    path = Path(shard.path)
    rows: list[tuple[Any, ...]] = []
    seen: dict[int, object] = {}
    number = 0
    for number, offset, raw in lines_of(path, shard.start, shard.end, MAX_LINE_BYTES):
        if len(raw) <= MAX_LINE_BYTES and not raw.strip():
            continue
        try:
            result = native_line(raw, path, number, offset)
        except InputError:
            return _ShardScores(rows, number, (number, offset), seen)
        _look(shard.inspect, result, len(rows), seen)
        rows.append(_row(score_result(result, exclude=shard.exclude)))
    return _ShardScores(rows, number, seen=seen)


def default_workers() -> int:
    """The CPUs this process may run on (at most :data:`MAX_WORKERS`)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, MAX_WORKERS))


def _forkable() -> bool:
    """Worker processes are forked (no start-up cost, nothing imported again), which is safe
    only in a process with one thread; elsewhere shards are scored in this process."""
    return "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1


def _in_order(jobs: Iterable[J], workers: int,
              work: Callable[[J], _ShardScores]) -> Iterator[tuple[J, _ShardScores]]:
    """Each job with what ``work`` made of it, in job order; jobs are taken from ``jobs``
    as they are needed, at most ``2 * workers`` in flight."""
    queued = iter(jobs)
    if workers <= 1 or not _forkable():
        for job in queued:
            yield job, work(job)
        return
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork"))
    try:
        pending: deque[tuple[J, Future[_ShardScores]]] = deque()
        for job in queued:
            pending.append((job, pool.submit(work, job)))
            if len(pending) >= 2 * workers:
                break
        while pending:
            job, future = pending.popleft()
            done = future.result()
            nxt = next(queued, None)
            if nxt is not None:
                pending.append((nxt, pool.submit(work, nxt)))
            yield job, done
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


@dataclass(frozen=True)
class _Results:
    """Consecutive results of a run document (their index and place in the file) for a
    worker to read and score."""

    path: str
    prefix: str
    depth: int
    exclude: tuple[str, ...]
    items: list[tuple[int, int, int]]
    inspect: Inspect | None = None

    def texts(self) -> Iterator[tuple[int, bytes]]:
        """Each result's index and text, read from the file in one go; a result longer than
        :data:`MAX_LINE_BYTES` (alone in its batch) with its long strings cut."""
        first, last = self.items[0][1], self.items[-1][2]
        if last - first > MAX_LINE_BYTES and len(self.items) == 1:
            index = self.items[0][0]
            yield index, compact_value(self.path, first, f"{self.prefix}[{index}]",
                                       limit=MAX_LINE_BYTES, line=False)[0]
            return
        with open_regular(self.path) as fh:
            fh.seek(first)
            data = fh.read(last - first)
        for index, start, end in self.items:
            yield index, data[start - first : end - first]


def _document_result(job: _Results, index: int, raw: bytes) -> RunResult:
    """One result of a run document, read from its text as the document's reader read it."""
    where = f"{job.prefix}[{index}]"
    path = Path(job.path)
    value = read_value(raw, path, where, job.depth)
    mark_read_cuts(value)
    return link_named(path, validate(RunResult, value, path, where))


def _score_results(job: _Results) -> _ShardScores:
    """Read, check and score the results of ``job``; stop at the first refused one."""
    with collector_paused():
        rows: list[tuple[Any, ...]] = []
        seen: dict[int, object] = {}
        for n, (index, raw) in enumerate(job.texts()):
            try:
                result = _document_result(job, index, raw)
            except InputError:
                return _ShardScores(rows, n, (n, 0), seen)
            _look(job.inspect, result, len(rows), seen)
            rows.append(_row(score_result(result, exclude=job.exclude)))
        return _ShardScores(rows, len(job.items), seen=seen)


class ScoredReading(Reading[ScoredResult]):
    """Results handed out as their scores; judgekit ``.jsonl`` files scored in shards."""

    def __init__(self, exclude: Sequence[str] = DEFAULT_INFRA_PATHS, *,
                 workers: int | None = None, shard_bytes: int = SHARD_BYTES,
                 parallel_bytes: int = PARALLEL_BYTES, inspect: Inspect | None = None,
                 seen: Callable[[ScoredResult, object], None] | None = None) -> None:
        self.exclude = tuple(exclude)
        #: looked at in each result, and told to ``seen`` with its score when not None
        self.inspect, self.seen = inspect, seen
        self.workers = default_workers() if workers is None else max(1, workers)
        self.shard_bytes = max(1, shard_bytes)
        self.parallel_bytes = parallel_bytes
        self.shared = _Shared()

    def convert(self, result: RunResult) -> ScoredResult:
        scored = _scored(self.shared.row(_row(score_result(result, exclude=self.exclude))))
        told = self.inspect(result) if self.inspect is not None else None
        if told is not None and self.seen is not None:
            self.seen(scored, told)
        return scored

    def _rows(self, scores: _ShardScores) -> Iterator[ScoredResult]:
        """A worker's scores, each told with what ``inspect`` saw in its result."""
        seen = scores.seen or {}
        for at, row in enumerate(scores.rows):
            scored = _scored(self.shared.row(row))
            if at in seen and self.seen is not None:
                self.seen(scored, seen[at])
            yield scored

    def key(self, item: ScoredResult) -> Key | None:
        return None if item.run_id is None else (item.run_id, item.task_id, item.arm,
                                                 item.attempt)

    def label(self, item: ScoredResult) -> str:
        return ResultKey.of(item).with_run()

    def transcript_problem(self, item: ScoredResult) -> str | None:
        return item.transcript_unreadable

    def transcript_raw(self, item: ScoredResult) -> bool:
        return item.transcript_format == "raw"

    def fill_run_id(self, item: ScoredResult, run_id: str) -> None:
        if item.run_id is None:
            item.run_id = run_id

    def native_jsonl(self, path: Path, first: tuple[int, Any],
                     rest: Iterator[tuple[int, Any]]) -> Iterator[ScoredResult]:
        rest.close()  # type: ignore[attr-defined]
        size = path.stat().st_size
        parallel = self.workers > 1 and size >= self.parallel_bytes
        shards = plan(path, target=self.shard_bytes, limit=MAX_LINE_BYTES)
        jobs = [_Shard(str(path), start, end, self.exclude, self.inspect)
                for start, end in shards]
        base = 0
        for _, scores in _in_order(jobs, min(len(jobs), self.workers if parallel else 1),
                                   _score_shard):
            yield from self._rows(scores)
            if scores.refused is not None:
                number, offset = scores.refused
                native_line(read_line(path, offset, MAX_LINE_BYTES), path, base + number,
                            offset)
                raise InputError(path, f"line {base + number}", "refused")  # not reached
            base += scores.lines


    def document_items(self, doc: StreamedDocument,
                       values: Iterator[tuple[int, Any, tuple[int, int]]]
                       ) -> Iterator[ScoredResult]:
        size = doc.path.stat().st_size
        if self.workers <= 1 or size < self.parallel_bytes or not _forkable():
            yield from super().document_items(doc, values)
            return
        batches = self._batches(doc, values)
        for job, scores in _in_order(batches, self.workers, _score_results):
            yield from self._rows(scores)
            if scores.refused is not None:
                index, raw = list(job.texts())[scores.refused[0]]
                _document_result(job, index, raw)  # raises the result's error
                raise InputError(doc.path, f"{doc.prefix}[{index}]", "refused")  # not reached

    def _batches(self, doc: StreamedDocument,
                 values: Iterator[tuple[int, Any, tuple[int, int]]]) -> Iterator[_Results]:
        """The results' places in the file, about :attr:`shard_bytes` a batch."""
        items: list[tuple[int, int, int]] = []
        size = 0
        for index, _, (start, end) in values:
            if end - start > MAX_LINE_BYTES:  # read with its long strings cut, alone
                if items:
                    yield _Results(str(doc.path), doc.prefix, doc.depth, self.exclude, items,
                                   self.inspect)
                    items, size = [], 0
                yield _Results(str(doc.path), doc.prefix, doc.depth, self.exclude,
                               [(index, start, end)], self.inspect)
                continue
            items.append((index, start, end))
            size += end - start
            if size >= self.shard_bytes:
                yield _Results(str(doc.path), doc.prefix, doc.depth, self.exclude, items,
                                   self.inspect)
                items, size = [], 0
        if items:
            yield _Results(str(doc.path), doc.prefix, doc.depth, self.exclude, items,
                                   self.inspect)


def iter_scored(paths: str | Path | Sequence[str | Path], *,
                exclude: Sequence[str] = DEFAULT_INFRA_PATHS,
                adapters: Sequence[Adapter] | None = None,
                report: LoadResult | None = None,
                workers: int | None = None, inspect: Inspect | None = None,
                seen: Callable[[ScoredResult, object], None] | None = None
                ) -> Iterator[ScoredResult]:
    """The scores of every result of files and directories, in the order
    :func:`~judgekit.ingest.load.iter_results` yields the results; ``workers`` processes
    (default: one per CPU) score large judgekit ``.jsonl`` files. With ``inspect``, each
    result is also looked at where it is read, and what it tells (not None) is given to
    ``seen`` with the result's score, before the score is handed out."""
    return iter_items(paths, ScoredReading(exclude, workers=workers, inspect=inspect,
                                           seen=seen), adapters=adapters, report=report)
