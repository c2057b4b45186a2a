"""Semantic similarity of two unified diffs: a secondary score next to file-level F1.

Each diff is reduced to its changed lines (``+``/``-``, headers dropped), cut into pieces
that fit the model, embedded, and mean-pooled into one unit vector; the score is the
cosine of the two vectors. Two empty diffs score 1.0, one empty diff scores 0.0.

Example:
    >>> changed_lines("--- a/x.py\\n+++ b/x.py\\n@@ -1 +1 @@\\n-a = 1\\n+a = 2\\n")
    ['-a = 1', '+a = 2']
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

PIECE_LINES = 24


def changed_lines(diff: str) -> list[str]:
    """The added and removed lines of a unified diff, with their ``+``/``-`` marks."""
    out = []
    for line in diff.splitlines():
        if line.startswith(("+++", "---")):
            continue
        if line.startswith(("+", "-")) and line[1:].strip():
            out.append(line)
    return out


def _pieces(lines: list[str]) -> list[str]:
    return ["\n".join(lines[i : i + PIECE_LINES]) for i in range(0, len(lines), PIECE_LINES)]


def _pool(vecs: np.ndarray, pieces: list[str]) -> np.ndarray:
    weights = np.array([p.count("\n") + 1 for p in pieces], dtype=np.float32)
    mean = (vecs * weights[:, None]).sum(axis=0)
    norm = float(np.linalg.norm(mean))
    pooled: np.ndarray = mean / norm if norm > 0 else mean
    return pooled


def diff_vectors(diffs: Sequence[str], *, model: str | None = None
                 ) -> dict[str, np.ndarray | None]:
    """Unit embeddings of distinct diffs, all pieces embedded in one batched call.

    A diff that changes nothing maps to ``None``.
    """
    from judgekit.index.embed import get_embedder

    pieces = {d: _pieces(changed_lines(d)) for d in dict.fromkeys(diffs)}
    flat = [p for ps in pieces.values() for p in ps]
    vecs = get_embedder(model).encode(flat) if flat else np.zeros((0, 0), dtype=np.float32)
    out: dict[str, np.ndarray | None] = {}
    start = 0
    for diff, ps in pieces.items():
        out[diff] = _pool(vecs[start:start + len(ps)], ps) if ps else None
        start += len(ps)
    return out


def diff_vector(diff: str, *, model: str | None = None) -> np.ndarray | None:
    """The unit embedding of a diff's changes, or ``None`` when it changes nothing."""
    return diff_vectors([diff], model=model)[diff]


def _cosine(va: np.ndarray | None, vb: np.ndarray | None) -> float:
    if va is None or vb is None:
        return 1.0 if va is None and vb is None else 0.0
    return round(float(np.clip(va @ vb, -1.0, 1.0)), 6)


def diff_similarity(diff_a: str, diff_b: str, *, model: str | None = None) -> float:
    """Cosine similarity in [-1, 1] between the embeddings of two unified diffs."""
    return diff_similarities([(diff_a, diff_b)], model=model)[0]


def diff_similarities(pairs: Sequence[tuple[str, str]], *, model: str | None = None
                      ) -> list[float]:
    """:func:`diff_similarity` of many pairs; each distinct diff is embedded once."""
    lines = {d: changed_lines(d) for pair in pairs for d in pair}
    # Only pairs of two different, non-empty changes need the model.
    todo = [d for a, b in pairs if lines[a] != lines[b] and lines[a] and lines[b] for d in (a, b)]
    vectors = diff_vectors(todo, model=model) if todo else {}
    return [1.0 if lines[a] == lines[b] else _cosine(vectors[a], vectors[b]) if lines[a] and lines[b] else 0.0
            for a, b in pairs]
