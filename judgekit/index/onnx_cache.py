"""Where the int8 ONNX copy of a model is kept, and the record of how it was made.

The copy lies beside the model (``<model>/onnx/``) or, when that directory is read-only,
under ``$XDG_CACHE_HOME/judgekit/onnx/`` (``~/.cache`` by default), next to a small JSON
record (:class:`OnnxExport`) of its inputs, pooling and probe cosines. A record is trusted
only while the model's files are unchanged (:func:`fingerprint`). :mod:`.onnx_export`
makes the copy; :mod:`.onnx_embed` runs it.

Example:
    >>> info = find_export(model_dir)             # doctest: +SKIP
    >>> info is None or info.usable               # doctest: +SKIP
    True
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, replace
from pathlib import Path

FORMAT = 3
INT8_FILE = "judgekit-int8.onnx"
META_FILE = "judgekit-int8.json"
#: Quantised embeddings must stay this close (cosine, worst probe) to fp32 ones to be used.
MIN_INT8_COSINE = 0.97


@dataclass(frozen=True)
class OnnxExport:
    """Where the int8 model lies and what the export measured."""

    path: str
    source: str
    inputs: list[str]
    pooling: str
    normalize: bool
    max_length: int
    dim: int
    probe_min_cosine: float
    probe_mean_cosine: float
    export_seconds: float
    fingerprint: str
    format: int = FORMAT

    @property
    def usable(self) -> bool:
        """True when the int8 model kept quality on the probe texts."""
        return self.probe_min_cosine >= MIN_INT8_COSINE


def cache_dir_for(model_dir: Path) -> Path:
    """``<model>/onnx`` when writable, else a per-model folder in the user's cache."""
    beside = model_dir / "onnx"
    if _writable(beside if beside.exists() else model_dir):
        return beside
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    digest = hashlib.sha256(str(model_dir.resolve()).encode()).hexdigest()[:16]
    return base / "judgekit" / "onnx" / f"{model_dir.name}-{digest}"


def _writable(path: Path) -> bool:
    return path.is_dir() and os.access(path, os.W_OK | os.X_OK)


def fingerprint(model_dir: Path) -> str:
    """Changes when the model's weights or configuration change."""
    parts = []
    for name in sorted(os.listdir(model_dir)):
        p = model_dir / name
        if p.is_file() and (name.endswith((".safetensors", ".bin", ".json")) or name == "vocab.txt"):
            st = p.stat()
            parts.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:24]


def find_export(model_dir: Path, cache: Path | None = None) -> OnnxExport | None:
    """The cached export of ``model_dir`` when it exists and is up to date."""
    folder = cache or cache_dir_for(model_dir)
    meta = folder / META_FILE
    try:
        data = json.loads(meta.read_text(encoding="utf-8"))
        info = OnnxExport(**data)
    except (OSError, ValueError, TypeError):
        return None
    local = folder / INT8_FILE  # the folder may have moved with the model: trust it, not the stored path
    if info.format != FORMAT or info.fingerprint != fingerprint(model_dir) or not local.is_file():
        return None
    return replace(info, path=str(local))
