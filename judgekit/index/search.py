"""Query an index: the top-k chunks by cosine similarity to a query.

Example:
    >>> index = CodeIndex.open(".judgekit-index")          # doctest: +SKIP
    >>> [h.path for h in index.search("parse command line arguments", k=3)]   # doctest: +SKIP
    ['src/cli.py', 'src/cli.py', 'src/config.py']
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from judgekit.errors import ConfigError
from judgekit.index.embed import TextEmbedder
from judgekit.index.models import Chunk, Hit, Manifest
from judgekit.index.store import read_index
from judgekit.index.text import as_embedded


class CodeIndex:
    """An index loaded from disk; the query model is loaded on the first search."""

    def __init__(self, index_dir: Path, manifest: Manifest, chunks: list[Chunk], vectors: np.ndarray,
                 *, device: str | None = None, backend: str | None = None) -> None:
        self.index_dir = index_dir
        self.manifest = manifest
        self.chunks = chunks
        self.vectors = vectors
        self.device = device
        self.backend = backend

    @classmethod
    def open(cls, index_dir: str | Path, *, device: str | None = None, backend: str | None = None) -> CodeIndex:
        """Open an index directory; :class:`~judgekit.errors.InputError` when it is not one."""
        path = Path(index_dir)
        stored = read_index(path)
        return cls(path, stored.manifest, stored.chunks, stored.vectors, device=device, backend=backend)

    @property
    def root(self) -> Path:
        """The source tree the index was built from."""
        return Path(self.manifest.root)

    def embedder(self) -> TextEmbedder:
        """The query model (loaded once per process, shared with every index of the model)."""
        from judgekit.index.embed import get_embedder

        return get_embedder(self.manifest.model, device=self.device, backend=self.backend)

    def load_model(self) -> float:
        """Load the query model now; the seconds it took (0.0 when it was already loaded)."""
        from judgekit.index.embed import take_load_seconds

        return take_load_seconds(self.embedder())

    def embed_query(self, query: str) -> np.ndarray:
        """The unit vector of a query under the index's model, in the index's text form."""
        vector: np.ndarray = self.embedder().encode([as_embedded(query, self.manifest.text)])[0]
        return vector

    def search(self, query: str, k: int = 10) -> list[Hit]:
        """The ``k`` chunks most similar to ``query``, best first."""
        if k < 1:
            raise ConfigError(f"k must be at least 1, not {k}")
        if not self.chunks or not query.strip():
            return []
        scores = self.vectors @ self.embed_query(query)
        return self.top(scores, k)

    def top(self, scores: np.ndarray, k: int) -> list[Hit]:
        """Turn a score per chunk into the ``k`` best hits (ties broken by path and line)."""
        k = min(k, len(scores))
        part = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
        order = sorted(part.tolist(), key=lambda i: (-float(scores[i]), self.chunks[i].path, self.chunks[i].start_line))
        return [
            Hit(
                path=(c := self.chunks[i]).path,
                start_line=c.start_line,
                end_line=c.end_line,
                score=round(float(scores[i]), 6),
                kind=c.kind,
                text=c.text,
            )
            for i in order
        ]
