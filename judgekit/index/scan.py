"""Read, hash and chunk the files of a source tree, in worker processes when it pays.

Chunk sizes come from the model's token window when its tokenizer is at hand
(:class:`Chunker`). :class:`FileScan` reads, hashes and chunks files in a pool of worker
processes (one per core, each loading the tokenizer once) when there are many of them,
a bounded number of tasks ahead of whoever consumes the files. Workers send back, per file,
its hash, its chunks' embedding texts and its chunks as ``chunks.jsonl`` lines: no model
object is made per chunk (the chunker made every value).

Example:
    >>> Chunker(None, None).chunk("m.py", "x = 1\\n")[0].kind
    'module'
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import Counter, deque
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from judgekit.index.chunking import Piece, TokenFit, chunk_pieces, embedding_text, header_line
from judgekit.index.files import read_source
from judgekit.index.models import Chunk
from judgekit.index.text import code_words
from judgekit.index.tokens import ModelTokenizer

#: Special tokens the model adds around every text ([CLS] and [SEP]).
SPECIAL_TOKENS = 2
#: Share of the model's token window a chunk is sized to.
CHUNK_SHARE = 0.5
#: Files to chunk before a worker pool is worth starting, and files per task.
POOL_MIN_FILES = 256
POOL_TASK_FILES = 32


@dataclass(frozen=True)
class TokenWindow:
    """Where a worker finds the tokenizer, the model's window and the chunks' budget."""

    model_dir: str
    max_length: int

    @property
    def chunk_tokens(self) -> int:
        """Tokens a chunk is sized to, special tokens included: half the model's window.

        Shorter chunks retrieve better, for about the same fp32 encode time (attention
        grows with the square of a text's length); see ``bench/index_speed.py
        --full-window`` and docs/index.md.
        """
        return max(SPECIAL_TOKENS + 1, int(self.max_length * CHUNK_SHARE))


class Chunker:
    """Chunks files to fit ``window`` (line windows when there is no tokenizer)."""

    def __init__(self, tokenizer: ModelTokenizer | None, chunk_tokens: int | None) -> None:
        self.tokenizer = tokenizer
        self.budget = (chunk_tokens - SPECIAL_TOKENS
                       if tokenizer is not None and chunk_tokens else None)

    @classmethod
    def for_window(cls, window: TokenWindow | None) -> Chunker:
        if window is None:
            return cls(None, None)
        return cls(ModelTokenizer.from_dir(window.model_dir, window.max_length), window.chunk_tokens)

    def chunk(self, path: str, text: str) -> list[Chunk]:
        """The chunks of one file."""
        return [Chunk.model_construct(**p._asdict()) for p in self.pieces(path, text)[0]]

    def pieces(self, path: str, text: str) -> tuple[list[Piece], list[str] | None]:
        """The chunks of one file as tuples, and its lines read as words (``None``: not read)."""
        if self.tokenizer is None or self.budget is None:
            return chunk_pieces(path, text), None
        tok = self.tokenizer
        base = tok.count(code_words(header_line(path, None)))

        @cache
        def header(name: str | None) -> int:
            return base + (tok.count(code_words(name)) if name else 0)

        # sized by the tokens of the text embedded (code read as words), line by line
        words = code_words(text).splitlines()
        fit = TokenFit(tok.line_tokens(words) if words else [], self.budget, header)
        return chunk_pieces(path, text, fit=fit), words

    def texts_and_lines(self, path: str, text: str) -> tuple[list[str], str]:
        """The embedding texts of a file's chunks and the chunks as ``chunks.jsonl`` lines.

        A chunk's embedding text is its header line and its lines read as words; code read
        as words keeps its lines, so the file's words, read once, give every chunk's.
        """
        pieces, words = self.pieces(path, text)
        if words is None:
            texts = [embedding_text(p) for p in pieces]
        else:
            heads: dict[str | None, str] = {}
            texts = []
            for p in pieces:
                head = heads.get(p.name)
                if head is None:
                    head = heads[p.name] = code_words(header_line(path, p.name))
                texts.append(head + "\n" + "\n".join(words[p.start_line - 1 : p.end_line]))
        dumps = _DUMPS
        lines = "".join(dumps({"path": p.path, "start_line": p.start_line, "end_line": p.end_line, "kind": p.kind,
                               "text": p.text, "name": p.name}) + "\n" for p in pieces)
        return texts, lines


_DUMPS = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def default_workers(files: int) -> int:
    """Worker processes for scanning ``files`` files: every core once there are enough files."""
    cores = _cores()
    return cores if files >= POOL_MIN_FILES and cores >= 2 else 1


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


@dataclass(frozen=True)
class Scanned:
    """One file as the scan left it: its hash, and when it is new or changed, its chunks.

    ``sha256`` is ``None`` for a file that is not source after all (binary, generated,
    too big, unreadable); ``unchanged`` when its hash is the one the caller already had
    (then it was not chunked). ``texts`` are the chunks' embedding texts and ``lines``
    the chunks as ``chunks.jsonl`` lines, in order.
    """

    path: str
    sha256: str | None
    unchanged: bool
    texts: list[str]
    lines: str

    @property
    def count(self) -> int:
        return len(self.texts)


_Row = tuple[str, str | None, bool, list[str], str]  # what a worker sends back for a file
#: Why worker processes could not scan, counted over the process.
FALLBACKS: Counter[str] = Counter()


class FileScan:
    """Reads, hashes and chunks files as they are iterated, in worker processes when it pays.

    Iterating yields one :class:`Scanned` per item, in order; workers run a bounded number
    of tasks ahead of the consumer. ``workers`` and ``fallback`` say how it ran: when the
    pool breaks (a worker cannot start, e.g. because the main module cannot be imported
    again, as with a script read from standard input), the files left are scanned in this
    process, ``workers`` becomes 1 and the reason is counted in :data:`FALLBACKS`.
    """

    def __init__(self, root: Path, items: Sequence[tuple[str, str | None]], window: TokenWindow | None,
                 *, workers: int | None = None, stop: threading.Event | None = None) -> None:
        self.root = root
        self.window = window
        self.tasks = [list(items[i : i + POOL_TASK_FILES]) for i in range(0, len(items), POOL_TASK_FILES)]
        self.workers = default_workers(len(items)) if workers is None else max(1, workers)
        if len(items) < 2:
            self.workers = 1
        self.fallback: str | None = None
        self.stop = stop or threading.Event()
        #: CPU time spent reading, hashing and chunking (in whichever process did it).
        self.cpu_seconds = 0.0

    def __iter__(self) -> Iterator[Scanned]:
        done = 0
        if self.workers > 1:
            main = _unimportable_main()
            if main is not None:
                self._fall_back(f"worker processes cannot import the main module {main}; scanned in this process")
            else:
                try:
                    for rows in self._pooled():
                        done += 1
                        yield from (Scanned(*row) for row in rows)
                except BrokenProcessPool:
                    self._fall_back("worker processes could not run (see docs/index.md, Scanning); "
                                    "scanned in this process")
        if done < len(self.tasks):
            began = time.thread_time()
            scanner = _Scanner(self.root, Chunker.for_window(self.window))
            for task in self.tasks[done:]:
                if self.stop.is_set():
                    return
                rows = [scanner.row(path, sha) for path, sha in task]
                self.cpu_seconds += time.thread_time() - began
                began = time.thread_time()
                yield from (Scanned(*row) for row in rows)

    def _fall_back(self, reason: str) -> None:
        FALLBACKS[reason] += 1
        self.fallback, self.workers = reason, 1

    def _pooled(self) -> Iterator[list[_Row]]:
        """Task results in order; the workers' CPU time is added to ``cpu_seconds``."""
        # Never fork: the parent may already run threads (the model loading, the tokenizer).
        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        context = multiprocessing.get_context(method)
        if method == "forkserver":
            context.set_forkserver_preload(["judgekit.index.scan"])
        pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=context,
                                   initializer=_init_worker, initargs=(str(self.root), self.window))
        try:
            ahead = AHEAD_TASKS_PER_WORKER * self.workers
            pending = deque(pool.submit(_scan_task, t) for t in self.tasks[:ahead])
            queued = len(pending)
            while pending and not self.stop.is_set():
                rows, cpu = pending.popleft().result()
                self.cpu_seconds += cpu
                if queued < len(self.tasks):
                    pending.append(pool.submit(_scan_task, self.tasks[queued]))
                    queued += 1
                yield rows
        finally:
            pool.shutdown(wait=False, cancel_futures=True)


#: Tasks each worker may have queued ahead of the consumer (the bound of the scan's queue).
AHEAD_TASKS_PER_WORKER = 4


class _Scanner:
    """Reads, hashes and chunks one file into a :data:`_Row`."""

    def __init__(self, root: Path, chunker: Chunker) -> None:
        self.root = root
        self.chunker = chunker

    def row(self, path: str, known_sha: str | None) -> _Row:
        text = read_source(self.root / path)
        if text is None:
            return (path, None, False, [], "")
        sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
        if sha == known_sha:
            return (path, sha, True, [], "")
        texts, lines = self.chunker.texts_and_lines(path, text)
        return (path, sha, False, texts, lines)


_WORKER: _Scanner | None = None


def _init_worker(root: str, window: TokenWindow | None) -> None:
    global _WORKER
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what an interrupt stops
    os.environ["TOKENIZERS_PARALLELISM"] = "false"  # one process per core already
    _WORKER = _Scanner(Path(root), Chunker.for_window(window))


def _scan_task(items: list[tuple[str, str | None]]) -> tuple[list[_Row], float]:
    began = time.process_time()
    scanner = _WORKER or _Scanner(Path("."), Chunker(None, None))
    return [scanner.row(path, sha) for path, sha in items], time.process_time() - began


def _unimportable_main() -> str | None:
    """The main module's file when fresh worker processes would fail to import it (``<stdin>``)."""
    main = sys.modules.get("__main__")
    if getattr(getattr(main, "__spec__", None), "name", None):
        return None  # run with -m: imported by name
    path = getattr(main, "__file__", None)
    return None if path is None or Path(path).is_file() else str(path)


def model_window(model_dir: str | Path, max_length: int) -> TokenWindow | None:
    """The token window of a local model directory with a ``tokenizer.json``, else ``None``."""
    return TokenWindow(str(model_dir), max_length) if (Path(model_dir) / "tokenizer.json").is_file() else None
