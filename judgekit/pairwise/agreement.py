"""How far the judges of a jury agree: Krippendorff's alpha, nominal, with missing values.

Each *unit* is one dimension of one compared pair; each judge gives it a value (``"a"``,
``"b"`` or ``"draw"``) or none (its calls failed or went unanswered: a missing value, which
alpha allows). Alpha is ``1 - D_o / D_e``: the disagreement observed between judges on
the same unit over the disagreement expected by chance from how often each value was used.
1 is perfect agreement, 0 agreement no better than chance, below 0 systematic
disagreement. Units with fewer than two values do not count. The 95% interval is a
percentile bootstrap over the compared pairs (a pair's dimensions move together).

Example:
    >>> units = [("p1", ["a", "a", "a"]), ("p2", ["b", "b", None]), ("p3", ["draw", "a", "a"])]
    >>> round(krippendorff_alpha([v for _, v in units]), 3)
    0.588
    >>> krippendorff_alpha([["a", "a"], ["a", "a"]]) is None   # no variation: undefined
    True
"""

from __future__ import annotations

from collections.abc import Sequence
import numpy as np

from judgekit.pairwise.models import JuryAgreementEntry

#: bootstrap resamples of the alpha interval.
ALPHA_BOOTSTRAP = 1000

Unit = Sequence[str | None]


def _tables(units: Sequence[Unit]) -> tuple[np.ndarray, np.ndarray]:
    """Per unit: the count of each value, and its within-unit disagreement
    ``(m² - Σ n_c²) / (m - 1)`` (0 for units with fewer than two values, whose counts are
    zeroed: they are not pairable)."""
    values = sorted({v for u in units for v in u if v is not None})
    index = {v: i for i, v in enumerate(values)}
    counts = np.zeros((len(units), max(len(values), 1)))
    for row, unit in enumerate(units):
        for v in unit:
            if v is not None:
                counts[row, index[v]] += 1
    m = counts.sum(axis=1)
    pairable = m >= 2
    counts[~pairable] = 0
    m = np.where(pairable, m, 0)
    d = np.where(pairable, (m * m - (counts ** 2).sum(axis=1)) / np.maximum(m - 1, 1), 0.0)
    return counts, d


def _alpha(counts: np.ndarray, d: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Alpha for each row of ``weights`` (how many times each unit, or group of units, is
    taken); ``counts`` and ``d`` are per unit (or summed per group)."""
    n_c = weights @ counts
    n = n_c.sum(axis=1)
    expected = n * n - (n_c ** 2).sum(axis=1)
    observed = (n - 1) * (weights @ d)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(expected > 0, 1.0 - observed / expected, np.nan)


def krippendorff_alpha(units: Sequence[Unit]) -> float | None:
    """Nominal alpha of ``units`` (each one judge's value or None per judge); None when it is
    undefined (fewer than two pairable values, or every value the same)."""
    if not units:
        return None
    counts, d = _tables(units)
    value = float(_alpha(counts, d, np.ones((1, len(units))))[0])
    return None if np.isnan(value) else value


def agreement(units: Sequence[tuple[str, Unit]], *, seed: int = 0,
              resamples: int = ALPHA_BOOTSTRAP) -> JuryAgreementEntry:
    """Alpha of ``(group, values)`` units with a 95% bootstrap interval resampling groups
    (the compared pairs), and the number of units and groups that counted."""
    if not units:
        return JuryAgreementEntry()
    counts, d = _tables([u for _, u in units])
    groups = sorted({g for g, _ in units})
    gindex = {g: i for i, g in enumerate(groups)}
    pairable = counts.sum(axis=1) >= 2
    # alpha is built from sums over units, so a group enters only through its own sums
    rows = np.array([gindex[g] for g, _ in units])
    g_counts = np.zeros((len(groups), counts.shape[1]))
    np.add.at(g_counts, rows, counts)
    g_d = np.bincount(rows, weights=d, minlength=len(groups))
    point = _alpha(g_counts, g_d, np.ones((1, len(groups))))[0]
    out = JuryAgreementEntry(
        alpha=None if np.isnan(point) else round(float(point), 4),
        n_units=int(pairable.sum()),
        n_pairs=int(len({g for (g, _), p in zip(units, pairable) if p})))
    if out.alpha is None:
        return out
    rng = np.random.default_rng(seed)
    drawn = rng.multinomial(len(groups), np.full(len(groups), 1 / len(groups)),
                            size=resamples).astype(float)
    stats = _alpha(g_counts, g_d, drawn)
    stats = stats[~np.isnan(stats)]
    if stats.size:
        lo, hi = np.percentile(stats, [2.5, 97.5])
        out.ci = (round(float(lo), 4), round(float(hi), 4))
    return out
