"""The prediction-powered interval's coverage, measured by simulation with a known truth.

1,000 items, 50 labelled uniformly at random; the judge is wrong on a quarter of the items,
always toward one side. The figures in full (more replicates, PPI++, other truths) come
from ``bench/ppi_coverage.py``.
"""

from __future__ import annotations

import numpy as np

from judgekit import stats

ITEMS, LABELLED, REPLICATES = 1000, 50, 1000


def _biased_judge(rng: np.random.Generator, truth: float) -> tuple[np.ndarray, np.ndarray]:
    """Labels drawn with mean ``truth`` and a judge that calls every 1 right and wrongly
    calls 1 as many 0s as make it wrong on 25% of the items."""
    y = (rng.random(ITEMS) < truth).astype(float)
    yhat = np.where(y == 1, 1.0, (rng.random(ITEMS) < 0.25 / (1 - truth)).astype(float))
    return y, yhat


def test_ppi_covers_the_truth_and_the_judge_alone_does_not() -> None:
    rng = np.random.default_rng(2026)
    ppi = judge = 0
    for _ in range(REPLICATES):
        y, yhat = _biased_judge(rng, 0.5)
        order = rng.permutation(ITEMS)
        lab, unl = order[:LABELLED], order[LABELLED:]
        truth = y.mean()  # the share over the judged items, which the estimate is of
        _, lo, hi, _ = stats.ppi_mean(y[lab], yhat[lab], yhat[unl], lam=1.0)
        ppi += lo <= truth <= hi
        _, lo, hi = stats.classical_mean_ci(yhat)
        judge += lo <= truth <= hi
    assert 0.935 <= ppi / REPLICATES <= 0.965
    assert judge / REPLICATES < 0.5


def test_ppi_is_narrower_than_the_labels_alone_with_a_judge_right_80_percent() -> None:
    rng = np.random.default_rng(51)
    widths: dict[object, list[float]] = {"labels": [], 1.0: [], None: []}
    for _ in range(300):
        y = (rng.random(ITEMS) < 0.5).astype(float)
        yhat = np.where(rng.random(ITEMS) < 0.2, 1 - y, y)
        order = rng.permutation(ITEMS)
        lab, unl = order[:LABELLED], order[LABELLED:]
        _, lo, hi = stats.classical_mean_ci(y[lab])
        widths["labels"].append(hi - lo)
        for lam in (1.0, None):
            _, lo, hi, _ = stats.ppi_mean(y[lab], yhat[lab], yhat[unl], lam=lam)
            widths[lam].append(hi - lo)
    labels = np.array(widths["labels"])
    assert np.mean(widths[1.0]) < 0.95 * np.mean(labels)  # plain PPI: narrower on average
    assert np.mean(np.array(widths[None]) < labels) > 0.95  # PPI++: in nearly every sample


def test_the_label_budget_reaches_its_width() -> None:
    """The count planned from 50 labels, once labelled, gives ±0.05 or narrower in at least
    90% of replicates."""
    rng = np.random.default_rng(7)
    reached, replicates = 0, 200
    for _ in range(replicates):
        y, yhat = _biased_judge(rng, 0.5)
        order = rng.permutation(ITEMS)
        need = stats.ppi_labels_needed(y[order[:LABELLED]], yhat[order[:LABELLED]],
                                       yhat[order[LABELLED:]], 0.05)
        assert need is not None and need >= LABELLED
        lab, unl = order[:need], order[need:]
        _, lo, hi, _ = stats.ppi_mean(y[lab], yhat[lab], yhat[unl], lam=None)
        reached += (hi - lo) / 2 <= 0.05
    assert reached / replicates >= 0.9
