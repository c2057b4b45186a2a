"""Agreement between two judged outputs: do two judges (or juries, or runs) pick the same?

Each output's ``pairwise.jsonl`` gives, per compared pair and dimension, a verdict: the
first of the two arms in name order (``A``), the second (``B``) or a draw. Comparisons are
matched by task, arms (in either order) and attempts; each matched (pair, dimension) with a
valid verdict in both outputs is one item. With a jury's output the verdict is the jury's.

Left out and counted: pairs only one output has, identical changes (a draw decided without
a call, in either output) and dimensions without a valid verdict in either. Reported per
dimension and pooled: the items, how many agree and their share, Cohen's kappa over A, B,
draw with a percentile bootstrap interval over matched pairs, and the confusion matrix
(the first output's verdict by rows, the second's by columns).

Example:
    >>> d = dimension_agreement([("A", "A", 0), ("B", "draw", 1), ("B", "B", 2)])
    >>> d.n, d.agreeing, round(d.share_agreeing, 3), d.confusion["a_B_b_draw"]
    (3, 2, 0.667, 1)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, Field

from judgekit import stats
from judgekit.errors import InputError
from judgekit.pairwise.records import PairRecord
from judgekit.pairwise.verdict import DIMENSIONS

LABELS: tuple[str, ...] = ("A", "B", "draw")
CI_METHOD = "percentile bootstrap over matched pairs, 95%"

#: (task, first arm, second arm, attempt of the first, attempt of the second), arms in
#: name order.
PairKey = tuple[str, str, str, int, int]
#: (verdict of the first output, verdict of the second, matched pair index).
Vote = tuple[str, str, int]


class DimensionAgreement(BaseModel):
    """How often two outputs agree on one dimension (or on all of them pooled)."""

    n: int = Field(description="Matched (pair, dimension) items with a valid verdict in "
                               "both outputs.")
    agreeing: int = Field(0, description="Items where both outputs name the same arm, or "
                                         "both a draw.")
    share_agreeing: float | None = None
    kappa: float | None = Field(None, description="Cohen's kappa over A, B, draw.")
    kappa_ci: tuple[float, float] | None = Field(None, description=CI_METHOD)
    kappa_note: str | None = Field(None, description="Why kappa or its interval is not "
                                                     "given.")
    confusion: dict[str, int] = Field(
        default_factory=dict, description="a_<verdict>_b_<verdict> → items: the first "
                                          "output's verdict, then the second's.")


class OutputComparison(BaseModel):
    """``judgekit compare OUT_A OUT_B``: agreement of two judged outputs."""

    a: str = Field(description="The first output's records file.")
    b: str = Field(description="The second output's records file.")
    judge_a: str | None = Field(None, description="The first output's judge (or jury).")
    judge_b: str | None = None
    n_matched: int = Field(0, description="Compared pairs both outputs hold.")
    only_in_a: int = Field(0, description="Compared pairs only the first output holds.")
    only_in_b: int = 0
    left_out: dict[str, int] = Field(
        default_factory=dict, description="Matched (pair, dimension) items left out, by "
                                          "reason: identical (a draw decided without a "
                                          "call), no_verdict (unscored or error in either).")
    pooled: DimensionAgreement = Field(description="Every dimension together.")
    by_dimension: dict[str, DimensionAgreement] = Field(default_factory=dict)
    seed: int = stats.DEFAULT_SEED


def dimension_agreement(votes: Sequence[Vote], *, seed: int = stats.DEFAULT_SEED,
                        resamples: int = stats.DEFAULT_RESAMPLES) -> DimensionAgreement:
    """Share agreeing, kappa with its interval, and the confusion matrix of ``votes``."""
    n = len(votes)
    agreeing = sum(a == b for a, b, _ in votes)
    cells = Counter(f"a_{a}_b_{b}" for a, b, _ in votes)
    out = DimensionAgreement(
        n=n, agreeing=agreeing, share_agreeing=agreeing / n if n else None,
        confusion={f"a_{x}_b_{y}": cells.get(f"a_{x}_b_{y}", 0) for x in LABELS
                   for y in LABELS})
    if not n:
        out.kappa_note = "no item to compare"
        return out
    m = np.zeros((3, 3))
    for a, b, _ in votes:
        m[LABELS.index(a), LABELS.index(b)] += 1
    out.kappa = stats.kappa_from_confusion(m)
    if out.kappa is None:
        out.kappa_note = "both outputs gave every item the same verdict: kappa is undefined"
        return out
    if len({a for a, _, _ in votes}) == 1 or len({b for _, b, _ in votes}) == 1:
        out.kappa_note = "one output gave every item the same verdict: no interval"
        return out
    out.kappa_ci, _ = stats.kappa_bootstrap_ci(
        [LABELS.index(a) for a, _, _ in votes], [LABELS.index(b) for _, b, _ in votes],
        [k for _, _, k in votes], k=len(LABELS), seed=seed, resamples=resamples)
    return out


def _key(rec: PairRecord) -> tuple[PairKey, bool]:
    """The record's key, and whether its arms are in name order."""
    if rec.arm_a <= rec.arm_b:
        return (rec.task_id, rec.arm_a, rec.arm_b, rec.attempt_a, rec.attempt_b), True
    return (rec.task_id, rec.arm_b, rec.arm_a, rec.attempt_b, rec.attempt_a), False


def keyed(records: Sequence[PairRecord], path: str) -> dict[PairKey, PairRecord]:
    """Records by key; the same comparison twice is an :class:`InputError`."""
    out: dict[PairKey, PairRecord] = {}
    for n, rec in enumerate(records, 1):
        key, _ = _key(rec)
        if key in out:
            raise InputError(path, f"line {n}", f"compares {rec.task_id} / {rec.arm_a} vs "
                                                f"{rec.arm_b} a second time")
        out[key] = rec
    return out


def _label(rec: PairRecord, dim: str) -> str | None:
    """A, B (in arm name order) or draw; None without a valid verdict."""
    d = rec.dimensions.get(dim)
    if d is None or d.state != "valid":
        return None
    first, second = sorted((rec.arm_a, rec.arm_b))
    return "A" if d.winner == first else "B" if d.winner == second else "draw"


def compare_outputs(a: Sequence[PairRecord], b: Sequence[PairRecord], *, path_a: str = "a",
                    path_b: str = "b", judge_a: str | None = None, judge_b: str | None = None,
                    seed: int = stats.DEFAULT_SEED,
                    resamples: int = stats.DEFAULT_RESAMPLES) -> OutputComparison:
    """Per dimension and pooled, how the verdicts of ``a`` and ``b`` agree."""
    in_a, in_b = keyed(a, path_a), keyed(b, path_b)
    matched = [k for k in in_a if k in in_b]
    votes: dict[str, list[Vote]] = {dim: [] for dim in DIMENSIONS}
    left: Counter[str] = Counter()
    for index, key in enumerate(matched):
        ra, rb = in_a[key], in_b[key]
        for dim in DIMENSIONS:
            if ra.identical or rb.identical:
                left["identical"] += 1
                continue
            va, vb = _label(ra, dim), _label(rb, dim)
            if va is None or vb is None:
                left["no_verdict"] += 1
                continue
            votes[dim].append((va, vb, index))
    pooled = [v for dim in DIMENSIONS for v in votes[dim]]
    return OutputComparison(
        a=path_a, b=path_b, judge_a=judge_a, judge_b=judge_b, n_matched=len(matched),
        only_in_a=len(in_a) - len(matched), only_in_b=len(in_b) - len(matched),
        left_out=dict(sorted(left.items())),
        pooled=dimension_agreement(pooled, seed=seed, resamples=resamples),
        by_dimension={dim: dimension_agreement(votes[dim], seed=seed, resamples=resamples)
                      for dim in DIMENSIONS},
        seed=seed)
