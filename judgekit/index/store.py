"""The on-disk index: ``manifest.json``, ``chunks.jsonl`` and ``vectors.npy`` in one directory.

Rows of ``vectors.npy`` (float32, unit length) and lines of ``chunks.jsonl`` line up; the
manifest maps each file to its content hash and its run of rows, which is what lets a
re-index keep the vectors of unchanged files. Files are written to temporary names and
renamed, so a crash never leaves a half-written index behind.

Example:
    >>> is_index(Path("/nonexistent"))
    False
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pydantic import TypeAdapter, ValidationError

from judgekit.errors import InputError
from judgekit.index.models import INDEX_FORMAT, Chunk, Manifest

MANIFEST = "manifest.json"
CHUNKS = "chunks.jsonl"
VECTORS = "vectors.npy"
_CHUNK_LIST = TypeAdapter(list[Chunk])


@dataclass
class StoredIndex:
    """An index read into memory."""

    manifest: Manifest
    chunks: list[Chunk]
    vectors: np.ndarray


def is_index(path: Path) -> bool:
    """True when ``path`` is a directory holding an index manifest."""
    return (path / MANIFEST).is_file()


def read_manifest(index_dir: Path) -> Manifest:
    """Read and validate ``manifest.json``; :class:`InputError` when it is not an index."""
    if not index_dir.is_dir():
        raise InputError(index_dir, None, "index directory does not exist")
    path = index_dir / MANIFEST
    if not path.is_file():
        raise InputError(index_dir, None, "not a judgekit index (no manifest.json); build one with 'judgekit index'")
    try:
        manifest = Manifest.model_validate_json(path.read_bytes())
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or None
        raise InputError(path, field, first["msg"]) from None
    if manifest.format != INDEX_FORMAT:
        raise InputError(path, "format", f"index format {manifest.format} is not {INDEX_FORMAT}; rebuild it")
    return manifest


def read_index(index_dir: Path) -> StoredIndex:
    """Read a whole index; :class:`InputError` when files are missing or disagree."""
    manifest = read_manifest(index_dir)
    try:
        vectors = np.load(index_dir / VECTORS, allow_pickle=False)
        lines = _lines((index_dir / CHUNKS).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(index_dir, None, f"unreadable index: {exc}") from None
    try:  # one validation call for the whole file; line by line only to name a bad line
        chunks = _CHUNK_LIST.validate_json("[" + ",".join(lines) + "]")
    except ValidationError:
        chunks = []
        for n, line in enumerate(lines, 1):
            try:
                chunks.append(Chunk.model_validate_json(line))
            except ValidationError as exc:
                raise InputError(index_dir / CHUNKS, f"line {n}", exc.errors()[0]["msg"]) from None
    if vectors.ndim != 2 or len(chunks) != vectors.shape[0] or len(chunks) != manifest.chunks:
        raise InputError(index_dir, None, "chunks, vectors and manifest disagree; rebuild the index")
    if len(chunks) and vectors.shape[1] != manifest.dim:
        raise InputError(index_dir / VECTORS, None, f"vectors have dimension {vectors.shape[1]}, manifest says {manifest.dim}")
    return StoredIndex(manifest, chunks, vectors.astype(np.float32, copy=False))


def read_rows(index_dir: Path) -> tuple[Manifest, list[str], np.ndarray]:
    """An index as its manifest, its ``chunks.jsonl`` lines (checked in one call, kept as
    text) and its vectors: what a refresh carries over without a model object per chunk."""
    manifest = read_manifest(index_dir)
    try:
        vectors = np.load(index_dir / VECTORS, allow_pickle=False)
        text = (index_dir / CHUNKS).read_text(encoding="utf-8")
    except (OSError, ValueError) as exc:
        raise InputError(index_dir, None, f"unreadable index: {exc}") from None
    lines = [line + "\n" for line in _lines(text)]
    try:
        _CHUNK_LIST.validate_json("[" + ",".join(lines) + "]")
    except ValidationError:
        read_index(index_dir)  # names the bad line
        raise
    if vectors.ndim != 2 or len(lines) != vectors.shape[0] or len(lines) != manifest.chunks:
        raise InputError(index_dir, None, "chunks, vectors and manifest disagree; rebuild the index")
    return manifest, lines, vectors.astype(np.float32, copy=False)


def write_index(index_dir: Path, stored: StoredIndex) -> None:
    """Write an index atomically file by file (manifest last, so readers see a whole index)."""
    write_rows(index_dir, stored.manifest, "".join(c.model_dump_json() + "\n" for c in stored.chunks),
               stored.vectors)


def write_rows(index_dir: Path, manifest: Manifest, lines: str, vectors: np.ndarray) -> None:
    """Write an index from its ``chunks.jsonl`` text in one piece (manifest last)."""
    index_dir.mkdir(parents=True, exist_ok=True)
    vec_tmp = index_dir / (VECTORS + ".tmp.npy")
    np.save(vec_tmp, np.ascontiguousarray(vectors, dtype=np.float32), allow_pickle=False)
    _write_text(index_dir / CHUNKS, lines)
    os.replace(vec_tmp, index_dir / VECTORS)
    _write_text(index_dir / MANIFEST, manifest.model_dump_json(indent=1) + "\n")


def _lines(text: str) -> list[str]:
    """The lines of a JSON Lines text: split at newlines only (a JSON string may hold other
    line separators, such as U+2028, unescaped)."""
    return [line for line in text.split("\n") if line]


def _write_text(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
