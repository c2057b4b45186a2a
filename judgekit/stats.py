"""Small, dependency-light statistics used throughout judgekit.

Example:
    >>> lo, hi = wilson_interval(8, 10)
    >>> round(lo, 3), round(hi, 3)
    (0.49, 0.943)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

Z95 = 1.959963984540054
DEFAULT_SEED = 20260210
DEFAULT_RESAMPLES = 2000


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion; ``(0, 0)`` is never returned for n > 0."""
    if n <= 0:
        return (0.0, 0.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


_CHUNK_ELEMENTS = 1 << 20
"""Random draws held at once by a bootstrap: its memory does not grow with resamples × n."""
_DISTINCT_LIMIT = 512


def _finite(values: Sequence[float] | np.ndarray) -> np.ndarray:
    arr = np.asarray(values, dtype=float).ravel()
    return arr[np.isfinite(arr)]


def bootstrap_means(values: Sequence[float] | np.ndarray, *, seed: int = DEFAULT_SEED,
                    resamples: int = DEFAULT_RESAMPLES) -> np.ndarray:
    """The means of ``resamples`` bootstrap resamples of ``values`` (non-finite values dropped).

    Values with few distinct levels (file scores, pass/fail) are resampled through the
    multinomial counts of those levels, which has the same distribution as drawing indices
    and costs resamples × levels; other values are drawn in chunks of bounded size.
    """
    arr = _finite(values)
    n = arr.size
    rng = np.random.default_rng(seed)
    levels, counts = np.unique(arr, return_counts=True)
    if levels.size <= _DISTINCT_LIMIT:
        draws = rng.multinomial(n, counts / n, size=resamples)
        return (draws @ levels) / n
    means = np.empty(resamples)
    step = max(1, _CHUNK_ELEMENTS // n)
    for start in range(0, resamples, step):
        stop = min(resamples, start + step)
        idx = rng.integers(0, n, size=(stop - start, n))
        means[start:stop] = arr[idx].mean(axis=1)
    return means


def bootstrap_mean_ci(values: Sequence[float] | np.ndarray, *, seed: int = DEFAULT_SEED,
                      resamples: int = DEFAULT_RESAMPLES) -> tuple[float, float]:
    """Percentile bootstrap 95% interval of the mean; seeded, so reproducible."""
    arr = _finite(values)
    if arr.size == 0:
        return (0.0, 0.0)
    if arr.size == 1 or np.all(arr == arr[0]):
        return (float(arr[0]), float(arr[0]))
    means = bootstrap_means(arr, seed=seed, resamples=resamples)
    return (float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5)))


def cluster_bootstrap_ratio_ci(sums: Sequence[float] | np.ndarray,
                               sizes: Sequence[float] | np.ndarray, *, seed: int = DEFAULT_SEED,
                               resamples: int = DEFAULT_RESAMPLES) -> tuple[float, float] | None:
    """95% interval of ``sum(sums) / sum(sizes)`` resampling whole clusters (tasks).

    Each cluster contributes the sum of its items' values and its item count, so items of one
    task are never treated as independent. Memory is bounded by chunking.
    """
    s = np.asarray(sums, dtype=float)
    w = np.asarray(sizes, dtype=float)
    k = s.size
    if k == 0 or w.sum() <= 0:
        return None
    if k == 1:
        value = float(s[0] / w[0])
        return (value, value)
    rng = np.random.default_rng(seed)
    ratios = np.empty(resamples)
    step = max(1, _CHUNK_ELEMENTS // k)
    for start in range(0, resamples, step):
        stop = min(resamples, start + step)
        counts = rng.multinomial(k, np.full(k, 1.0 / k), size=stop - start) \
            if k <= _DISTINCT_LIMIT else None
        if counts is None:
            idx = rng.integers(0, k, size=(stop - start, k))
            num, den = s[idx].sum(axis=1), w[idx].sum(axis=1)
        else:
            num, den = counts @ s, counts @ w
        ratios[start:stop] = num / np.where(den > 0, den, 1.0)
    return (float(np.percentile(ratios, 2.5)), float(np.percentile(ratios, 97.5)))


def sign_flip_p(differences: Sequence[float] | np.ndarray, *, seed: int = DEFAULT_SEED,
                resamples: int = 10_000) -> float:
    """Two-sided paired sign-flip (permutation) test of a zero mean difference.

    ``differences`` are per-cluster (per-task) sums. Exact over all sign patterns for up to
    16 non-zero clusters, else a seeded Monte Carlo estimate, drawn in bounded chunks.
    """
    d = _finite(differences)
    d = d[d != 0]
    k = d.size
    if k == 0:
        return 1.0
    observed = abs(d.sum())
    tol = 1e-9 * max(1.0, observed)
    if k <= 16:
        signs = ((np.arange(2**k)[:, None] >> np.arange(k)) & 1) * 2 - 1
        stats_ = np.abs(signs @ d)
        return float(np.mean(stats_ >= observed - tol))
    rng = np.random.default_rng(seed)
    hits = 0
    step = max(1, _CHUNK_ELEMENTS // k)
    for start in range(0, resamples, step):
        stop = min(resamples, start + step)
        signs = rng.integers(0, 2, size=(stop - start, k)).astype(np.float64)
        signs *= 2.0  # the same ±1.0 matrix the product casts integer signs to, made in place
        signs -= 1.0
        hits += int(np.sum(np.abs(signs @ d) >= observed - tol))
    return (hits + 1) / (resamples + 1)


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts ``b`` and ``c``."""
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from ``n`` attempts of which ``c`` passed."""
    if n - c < k:
        return 1.0
    return 1.0 - math.prod((n - c - i) / (n - i) for i in range(k))


def median(values: Sequence[float]) -> float | None:
    return float(np.median(values)) if len(values) else None


def percentile(values: Sequence[float], q: float) -> float | None:
    return float(np.percentile(values, q)) if len(values) else None


def cohen_kappa(a: Sequence[int], b: Sequence[int]) -> float:
    """Cohen's kappa of two raters over the same items (binary or categorical labels)."""
    n = len(a)
    if n == 0:
        return 0.0
    labels = sorted(set(a) | set(b))
    po = sum(x == y for x, y in zip(a, b)) / n
    pe = sum((list(a).count(lab) / n) * (list(b).count(lab) / n) for lab in labels)
    return 1.0 if pe == 1 else (po - pe) / (1 - pe)
