"""Build or refresh an index directory from a source tree.

Only files that are new or whose content hash changed are chunked and embedded; the
vectors of unchanged files are carried over and deleted files are dropped. Changing the
model or the chunk size rebuilds everything. Chunks are sized to the model's token window
(read from the model directory, so an incremental build that has nothing to embed never
loads the model); on a fresh build the model loads in a background thread while files are
scanned. New chunks are embedded in groups of files; after a group the index is saved when
a minute has passed since the last save, so an interrupted build of a large repository
resumes where it stopped.

Example:
    >>> stats = build_index("src", ".judgekit-index")    # doctest: +SKIP
    >>> stats.embedded <= stats.chunks                      # doctest: +SKIP
    True
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from judgekit.errors import InputError
from judgekit.index.chunking import embedding_text
from judgekit.index.text import WORDS
from judgekit.index.embed import TextEmbedder, check_choices, get_embedder, resolve_model, take_load_seconds
from judgekit.index.files import candidate_files, read_source
from judgekit.index.models import Chunk, FileEntry, IndexStats, Manifest
from judgekit.index.scan import Chunked, TokenWindow, chunk_files, model_window
from judgekit.index.store import StoredIndex, is_index, read_index, write_index
from judgekit.paths import Escapes

#: Chunks embedded per group (length buckets are formed within a group), per device type.
GROUP_CHUNKS = {"cuda": 16384, "mps": 8192, "cpu": 2048}
#: Seconds between two saves of a build in progress.
CHECKPOINT_SECONDS = 60.0
#: ``progress(embedded_so_far, to_embed)``, called after each group.
Progress = Callable[[int, int], None]


@dataclass
class _File:
    sha256: str
    chunks: list[Chunk]
    vectors: np.ndarray | None  # None until embedded


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
    the number of chunking processes (default: by core and file count).
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

    scanned = _scan_while_loading(root_p, out_p, old, window, workers, load)
    embedder = scanned.embedder
    load_s = take_load_seconds(embedder) if embedder is not None else 0.0
    dim = embedder.dim if embedder else (old.manifest.dim if old else 0)
    meta = _Meta(str(root_p.resolve()), name, dim, chunk_tokens,
                 getattr(embedder, "backend", None) or (old.manifest.backend if old else None),
                 getattr(embedder, "dtype", None) or (old.manifest.dtype if old else None))
    embed_s, utilisation = _embed(scanned, meta, out_p, progress)
    t_write = time.perf_counter()
    stored = _assemble(scanned.files, meta)
    write_index(out_p, stored)
    timings = _Timings(total=time.perf_counter() - began, scan=scanned.seconds, load=load_s,
                       embed=embed_s, write=time.perf_counter() - t_write)
    return _stats(stored, scanned, meta, timings, utilisation)


@dataclass
class _Scanned:
    """The files found (vectors carried over where unchanged) and the embedder, if needed."""

    files: dict[str, _File]
    chunked: Chunked
    seconds: float
    todo: list[_File]
    total: int
    embedder: TextEmbedder | None
    refused: int = 0


@dataclass(frozen=True)
class _Timings:
    total: float
    scan: float
    load: float
    embed: float
    write: float


def _reusable(out: Path, model: str, chunk_tokens: int | None) -> StoredIndex | None:
    """The index already in ``out`` when its vectors can be carried over, else ``None``."""
    old = read_index(out) if is_index(out) else None
    if old is not None and (old.manifest.model != model or old.manifest.chunk_tokens != chunk_tokens
                            or old.manifest.text != WORDS):
        return None
    return old


def _scan_while_loading(
    root: Path, out: Path, old: StoredIndex | None, window: TokenWindow | None, workers: int | None,
    load: Callable[[], TextEmbedder],
) -> _Scanned:
    """Scan the tree; on a fresh build the model loads meanwhile, else only when needed."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="judgekit-load") as pool:
        loading: Future[TextEmbedder] | None = pool.submit(load) if old is None else None
        t_scan = time.perf_counter()
        escapes = Escapes()
        files, chunked = _scan(root, out, old, window, workers, escapes)
        scan_s = time.perf_counter() - t_scan
        todo = [f for f in files.values() if f.vectors is None and f.chunks]
        total = sum(len(f.chunks) for f in todo)
        embedder: TextEmbedder | None = None
        if todo or loading is not None:
            embedder = loading.result() if loading is not None else load()
    return _Scanned(files, chunked, scan_s, todo, total, embedder, escapes.count)


def _embed(scanned: _Scanned, meta: _Meta, out: Path, progress: Progress | None) -> tuple[float, list[float]]:
    """Embed the new chunks group by group, saving now and then; seconds spent embedding
    and the GPU utilisation of each group (on CUDA)."""
    embedder, files, total = scanned.embedder, scanned.files, scanned.total
    embed_s = 0.0
    done = 0
    saved = time.perf_counter()
    utilisation: list[float] = []
    group_size = GROUP_CHUNKS.get(str(getattr(embedder, "device", "cpu")).split(":")[0], 2048)
    for group in _groups(scanned.todo, group_size):
        assert embedder is not None
        t0 = time.perf_counter()
        vecs = embedder.encode([embedding_text(c) for f in group for c in f.chunks])
        embed_s += time.perf_counter() - t0
        if embedder.gpu_utilisation is not None:
            utilisation.append(embedder.gpu_utilisation)
        row = 0
        for f in group:
            f.vectors, row = vecs[row : row + len(f.chunks)], row + len(f.chunks)
        done += len(vecs)
        if progress is not None:
            progress(done, total)
        if done < total and time.perf_counter() - saved >= CHECKPOINT_SECONDS:
            write_index(out, _assemble(files, meta))
            saved = time.perf_counter()
    return embed_s, utilisation


def _stats(stored: StoredIndex, scanned: _Scanned, meta: _Meta, timings: _Timings,
           utilisation: list[float]) -> IndexStats:
    """What the build did and how fast."""
    embedder, total, seconds = scanned.embedder, scanned.total, timings.total
    return IndexStats(
        files=len(stored.manifest.files),
        chunks=len(stored.chunks),
        embedded=total,
        seconds=round(seconds, 3),
        chunks_per_s=round(total / seconds, 1) if total and seconds > 0 else 0.0,
        embed_chunks_per_s=round(total / timings.embed, 1) if total and timings.embed > 0 else 0.0,
        scan_seconds=round(timings.scan, 3),
        load_seconds=round(timings.load, 3),
        export_seconds=round(getattr(embedder, "export_seconds", 0.0) if timings.load else 0.0, 3),
        embed_seconds=round(timings.embed, 3),
        write_seconds=round(timings.write, 3),
        device=getattr(embedder, "device", None) or "cpu",
        model=meta.model,
        dtype=meta.dtype or "float32",
        backend=meta.backend or "torch",
        implementation=getattr(embedder, "implementation", None),
        fallback=getattr(embedder, "fallback", None),
        probe_min_cosine=getattr(embedder, "probe_min_cosine", None),
        gpu_utilisation=round(sum(utilisation) / len(utilisation), 3) if utilisation else None,
        chunk_tokens=meta.chunk_tokens,
        workers=scanned.chunked.workers,
        scan_fallback=scanned.chunked.fallback,
        refused_paths=scanned.refused,
    )


@dataclass(frozen=True)
class _Meta:
    root: str
    model: str
    dim: int
    chunk_tokens: int | None
    backend: str | None
    dtype: str | None


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


def _scan(
    root: Path, out: Path, old: StoredIndex | None, window: TokenWindow | None, workers: int | None,
    escapes: Escapes | None = None,
) -> tuple[dict[str, _File], Chunked]:
    """Every indexable file, with the vectors of unchanged ones carried over from ``old``."""
    inside = _relative_inside(out, root)
    files: dict[str, _File] = {}
    fresh: list[tuple[str, str, str]] = []  # rel, sha, text
    for rel in candidate_files(root, escapes):
        if inside is not None and (inside == "" or rel.startswith(inside + "/")):
            continue  # never index the index itself
        text = read_source(root / rel)
        if text is None:
            continue
        sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
        prev = old.manifest.files.get(rel) if old else None
        if old is not None and prev is not None and prev.sha256 == sha:
            rows = slice(prev.first, prev.first + prev.count)
            files[rel] = _File(sha, old.chunks[rows], old.vectors[rows])
        else:
            files[rel] = _File(sha, [], None)
            fresh.append((rel, sha, text))
    chunked = chunk_files([(rel, text) for rel, _, text in fresh], window, workers=workers)
    for (rel, _, _), chunks in zip(fresh, chunked.files, strict=True):
        f = files[rel]
        f.chunks = chunks
        if not chunks:
            f.vectors = np.zeros((0, 0), dtype=np.float32)
    return dict(sorted(files.items())), chunked


def _groups(todo: list[_File], size: int) -> list[list[_File]]:
    groups: list[list[_File]] = [[]]
    count = 0
    for f in todo:
        if count >= size:
            groups.append([])
            count = 0
        groups[-1].append(f)
        count += len(f.chunks)
    return [g for g in groups if g]


def _assemble(files: dict[str, _File], meta: _Meta) -> StoredIndex:
    """The index of the files embedded so far (files still waiting are left out)."""
    entries: dict[str, FileEntry] = {}
    chunks: list[Chunk] = []
    rows: list[np.ndarray] = []
    for rel, f in files.items():
        if f.vectors is None:
            continue
        entries[rel] = FileEntry.model_construct(sha256=f.sha256, first=len(chunks), count=len(f.chunks))
        if f.chunks:
            chunks.extend(f.chunks)
            rows.append(f.vectors)
    vectors = np.concatenate(rows) if rows else np.zeros((0, meta.dim), dtype=np.float32)
    manifest = Manifest(root=meta.root, model=meta.model, dim=meta.dim, chunks=len(chunks), files=entries,
                        chunk_tokens=meta.chunk_tokens, backend=meta.backend, dtype=meta.dtype,
                        text=WORDS)
    return StoredIndex(manifest, chunks, vectors)


def _relative_inside(path: Path, root: Path) -> str | None:
    """``path`` relative to ``root`` (``/`` separators) when it lies inside it, else ``None``."""
    try:
        rel = path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None
    return "" if rel == "." else rel
