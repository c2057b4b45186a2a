"""Build or refresh an index directory from a source tree, its stages overlapped.

Only files that are new or whose content hash changed are chunked and embedded; the
vectors of unchanged files are carried over and deleted files are dropped. Changing the
model or the chunk size rebuilds everything. Chunks are sized to the model's token window
(read from the model directory, so an incremental build that has nothing to embed never
loads the model).

The stages run at once: worker processes read, hash and chunk files (:mod:`.scan`) a
bounded number of tasks ahead, a thread hands the files over (:mod:`.feed`), the model
loads in another thread on a fresh build, and the calling thread embeds the new chunks in
groups of whole files as they come. The index is written in one piece at the end, every
:data:`CHECKPOINT_SECONDS` while embedding, and when the build is interrupted (Ctrl-C or any
error): the files embedded so far are kept, so the next run embeds only the rest.

Example:
    >>> stats = build_index("src", ".judgekit-index")    # doctest: +SKIP
    >>> stats.embedded <= stats.chunks                      # doctest: +SKIP
    True
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from judgekit.errors import InputError
from judgekit.index.embed import TextEmbedder, check_choices, get_embedder, resolve_model, take_load_seconds
from judgekit.index.feed import Feed, encode_groups, groups
from judgekit.index.files import candidate_files
from judgekit.index.models import FileEntry, IndexStats, Manifest
from judgekit.index.scan import FileScan, Scanned, TokenWindow, model_window
from judgekit.index.store import is_index, read_rows, write_rows
from judgekit.index.stub import STUB_BACKEND, stub_requested
from judgekit.index.text import WORDS
from judgekit.paths import Escapes

#: Chunks embedded per group (a group is whole files, so it may run past this), per device
#: type. On a CPU a group is under a second of work, which bounds what an interrupt loses.
GROUP_CHUNKS = {"cuda": 8192, "mps": 4096, "cpu": 64}
#: Seconds between two saves of a build in progress.
CHECKPOINT_SECONDS = 60.0
#: Files the scan may hold ready ahead of the encoder.
FEED_FILES = 2048
#: ``progress(embedded_so_far, to_embed)``, called after each group; ``to_embed`` counts
#: the chunks found so far, so it grows while files are still being scanned.
Progress = Callable[[int, int], None]


@dataclass
class _File:
    sha256: str
    count: int
    lines: str  # its chunks as chunks.jsonl lines
    vectors: np.ndarray | None  # None until embedded
    texts: list[str] = field(default_factory=list)  # embedding texts, until embedded


@dataclass
class _Old:
    """The index already in the output directory, carried over where files are unchanged."""

    manifest: Manifest
    lines: list[str]
    vectors: np.ndarray


def build_index(
    root: str | Path,
    out_dir: str | Path,
    *,
    model: str | None = None,
    device: str | None = None,
    batch_size: int | None = None,
    dtype: str | None = None,
    backend: str | None = None,
    workers: int | None = None,
    progress: Progress | None = None,
) -> IndexStats:
    """Index the source files under ``root`` into ``out_dir`` (created or refreshed).

    ``dtype`` forces ``float32``, ``float16``, ``bfloat16`` or ``int8`` (the ONNX
    backend); ``backend`` is ``auto`` (default), ``onnx`` or ``torch``; ``workers`` is
    the number of scanning processes (default: one per core when there are enough files).
    Interrupted (``KeyboardInterrupt`` or any other exception), it saves the files
    embedded so far before the exception goes on.
    """
    began = time.perf_counter()
    root_p, out_p = Path(root), Path(out_dir)
    if not root_p.is_dir():
        raise InputError(root_p, None, "source directory does not exist")
    if out_p.exists() and (not out_p.is_dir() or (any(out_p.iterdir()) and not is_index(out_p))):
        raise InputError(out_p, None, "exists and is not a judgekit index; choose another {option:out}")
    check_choices(device=device, dtype=dtype, backend=backend)
    name, source = resolve_model(model)
    window = _window(source)
    chunk_tokens = window.chunk_tokens if window else None
    old = _reusable(out_p, name, chunk_tokens)

    def load() -> TextEmbedder:
        return get_embedder(model, device=device, batch_size=batch_size, dtype=dtype, backend=backend)

    run = _Run(root_p, out_p, old, _Loader(load, eager=old is None), progress)
    run.meta = _Meta(str(root_p.resolve()), name, old.manifest.dim if old else 0, chunk_tokens,
                     old.manifest.backend if old else None, old.manifest.dtype if old else None)
    run.execute(window, workers)
    t_write = time.perf_counter()
    manifest, lines, vectors = run.assemble()
    write_rows(out_p, manifest, lines, vectors)
    run.write_s += time.perf_counter() - t_write
    return _stats(run, manifest, time.perf_counter() - began)


class BuildInterrupted(KeyboardInterrupt):
    """A build stopped by Ctrl-C after saving: ``embedded`` chunks embedded by this run,
    ``stored`` chunks in the index on disk (a rerun embeds only the rest)."""

    def __init__(self, embedded: int, stored: int) -> None:
        super().__init__(f"interrupted: {embedded} chunks embedded, {stored} stored")
        self.embedded = embedded
        self.stored = stored


class _Loader:
    """The embedder, loading in a daemon thread from the start (``eager``) or when first needed."""

    def __init__(self, load: Callable[[], TextEmbedder], *, eager: bool) -> None:
        self._load = load
        self._done = threading.Event()
        self._value: TextEmbedder | None = None
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        if eager:
            self._start()

    def _start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="judgekit-load", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._value = self._load()
        except BaseException as exc:  # raised in the caller of get()
            self._error = exc
        self._done.set()

    @property
    def started(self) -> bool:
        return self._thread is not None

    def get(self) -> TextEmbedder:
        if self._thread is None:
            self._start()
        while not self._done.wait(0.1):  # wakes up for Ctrl-C
            pass
        if self._error is not None:
            raise self._error
        assert self._value is not None
        return self._value


class _Run:
    """One build: the files found so far, what is embedded, and the time of each stage."""

    def __init__(self, root: Path, out: Path, old: _Old | None, loader: _Loader, progress: Progress | None) -> None:
        self.root, self.out, self.old, self.loader, self.progress = root, out, old, loader, progress
        self.files: dict[str, _File] = {}
        self.paths: list[str] = []
        self.meta = _Meta("", "", 0, None, None, None)
        self.embedder: TextEmbedder | None = None
        self.found = 0  # chunks to embed, found so far
        self.done = 0
        self.scan_s = self.embed_s = self.write_s = self.scan_cpu_s = 0.0
        self.workers = 1
        self.scan_fallback: str | None = None
        self.refused = 0
        self.utilisation: list[float] = []
        self._saved_at = time.perf_counter()
        self._saved_done = 0
        self._saved_chunks = old.manifest.chunks if old else 0

    def execute(self, window: TokenWindow | None, workers: int | None) -> None:
        """Scan, chunk and embed; on an interrupt or error, save what is embedded and re-raise."""
        escapes = Escapes()
        inside = _relative_inside(self.out, self.root)
        known = self.old.manifest.files if self.old else {}
        paths = [rel for rel in candidate_files(self.root, escapes)
                 if inside is None or not (inside == "" or rel.startswith(inside + "/"))]  # not the index itself
        self.refused = escapes.count
        self.paths = paths
        stop = threading.Event()
        t_scan = time.perf_counter()
        scan = FileScan(self.root, [(rel, known[rel].sha256 if rel in known else None) for rel in paths], window,
                        workers=workers, stop=stop)
        feed: Feed[Scanned] = Feed(iter(scan), size=FEED_FILES, stop=stop)
        try:
            self._embed(self._new_files(feed), feed)
        except BaseException as exc:
            stop.set()
            if self.done > self._saved_done:
                self._save()
            if isinstance(exc, KeyboardInterrupt) and not isinstance(exc, BuildInterrupted):
                raise BuildInterrupted(self.done, self._saved_chunks) from exc
            raise
        finally:
            stop.set()
            self.workers, self.scan_fallback, self.scan_cpu_s = scan.workers, scan.fallback, scan.cpu_seconds
            self.scan_s = (feed.done_at or time.perf_counter()) - t_scan
        if self.embedder is None and self.loader.started:
            self.embedder = self.loader.get()  # a fresh build of nothing: the model still names the index
        self._describe(self.embedder)

    def _new_files(self, feed: Feed[Scanned]) -> Iterator[tuple[list[_File], list[str]]]:
        """Files in scan order, carried over or ready; yields the new ones in groups for the encoder."""
        def fresh() -> Iterator[_File]:
            for s in feed:
                if s.sha256 is None:
                    continue  # not source after all (binary, generated, too big)
                if s.unchanged:
                    self.files[s.path] = self._carried(s.path)
                    continue
                f = self.files[s.path] = _File(s.sha256, s.count, s.lines, None, s.texts)
                if not s.count:
                    f.vectors = np.zeros((0, 0), dtype=np.float32)
                    continue
                self.found += s.count
                yield f

        for group in groups(fresh(), lambda f: f.count, self._group_size()):
            texts = [t for f in group for t in f.texts]
            for f in group:
                f.texts = []
            yield group, texts

    def _group_size(self) -> int:
        device = "cuda" if self.loader.started and _wants_gpu() else "cpu"
        return GROUP_CHUNKS.get(device, GROUP_CHUNKS["cpu"])

    def _embed(self, work: Iterator[tuple[list[_File], list[str]]], feed: Feed[Scanned]) -> None:
        """Embed the groups; ``embed_s`` is the time spent on the model, not waiting for files."""
        first = next(work, None)
        if first is None:
            return
        embedder = self.embedder = self.loader.get()
        self._describe(embedder)

        def items() -> Iterator[tuple[list[_File], list[str]]]:
            yield first
            yield from work

        began = time.perf_counter()
        outside = 0.0
        waited = feed.wait_seconds
        starved = float(getattr(embedder, "input_wait_seconds", 0.0))
        for group, vecs in encode_groups(embedder, items()):
            t0 = time.perf_counter()
            row = 0
            for f in group:
                f.vectors, row = vecs[row : row + f.count], row + f.count
            self.done += len(vecs)
            if embedder.gpu_utilisation is not None:
                self.utilisation.append(embedder.gpu_utilisation)
            if self.progress is not None:
                self.progress(self.done, self.found)
            if time.perf_counter() - self._saved_at >= CHECKPOINT_SECONDS:
                self._save()
            outside += time.perf_counter() - t0
        if hasattr(embedder, "encode_stream"):  # files are awaited in its tokeniser thread
            idle = float(getattr(embedder, "input_wait_seconds", 0.0)) - starved
        else:
            idle = feed.wait_seconds - waited
        self.embed_s = max(0.0, time.perf_counter() - began - outside - idle)

    def _describe(self, embedder: TextEmbedder | None) -> None:
        if embedder is None:
            return
        self.meta = _Meta(self.meta.root, self.meta.model, embedder.dim, self.meta.chunk_tokens,
                          embedder.backend, embedder.dtype)

    def _carried(self, rel: str) -> _File:
        assert self.old is not None
        prev = self.old.manifest.files[rel]
        rows = slice(prev.first, prev.first + prev.count)
        return _File(prev.sha256, prev.count, "".join(self.old.lines[rows]), self.old.vectors[rows])

    def _save(self) -> None:
        t0 = time.perf_counter()
        manifest, lines, vectors = self.assemble(partial=True)
        write_rows(self.out, manifest, lines, vectors)
        self._saved_at, self._saved_done, self._saved_chunks = time.perf_counter(), self.done, manifest.chunks
        self.write_s += self._saved_at - t0

    def assemble(self, *, partial: bool = False) -> tuple[Manifest, str, np.ndarray]:
        """The index of the files embedded so far (files still waiting are left out).

        ``partial`` (a save during the build): a listed file not embedded yet keeps its
        entry of the index already there, if any, so a save never loses what was stored.
        """
        meta = self.meta
        files = dict(self.files)
        if partial and self.old is not None:
            waiting = [rel for rel in self.paths if rel in self.old.manifest.files
                       and (rel not in files or files[rel].vectors is None)]
            files.update((rel, self._carried(rel)) for rel in waiting)
        entries: dict[str, FileEntry] = {}
        parts: list[str] = []
        rows: list[np.ndarray] = []
        first = 0
        for rel in sorted(files):
            f = files[rel]
            if f.vectors is None:
                continue
            entries[rel] = FileEntry.model_construct(sha256=f.sha256, first=first, count=f.count)
            if f.count:
                first += f.count
                parts.append(f.lines)
                rows.append(f.vectors)
        vectors = np.concatenate(rows) if rows else np.zeros((0, meta.dim), dtype=np.float32)
        manifest = Manifest(root=meta.root, model=meta.model, dim=meta.dim, chunks=first, files=entries,
                            chunk_tokens=meta.chunk_tokens, backend=meta.backend, dtype=meta.dtype, text=WORDS)
        return manifest, "".join(parts), vectors


def _wants_gpu() -> bool:
    """True when the model may run on a GPU (checked without importing torch)."""
    from judgekit.index.embed import accelerator_possible

    return accelerator_possible() and not stub_requested()


def _stats(run: _Run, manifest: Manifest, seconds: float) -> IndexStats:
    """What the build did and how fast."""
    embedder, total, meta = run.embedder, run.done, run.meta
    load_s = take_load_seconds(embedder) if embedder is not None else 0.0
    return IndexStats(
        files=len(manifest.files),
        chunks=manifest.chunks,
        embedded=total,
        seconds=round(seconds, 3),
        chunks_per_s=round(total / seconds, 1) if total and seconds > 0 else 0.0,
        embed_chunks_per_s=round(total / run.embed_s, 1) if total and run.embed_s > 0 else 0.0,
        scan_seconds=round(run.scan_s, 3),
        scan_cpu_seconds=round(run.scan_cpu_s, 3),
        load_seconds=round(load_s, 3),
        export_seconds=round(getattr(embedder, "export_seconds", 0.0) if load_s else 0.0, 3),
        tokenize_seconds=round(float(getattr(embedder, "tokenize_seconds", 0.0) or 0.0), 3),
        embed_seconds=round(run.embed_s, 3),
        write_seconds=round(run.write_s, 3),
        device=getattr(embedder, "device", None) or "cpu",
        model=meta.model,
        dtype=meta.dtype or "float32",
        backend=meta.backend or "torch",
        implementation=getattr(embedder, "implementation", None),
        fallback=getattr(embedder, "fallback", None),
        probe_min_cosine=getattr(embedder, "probe_min_cosine", None),
        gpu_utilisation=round(sum(run.utilisation) / len(run.utilisation), 3) if run.utilisation else None,
        chunk_tokens=meta.chunk_tokens,
        workers=run.workers,
        scan_fallback=run.scan_fallback,
        refused_paths=run.refused,
    )


@dataclass(frozen=True)
class _Meta:
    root: str
    model: str
    dim: int
    chunk_tokens: int | None
    backend: str | None
    dtype: str | None


def _reusable(out: Path, model: str, chunk_tokens: int | None) -> _Old | None:
    """The index already in ``out`` when its vectors can be carried over, else ``None``
    (another model, chunk size or text form; zero vectors of the test hook, or the hook now)."""
    if not is_index(out):
        return None
    manifest, lines, vectors = read_rows(out)
    if (manifest.model != model or manifest.chunk_tokens != chunk_tokens or manifest.text != WORDS
            or (manifest.backend == STUB_BACKEND) != stub_requested()):
        return None
    return _Old(manifest, lines, vectors)


def _window(source: str) -> TokenWindow | None:
    """The model's token window, read from its directory (no model is loaded)."""
    path = Path(source)
    if not path.is_dir():
        return None
    try:
        config = json.loads((path / "sentence_bert_config.json").read_text(encoding="utf-8"))
        max_length = int(config["max_seq_length"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return model_window(path, max_length)


def _relative_inside(path: Path, root: Path) -> str | None:
    """``path`` relative to ``root`` (``/`` separators) when it lies inside it, else ``None``."""
    try:
        rel = path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None
    return "" if rel == "." else rel
