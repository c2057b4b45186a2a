"""Run files written as results finish: ``.jsonl`` lines or one ``.json`` document.

Each result is one line written with a single ``os.write`` on an ``O_APPEND`` descriptor
under an exclusive ``flock``, then fsynced; a line is either fully there or not at all.
A transcript the agent wrote is also kept as a file beside the run file
(``NAME.transcripts/TASK.ARM.ATTEMPT.txt``), named in the result's
``metadata["transcript_file"]``.

Before a result is written, each of its text fields (diffs, transcript, test output, agent
output) over :data:`~judgekit.ingest.cuts.FIELD_BYTES` keeps its head and tail, and the
result's ``truncated`` gives the whole field's size and SHA-256
(:func:`~judgekit.ingest.cuts.cap_result`): one result line stays small enough to read, and
a run file stays readable whatever an agent wrote. The transcript file beside the run file
is kept the same way.

Example:
    >>> import tempfile, pathlib
    >>> from judgekit.ingest.models import RunResult, Task
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "run.jsonl"
    >>> append_result(out, RunResult(task=Task(id="t1"), arm="baseline"))
    >>> sorted(done_keys(out))
    [('t1', 'baseline', 0)]
"""

from __future__ import annotations

import fcntl
import os
import re
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

from judgekit.errors import InputError
from judgekit.jsonread import loads
from judgekit.ingest.cuts import cap_result
from judgekit.ingest.models import RunResult

_lock = threading.Lock()


def append_result(path: str | Path, result: RunResult) -> None:
    """Append ``result`` as one JSON line."""
    line = (result.model_dump_json(exclude_none=True) + "\n").encode("utf-8")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with _lock:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            view = memoryview(line)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
        finally:
            os.close(fd)


def repair_tail(path: str | Path) -> bool:
    """Cut a trailing partial line (left by a crash mid-write); True if one was cut."""
    path = Path(path)
    if not path.exists():
        return False
    with open(path, "rb+") as fh:
        data = fh.read()
        if not data or data.endswith(b"\n"):
            return False
        fh.truncate(data.rfind(b"\n") + 1)
        return True


def done_keys(path: str | Path) -> set[tuple[str, str, int]]:
    """``(task_id, arm, attempt)`` of every result already in the run file."""
    path = Path(path)
    if not path.exists():
        return set()
    keys: set[tuple[str, str, int]] = set()
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                doc = loads(line, path, f"line {number}: ")
                keys.add((str(doc["task"]["id"]), str(doc["arm"]), int(doc.get("attempt", 0))))
            except (KeyError, TypeError, AttributeError):
                raise InputError(path, f"line {number}", "not a judgekit result line") from None
    return keys


def _key(result: RunResult) -> tuple[str, str, int]:
    return (result.task.id, result.arm, result.attempt)


TRANSCRIPT_KEY = "transcript_file"
"""The key of a result's ``metadata`` naming its kept transcript file."""


def transcript_dir(run_file: str | Path) -> Path:
    """Where the transcripts of the run file ``run_file`` are kept."""
    path = Path(run_file)
    return path.with_name(f"{path.stem}.transcripts")


def keep_transcript(run_file: str | Path, result: RunResult) -> None:
    """Write ``result``'s transcript beside the run file and name it in its metadata."""
    if not result.transcript:
        return
    from judgekit.io import atomic_write_text

    def safe(text: str) -> str:
        return re.sub(r"[^A-Za-z0-9_-]+", "+", text).strip("+") or "_"

    target = transcript_dir(run_file) / (
        f"{safe(result.task.id)}.{safe(result.arm)}.{result.attempt}.txt")
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(target, result.transcript)
    result.metadata[TRANSCRIPT_KEY] = str(target.resolve())


class RunWriter:
    """Writes a run's results as they finish, in the format the file name asks for.

    ``.jsonl`` (or any name not ending in ``.json``): one result a line, appended under a
    lock and fsynced. ``.json``: one :class:`~judgekit.ingest.models.RunFile` document,
    rewritten atomically (temp file and rename) at most every ``flush_s`` seconds and at
    :meth:`close`; until then each result is also appended to a journal beside it
    (``.NAME.journal``), so an interrupted run loses nothing and ``resume`` continues
    from both.
    """

    def __init__(self, path: str | Path, *, resume: bool, run_id: str | None = None,
                 metadata: dict[str, object] | None = None, flush_s: float = 5.0) -> None:
        self.path = Path(path)
        self.as_document = self.path.suffix.lower() == ".json"
        self.journal = self.path.with_name(f".{self.path.name}.journal")
        self.flush_s = flush_s
        self._results: list[RunResult] = []
        self._last_flush = time.monotonic()
        self._run_id = run_id
        self._metadata = dict(metadata or {})
        self._created: str | None = None
        started = self.path.exists() and self.path.stat().st_size > 0
        if self.as_document and self.journal.exists():
            started = started or self.journal.stat().st_size > 0
        if started and not resume:
            from judgekit.errors import ConfigError

            raise ConfigError(f"{self.path} already has results: pass {{option:resume}} to "
                              "continue it, or choose another {option:out}")
        self.repaired = False
        if resume:
            self.repaired = repair_tail(self.journal if self.as_document else self.path)
        if self.as_document:
            self._load_document()

    def _load_document(self) -> None:
        from judgekit.io import json_lines, read_json
        from judgekit.ingest.models import RunFile
        from judgekit.ingest.validation import validate

        if self.path.exists() and self.path.stat().st_size > 0:
            doc = read_json(self.path, limit=None)  # strict, depth-guarded: one line if bad
            run = validate(RunFile, doc, self.path)
            self._results = list(run.results)
            self._run_id = self._run_id or run.run_id
            self._created = run.created_at
            self._metadata = {**run.metadata, **self._metadata}
        if self.journal.exists():
            seen = {_key(r) for r in self._results}
            text = self.journal.read_text(encoding="utf-8")
            for number, doc in json_lines(text, self.journal):
                result = validate(RunResult, doc, self.journal, f"line {number}")
                if _key(result) not in seen:
                    self._results.append(result)
                    seen.add(_key(result))

    def done(self) -> set[tuple[str, str, int]]:
        """``(task_id, arm, attempt)`` of every result already written."""
        if self.as_document:
            return {_key(r) for r in self._results}
        return done_keys(self.path)

    def add(self, result: RunResult) -> None:
        """Record one finished result durably (its transcript kept beside the run file),
        each text field capped (:func:`~judgekit.ingest.cuts.cap_result`)."""
        cap_result(result)
        keep_transcript(self.path, result)
        if not self.as_document:
            append_result(self.path, result)
            return
        append_result(self.journal, result)
        self._results.append(result)
        if time.monotonic() - self._last_flush >= self.flush_s:
            self._flush()

    def _flush(self) -> None:
        from judgekit.io import atomic_write_text
        from judgekit.ingest.models import RunFile

        if self._created is None:
            self._created = datetime.now(timezone.utc).isoformat(timespec="seconds")
        from judgekit.execute.secrets import REDACTIONS_KEY, total_redactions

        metadata = dict(self._metadata)
        redactions = total_redactions(self._results)
        if redactions:
            metadata[REDACTIONS_KEY] = redactions
        doc = RunFile(run_id=self._run_id, created_at=self._created, metadata=metadata,
                      results=self._results)
        atomic_write_text(self.path, doc.model_dump_json(exclude_none=True, indent=1) + "\n")
        self._last_flush = time.monotonic()

    def close(self) -> None:
        """Write the final document (``.json``) and drop the journal."""
        if self.as_document:
            self._flush()
            self.journal.unlink(missing_ok=True)
