"""Build or refresh an index directory from a source tree.

Only files that are new or whose content hash changed are chunked and embedded; the
vectors of unchanged files are carried over and deleted files are dropped. Changing the
model rebuilds everything. New chunks are embedded in groups of files; after a group the
index is saved when a minute has passed since the last save, so an interrupted build of
a large repository resumes where it stopped.

Example:
    >>> stats = build_index("src", ".judgekit-index")    # doctest: +SKIP
    >>> stats.embedded <= stats.chunks                      # doctest: +SKIP
    True
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from judgekit.errors import InputError
from judgekit.index.chunking import chunk_text, embedding_text
from judgekit.index.files import candidate_files, read_source
from judgekit.index.models import Chunk, FileEntry, IndexStats, Manifest
from judgekit.index.store import StoredIndex, is_index, read_index, write_index

#: Chunks embedded per group (length buckets are formed within a group).
GROUP_CHUNKS = 4096
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
    progress: Progress | None = None,
) -> IndexStats:
    """Index the source files under ``root`` into ``out_dir`` (created or refreshed).

    ``dtype`` forces ``float32``, ``float16`` or ``bfloat16``; by default the fastest
    numerics that keep quality on the device are used.
    """
    from judgekit.index.embed import get_embedder, resolve_model

    began = time.perf_counter()
    root_p, out_p = Path(root), Path(out_dir)
    if not root_p.is_dir():
        raise InputError(root_p, None, "source directory does not exist")
    if out_p.exists() and (not out_p.is_dir() or (any(out_p.iterdir()) and not is_index(out_p))):
        raise InputError(out_p, None, "exists and is not a judgekit index; choose another --out")
    name = resolve_model(model)[0]
    old = read_index(out_p) if is_index(out_p) else None
    if old is not None and old.manifest.model != name:
        old = None

    files = _scan(root_p, out_p, old)
    todo = [f for f in files.values() if f.vectors is None and f.chunks]
    total = sum(len(f.chunks) for f in todo)
    embedder = get_embedder(model, device=device, batch_size=batch_size, dtype=dtype) if todo else None
    dim = embedder.dim if embedder else (old.manifest.dim if old else 0)
    manifest_root = str(root_p.resolve())
    embed_s = 0.0
    done = 0
    saved = time.perf_counter()
    for group in _groups(todo, GROUP_CHUNKS):
        assert embedder is not None
        t0 = time.perf_counter()
        vecs = embedder.encode([embedding_text(c) for f in group for c in f.chunks])
        embed_s += time.perf_counter() - t0
        row = 0
        for f in group:
            f.vectors, row = vecs[row : row + len(f.chunks)], row + len(f.chunks)
        done += len(vecs)
        if progress is not None:
            progress(done, total)
        if done < total and time.perf_counter() - saved >= CHECKPOINT_SECONDS:
            write_index(out_p, _assemble(files, manifest_root, name, dim))
            saved = time.perf_counter()

    stored = _assemble(files, manifest_root, name, dim)
    write_index(out_p, stored)
    return IndexStats(
        files=len(stored.manifest.files),
        chunks=len(stored.chunks),
        embedded=total,
        seconds=round(time.perf_counter() - began, 3),
        chunks_per_s=round(total / embed_s, 1) if total and embed_s > 0 else 0.0,
        device=embedder.device if embedder else _device_name(device),
        model=name,
        dtype=embedder.dtype if embedder else "float32",
    )


def _scan(root: Path, out: Path, old: StoredIndex | None) -> dict[str, _File]:
    """Every indexable file, with the vectors of unchanged ones carried over from ``old``."""
    inside = _relative_inside(out, root)
    files: dict[str, _File] = {}
    for rel in candidate_files(root):
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
            chunks = chunk_text(rel, text)
            files[rel] = _File(sha, chunks, None if chunks else np.zeros((0, 0), dtype=np.float32))
    return files


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


def _assemble(files: dict[str, _File], root: str, model: str, dim: int) -> StoredIndex:
    """The index of the files embedded so far (files still waiting are left out)."""
    entries: dict[str, FileEntry] = {}
    chunks: list[Chunk] = []
    rows: list[np.ndarray] = []
    for rel, f in files.items():
        if f.vectors is None:
            continue
        entries[rel] = FileEntry(sha256=f.sha256, first=len(chunks), count=len(f.chunks))
        if f.chunks:
            chunks.extend(f.chunks)
            rows.append(f.vectors)
    vectors = np.concatenate(rows) if rows else np.zeros((0, dim), dtype=np.float32)
    manifest = Manifest(root=root, model=model, dim=dim, chunks=len(chunks), files=entries)
    return StoredIndex(manifest, chunks, vectors)


def _relative_inside(path: Path, root: Path) -> str | None:
    """``path`` relative to ``root`` (``/`` separators) when it lies inside it, else ``None``."""
    try:
        rel = path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None
    return "" if rel == "." else rel


def _device_name(device: str | None) -> str:
    from judgekit.index.embed import pick_device

    return pick_device(device)
