"""Read, hash and chunk the files of a source tree, in worker processes when it pays.

Chunk sizes come from the model's token window when its tokenizer is at hand
(:class:`Chunker`); files are chunked in a pool of worker processes (each loads the
tokenizer once) when there are many of them and cores to spare. Workers send plain tuples
back; chunks are built without validation (the chunker made every value).

Example:
    >>> Chunker(None, None).chunk("m.py", "x = 1\\n")[0].kind
    'module'
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from judgekit.index.chunking import TokenFit, chunk_text, header_line
from judgekit.index.text import code_words
from judgekit.index.models import Chunk, ChunkKind
from judgekit.index.tokens import ModelTokenizer

#: Special tokens the model adds around every text ([CLS] and [SEP]).
SPECIAL_TOKENS = 2
#: Share of the model's token window a chunk is sized to.
CHUNK_SHARE = 0.5
#: Files to chunk before a worker pool is worth starting, and files per task.
POOL_MIN_FILES = 256
POOL_TASK_FILES = 32

_Row = tuple[int, int, ChunkKind, str, str | None]  # start, end, kind, text, name


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
        if self.tokenizer is None or self.budget is None:
            return chunk_text(path, text)
        tok = self.tokenizer
        lines = text.splitlines()
        base = tok.count(code_words(header_line(path, None)))

        @cache
        def header(name: str | None) -> int:
            return base + (tok.count(code_words(name)) if name else 0)

        # sized by the tokens of the text embedded (code read as words), line by line
        words = code_words(text).splitlines()
        fit = TokenFit(tok.line_tokens(words) if words else [], self.budget, header)
        return chunk_text(path, text, fit=fit)


def default_workers(files: int) -> int:
    """Worker processes for chunking ``files`` files (1: in this process)."""
    cores = _cores()
    return min(cores, 8) if files >= POOL_MIN_FILES and cores >= 4 else 1


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


@dataclass
class Chunked:
    """Chunks of each file, in order, and how they were made."""

    files: list[list[Chunk]]
    workers: int
    fallback: str | None = None


#: Why worker processes could not chunk, counted over the process.
FALLBACKS: Counter[str] = Counter()


def chunk_files(
    items: Sequence[tuple[str, str]], window: TokenWindow | None, *, workers: int | None = None
) -> Chunked:
    """Chunks of each ``(path, text)``, in order; ``workers`` > 1 runs a process pool.

    When the pool breaks (a worker cannot start, e.g. because the main module cannot be
    imported again, as with a script read from standard input), the files are chunked in
    this process and the fallback is counted in :data:`FALLBACKS` and returned.
    """
    n = default_workers(len(items)) if workers is None else max(1, workers)
    if n == 1 or len(items) < 2:
        return Chunked(_chunk_here(items, window), 1)
    main = _unimportable_main()
    if main is not None:
        reason = f"worker processes cannot import the main module {main}; chunked in this process"
    else:
        try:
            return Chunked(_chunk_in_pool(items, window, n), n)
        except BrokenProcessPool:
            reason = "worker processes could not run (see docs/index.md, Scanning); chunked in this process"
    FALLBACKS[reason] += 1
    return Chunked(_chunk_here(items, window), 1, reason)


def _unimportable_main() -> str | None:
    """The main module's file when fresh worker processes would fail to import it (``<stdin>``)."""
    main = sys.modules.get("__main__")
    if getattr(getattr(main, "__spec__", None), "name", None):
        return None  # run with -m: imported by name
    path = getattr(main, "__file__", None)
    return None if path is None or Path(path).is_file() else str(path)


def _chunk_here(items: Sequence[tuple[str, str]], window: TokenWindow | None) -> list[list[Chunk]]:
    chunker = Chunker.for_window(window)
    return [chunker.chunk(path, text) for path, text in items]


def _chunk_in_pool(items: Sequence[tuple[str, str]], window: TokenWindow | None, n: int) -> list[list[Chunk]]:
    tasks = [list(items[i : i + POOL_TASK_FILES]) for i in range(0, len(items), POOL_TASK_FILES)]
    # Never fork: the parent's tokenizer may already run threads.
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    out: list[list[Chunk]] = []
    with ProcessPoolExecutor(max_workers=n, mp_context=multiprocessing.get_context(method),
                             initializer=_init_worker, initargs=(window,)) as pool:
        for task, rows_of_files in zip(tasks, pool.map(_chunk_task, tasks), strict=True):
            for (path, _), rows in zip(task, rows_of_files, strict=True):
                out.append([
                    Chunk.model_construct(path=path, start_line=s, end_line=e, kind=k, text=t, name=nm)
                    for s, e, k, t, nm in rows
                ])
    return out


_WORKER: Chunker | None = None


def _init_worker(window: TokenWindow | None) -> None:
    global _WORKER
    os.environ["TOKENIZERS_PARALLELISM"] = "false"  # one process per core already
    _WORKER = Chunker.for_window(window)


def _chunk_task(items: list[tuple[str, str]]) -> list[list[_Row]]:
    chunker = _WORKER or Chunker(None, None)
    return [
        [(c.start_line, c.end_line, c.kind, c.text, c.name) for c in chunker.chunk(path, text)]
        for path, text in items
    ]


def model_window(model_dir: str | Path, max_length: int) -> TokenWindow | None:
    """The token window of a local model directory with a ``tokenizer.json``, else ``None``."""
    return TokenWindow(str(model_dir), max_length) if (Path(model_dir) / "tokenizer.json").is_file() else None
