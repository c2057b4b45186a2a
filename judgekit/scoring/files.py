"""File-level precision, recall and F1 against the ground-truth commit.

Example:
    >>> file_scores(["a", "b", "d", "e"], ["a", "b", "c"])
    FileScores(precision=0.5, recall=0.6666666666666666, f1=0.5714285714285715)
"""

from __future__ import annotations

from collections.abc import Collection
from typing import NamedTuple


class FileScores(NamedTuple):
    precision: float
    recall: float
    f1: float


def file_scores(agent: Collection[str], truth: Collection[str]) -> FileScores:
    """Precision 0 for an empty agent set, recall 0 for empty ground truth, F1 0 when both are 0."""
    a, t = set(agent), set(truth)
    hit = len(a & t)
    precision = hit / len(a) if a else 0.0
    recall = hit / len(t) if t else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return FileScores(precision, recall, f1)
