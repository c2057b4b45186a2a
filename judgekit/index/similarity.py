"""Semantic similarity of two unified diffs: a secondary score next to file-level F1.

Each diff is reduced to its changed lines (``+``/``-``, headers dropped), cut into pieces
that fit the model, embedded, and mean-pooled into one unit vector; the score is the
cosine of the two vectors. Two empty diffs score 1.0, one empty diff scores 0.0.

Example:
    >>> changed_lines("--- a/x.py\\n+++ b/x.py\\n@@ -1 +1 @@\\n-a = 1\\n+a = 2\\n")
    ['-a = 1', '+a = 2']
"""

from __future__ import annotations

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


def diff_vector(diff: str, *, model: str | None = None) -> np.ndarray | None:
    """The unit embedding of a diff's changes, or ``None`` when it changes nothing."""
    from judgekit.index.embed import get_embedder

    pieces = _pieces(changed_lines(diff))
    if not pieces:
        return None
    vecs = get_embedder(model).encode(pieces)
    weights = np.array([p.count("\n") + 1 for p in pieces], dtype=np.float32)
    mean = (vecs * weights[:, None]).sum(axis=0)
    norm = float(np.linalg.norm(mean))
    return mean / norm if norm > 0 else mean


def diff_similarity(diff_a: str, diff_b: str, *, model: str | None = None) -> float:
    """Cosine similarity in [-1, 1] between the embeddings of two unified diffs."""
    if changed_lines(diff_a) == changed_lines(diff_b):
        return 1.0
    va, vb = diff_vector(diff_a, model=model), diff_vector(diff_b, model=model)
    if va is None or vb is None:
        return 0.0
    return round(float(np.clip(va @ vb, -1.0, 1.0)), 6)
