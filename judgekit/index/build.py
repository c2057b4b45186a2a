"""Build or refresh an index directory from a source tree.

Only files that are new or whose content hash changed are chunked and embedded; the
vectors of unchanged files are carried over and deleted files are dropped. Changing the
model rebuilds everything.

Example:
    >>> stats = build_index("src", ".judgekit-index")    # doctest: +SKIP
    >>> stats.embedded <= stats.chunks                      # doctest: +SKIP
    True
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

import numpy as np

from judgekit.errors import InputError
from judgekit.index.chunking import chunk_text, embedding_text
from judgekit.index.files import candidate_files, read_source
from judgekit.index.models import Chunk, FileEntry, IndexStats, Manifest
from judgekit.index.store import StoredIndex, is_index, read_index, write_index


def build_index(
    root: str | Path,
    out_dir: str | Path,
    *,
    model: str | None = None,
    device: str | None = None,
    batch_size: int | None = None,
    dtype: str | None = None,
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

    kept_chunks: list[Chunk] = []
    kept_rows: list[np.ndarray] = []
    new_chunks: list[Chunk] = []
    entries: dict[str, tuple[str, list[Chunk], np.ndarray | None]] = {}
    inside = _relative_inside(out_p, root_p)
    for rel in candidate_files(root_p):
        if inside is not None and (inside == "" or rel.startswith(inside + "/")):
            continue  # never index the index itself
        text = read_source(root_p / rel)
        if text is None:
            continue
        sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
        prev = old.manifest.files.get(rel) if old else None
        if old is not None and prev is not None and prev.sha256 == sha:
            rows = slice(prev.first, prev.first + prev.count)
            entries[rel] = (sha, old.chunks[rows], old.vectors[rows])
        else:
            chunks = chunk_text(rel, text)
            entries[rel] = (sha, chunks, None)
            new_chunks.extend(chunks)

    embedder = get_embedder(model, device=device, batch_size=batch_size, dtype=dtype) if new_chunks else None
    embed_began = time.perf_counter()
    fresh = embedder.encode([embedding_text(c) for c in new_chunks]) if embedder else None
    embed_s = time.perf_counter() - embed_began

    files: dict[str, FileEntry] = {}
    cursor = 0
    offset = 0
    for rel, (sha, chunks, vecs) in entries.items():
        if not chunks:
            files[rel] = FileEntry(sha256=sha, first=offset, count=0)
            continue
        if vecs is None:
            assert fresh is not None
            vecs = fresh[cursor : cursor + len(chunks)]
            cursor += len(chunks)
        files[rel] = FileEntry(sha256=sha, first=offset, count=len(chunks))
        kept_chunks.extend(chunks)
        kept_rows.append(vecs)
        offset += len(chunks)

    dim = embedder.dim if embedder else (old.manifest.dim if old else 0)
    vectors = np.concatenate(kept_rows) if kept_rows else np.zeros((0, dim), dtype=np.float32)
    manifest = Manifest(root=str(root_p.resolve()), model=name, dim=dim, chunks=len(kept_chunks), files=files)
    write_index(out_p, StoredIndex(manifest, kept_chunks, vectors))
    return IndexStats(
        files=len(files),
        chunks=len(kept_chunks),
        embedded=len(new_chunks),
        seconds=round(time.perf_counter() - began, 3),
        chunks_per_s=round(len(new_chunks) / embed_s, 1) if new_chunks and embed_s > 0 else 0.0,
        device=embedder.device if embedder else _device_name(device),
        model=name,
        dtype=embedder.dtype if embedder else "float32",
    )


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
