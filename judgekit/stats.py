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


def wilson_interval(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
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
    finite: np.ndarray = arr[np.isfinite(arr)]
    return finite


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
        multinomial_means: np.ndarray = (draws @ levels) / n
        return multinomial_means
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


_T975 = (12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004,
         2.262157, 2.228139, 2.200985, 2.178813, 2.160369, 2.144787, 2.13145, 2.119905,
         2.109816, 2.100922, 2.093024, 2.085963, 2.079614, 2.073873, 2.068658, 2.063899,
         2.059539, 2.055529, 2.051831, 2.048407, 2.04523, 2.042272)
"""The 97.5% quantile of Student's t for 1 to 30 degrees of freedom."""


def t_critical(df: int) -> float:
    """The 97.5% quantile of Student's t with ``df`` degrees of freedom (a 95% interval's
    half-width in standard errors): tabulated up to 30, a Cornish-Fisher expansion beyond
    (error below 1e-7).

    Example:
        >>> t_critical(3), round(t_critical(1000), 4)
        (3.182446, 1.9623)
    """
    if df < 1:
        raise ValueError("t_critical needs at least 1 degree of freedom")
    if df <= len(_T975):
        return _T975[df - 1]
    z = Z95
    terms = ((z**3 + z) / 4, (5 * z**5 + 16 * z**3 + 3 * z) / 96,
             (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384,
             (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160)
    correction: float = sum(t / df ** (i + 1) for i, t in enumerate(terms))
    return z + correction


def _cluster_totals(values: np.ndarray, clusters: Sequence[object]
                    ) -> tuple[np.ndarray, np.ndarray]:
    _, inverse = np.unique(np.array([str(c) for c in clusters], dtype=object),
                           return_inverse=True)
    return np.bincount(inverse, weights=values), np.bincount(inverse).astype(float)


def clustered_se(values: Sequence[float] | np.ndarray,
                 clusters: Sequence[object]) -> float | None:
    """Clustered (Liang-Zeger, CR1) standard error of the mean of ``values``, whose items
    fall into ``clusters`` (one label per value).

    With ``S_g`` the sum and ``n_g`` the count of cluster g, and ``m`` the mean, the variance
    is ``G/(G-1) * sum_g (S_g - m n_g)^2 / n^2``: items of one cluster may be correlated in
    any way, clusters are independent. With every item its own cluster this is the usual
    standard error. ``None`` with fewer than two clusters.

    Example:
        >>> round(clustered_se([0, 1, 1, 2], ["a", "a", "b", "b"]), 3)  # means 0.5 and 1.5
        0.5
    """
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return None
    sums, sizes = _cluster_totals(x, clusters)
    g = sums.size
    if g < 2:
        return None
    m = x.mean()
    return float(math.sqrt(g / (g - 1) * np.sum((sums - m * sizes) ** 2)) / x.size)


def _iid_se(x: np.ndarray) -> float:
    """The standard error with every item its own cluster."""
    return (clustered_se(x, range(x.size)) or 0.0) if x.size > 1 else 0.0


def clustered_mean_ci(values: Sequence[float] | np.ndarray, clusters: Sequence[object], *,
                      bounds: tuple[float, float] | None = None) -> tuple[float, float] | None:
    """95% interval of the mean of ``values`` clustered by ``clusters``: the mean plus or
    minus Student's t on G-1 degrees of freedom times the clustered standard error
    (:func:`clustered_se`), never below the standard error that treats every item as its own
    cluster; clipped to ``bounds``. ``None`` with fewer than two clusters.

    Example:
        >>> clustered_mean_ci([0, 1, 1, 2], ["a", "a", "b", "b"], bounds=(0, 2))
        (0.0, 2.0)
    """
    x = np.asarray(values, dtype=float)
    se = clustered_se(x, clusters)
    if se is None:
        return None
    g = len({str(c) for c in clusters})
    half = t_critical(g - 1) * max(se, _iid_se(x))
    lo, hi = float(x.mean()) - half, float(x.mean()) + half
    if bounds is not None:
        lo, hi = max(bounds[0], lo), min(bounds[1], hi)
    return (lo + 0.0, hi + 0.0)


def clustered_wilson_interval(passed: Sequence[float] | np.ndarray,
                              clusters: Sequence[object]) -> tuple[float, float] | None:
    """95% interval of a pass rate clustered by ``clusters``: the Wilson interval on the
    effective sample size n / design effect (the clustered variance over the binomial one,
    at least 1) with Student's t on G-1 degrees of freedom for z. A rate of 0% or 100%
    keeps a non-empty interval, as Wilson's does. ``None`` with fewer than two clusters.

    Example:
        >>> lo, hi = clustered_wilson_interval([0] * 10 + [1] * 10, ["a"] * 10 + ["b"] * 10)
        >>> round(lo, 3), round(hi, 3)
        (0.002, 0.998)
    """
    x = np.asarray(passed, dtype=float)
    se = clustered_se(x, clusters)
    if se is None:
        return None
    n, p = x.size, float(x.mean())
    binomial = p * (1 - p) / n
    deff = max(1.0, se * se / binomial) if binomial > 0 else 1.0
    g = len({str(c) for c in clusters})
    return wilson_interval(p * n / deff, n / deff, z=t_critical(g - 1))


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
        flips = rng.integers(0, 2, size=(stop - start, k)).astype(np.float64)
        flips *= 2.0  # the same ±1.0 matrix the product casts integer signs to, made in place
        flips -= 1.0
        hits += int(np.sum(np.abs(flips @ d) >= observed - tol))
    return (hits + 1) / (resamples + 1)


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts ``b`` and ``c``."""
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail: float = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from ``n`` attempts of which ``c`` passed."""
    if n - c < k:
        return 1.0
    return 1.0 - math.prod((n - c - i) / (n - i) for i in range(k))


def median(values: Sequence[float] | np.ndarray) -> float | None:
    return float(np.median(values)) if len(values) else None


def percentile(values: Sequence[float] | np.ndarray, q: float) -> float | None:
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


def kappa_from_confusion(matrix: np.ndarray) -> float | None:
    """Cohen's kappa of a square confusion matrix (rater 1 by rows, rater 2 by columns);
    ``None`` when chance agreement is 1 (both raters gave one and the same label)."""
    m = np.asarray(matrix, dtype=float)
    n = m.sum()
    if n <= 0:
        return None
    po = np.trace(m) / n
    pe = float(m.sum(axis=1) @ m.sum(axis=0)) / (n * n)
    return None if pe >= 1 else float((po - pe) / (1 - pe))


def kappa_bootstrap_ci(a: Sequence[int], b: Sequence[int], groups: Sequence[object], *,
                       k: int, seed: int = DEFAULT_SEED, resamples: int = DEFAULT_RESAMPLES
                       ) -> tuple[tuple[float, float] | None, int]:
    """Percentile 95% interval of Cohen's kappa of two raters' categorical labels (codes
    ``0..k-1``), resampling whole ``groups`` (items of one group, such as the dimensions of
    one compared pair, stay together). Resamples in which kappa is undefined (chance
    agreement 1) are left out; returns the interval and the resamples kept.

    Example:
        >>> ci, used = kappa_bootstrap_ci([0, 1, 2, 0, 1, 2], [0, 1, 2, 0, 2, 2],
        ...                               [0, 1, 2, 3, 4, 5], k=3, seed=1)
        >>> used > 1900 and ci[0] < ci[1] <= 1
        True
    """
    x, y = np.asarray(a, dtype=int), np.asarray(b, dtype=int)
    if x.size == 0:
        return None, 0
    _, inverse = np.unique(np.array([str(g) for g in groups], dtype=object),
                           return_inverse=True)
    g = int(inverse.max()) + 1
    cells = np.zeros((g, k * k))
    np.add.at(cells, (inverse, x * k + y), 1)
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(g, np.full(g, 1.0 / g), size=resamples) @ cells
    mats = counts.reshape(resamples, k, k)
    n = mats.sum(axis=(1, 2))
    po = np.trace(mats, axis1=1, axis2=2) / n
    pe = np.einsum("ri,ri->r", mats.sum(axis=2), mats.sum(axis=1)) / (n * n)
    defined = pe < 1 - 1e-12
    if not defined.any():
        return None, 0
    kappas = (po[defined] - pe[defined]) / (1 - pe[defined])
    lo, hi = np.percentile(kappas, 2.5), np.percentile(kappas, 97.5)
    return (float(lo) + 0.0, float(hi) + 0.0), int(defined.sum())


def _interval_alpha(m: np.ndarray, s1: np.ndarray, s2: np.ndarray, within: np.ndarray,
                    weights: np.ndarray) -> np.ndarray:
    """Interval alpha for each row of ``weights`` (how many times each unit is taken)."""
    n, t1, t2 = weights @ m, weights @ s1, weights @ s2
    expected = n * t2 - t1 * t1
    observed = (n - 1) * (weights @ within)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(expected > 1e-12, 1.0 - observed / expected, np.nan)


def krippendorff_alpha_interval(units: Sequence[Sequence[float | None]], *,
                                seed: int = DEFAULT_SEED, resamples: int = 1000
                                ) -> tuple[float | None, tuple[float, float] | None, int]:
    """Krippendorff's alpha with the interval metric (squared differences) over ``units``
    (each unit: its raters' values, None where one gave none), with a percentile 95%
    bootstrap interval resampling units; and the number of pairable units (two values or
    more). Alpha is ``1 - (n - 1) Σ_u (m_u Σv² - (Σv)²) / (m_u - 1) / (n Σv² - (Σv)²)``
    over the pairable values; None when undefined (no pairable unit, or no variation).

    Example:
        >>> alpha, ci, n = krippendorff_alpha_interval([[1, 1], [2, 2], [3, 3], [0, 0]])
        >>> alpha, n
        (1.0, 4)
        >>> round(krippendorff_alpha_interval([[0, 3], [3, 0], [1, 2]])[0], 3)
        -0.667
    """
    rows = [[float(v) for v in u if v is not None] for u in units]
    rows = [r for r in rows if len(r) >= 2]
    if not rows:
        return None, None, 0
    m = np.array([len(r) for r in rows], dtype=float)
    s1 = np.array([sum(r) for r in rows])
    s2 = np.array([sum(v * v for v in r) for r in rows])
    within = (m * s2 - s1 * s1) / (m - 1)
    point = float(_interval_alpha(m, s1, s2, within, np.ones((1, len(rows))))[0])
    if math.isnan(point):
        return None, None, len(rows)
    rng = np.random.default_rng(seed)
    drawn = rng.multinomial(len(rows), np.full(len(rows), 1 / len(rows)),
                            size=resamples).astype(float)
    boot = _interval_alpha(m, s1, s2, within, drawn)
    boot = boot[~np.isnan(boot)]
    ci = None
    if boot.size:
        lo, hi = np.percentile(boot, [2.5, 97.5])
        ci = (round(float(lo), 6) + 0.0, round(float(hi), 6) + 0.0)
    return round(point, 6) + 0.0, ci, len(rows)


# -- prediction-powered inference of a mean ------------------------------------------------

def _cluster_var(values: np.ndarray, clusters: Sequence[object] | None) -> float:
    """The variance of the mean of ``values``: ``sum (x - m)^2 / n^2`` with every item on
    its own (the population variance over n, as ppi-python's ``std(0)**2 / n``); with
    ``clusters`` in which items share a cluster, the clustered (CR1) variance
    ``G/(G-1) * sum_g (S_g - m n_g)^2 / n^2``."""
    n = values.size
    if n == 0:
        return 0.0
    m = float(values.mean())
    if clusters is None:
        return float(np.sum((values - m) ** 2)) / (n * n)
    sums, sizes = _cluster_totals(values, clusters)
    g = sums.size
    if g == n:  # every item its own cluster: the plain variance
        return float(np.sum((values - m) ** 2)) / (n * n)
    factor = g / (g - 1) if g > 1 else 1.0
    return factor * float(np.sum((sums - m * sizes) ** 2)) / (n * n)


def _as_array(values: Sequence[float] | np.ndarray) -> np.ndarray:
    return np.asarray(values, dtype=float).ravel()


def classical_mean_ci(labels: Sequence[float] | np.ndarray,
                      clusters: Sequence[object] | None = None, *, z: float = Z95
                      ) -> tuple[float, float, float]:
    """The labels' mean and its normal 95% interval: ``mean ± z * sd / sqrt(n)`` (sd with
    divisor n, as ppi-python's ``classical_mean_ci``); clustered when items share a cluster.

    Example:
        >>> m, lo, hi = classical_mean_ci([0, 1, 1, 1])
        >>> m, round(lo, 4), round(hi, 4)
        (0.75, 0.3257, 1.1743)
    """
    y = _as_array(labels)
    if y.size == 0:
        raise ValueError("classical_mean_ci needs at least one label")
    m = float(y.mean())
    half = z * math.sqrt(_cluster_var(y, clusters))
    return m, m - half, m + half


def ppi_lambda(labels: Sequence[float] | np.ndarray,
               predicted_labelled: Sequence[float] | np.ndarray,
               predicted_unlabelled: Sequence[float] | np.ndarray) -> float:
    """PPI++'s power-tuning parameter for a mean, clipped to [0, 1]:
    ``lambda = Cov(Y, Yhat) / ((1 + n/N) * Var(Yhat))`` with the covariance over the n
    labelled items (divisor n) and the variance of the predictions over all n + N items
    (divisor n + N - 1), as ppi-python 0.2.3 computes it.

    Example:
        >>> round(ppi_lambda([0, 1, 1, 0], [0, 1, 1, 1], [1, 0, 1, 1, 0, 1]), 6)
        0.321429
    """
    y, yh, yu = _as_array(labels), _as_array(predicted_labelled), _as_array(predicted_unlabelled)
    n, big_n = y.size, yu.size
    if n == 0 or big_n == 0:
        return 1.0
    cov = float(np.mean((y - y.mean()) * (yh - yh.mean())))
    everything = np.concatenate([yh, yu])
    var = float(np.var(everything, ddof=1)) if everything.size > 1 else 0.0
    if var <= 0:
        return 0.0
    return float(np.clip(cov / ((1 + n / big_n) * var), 0.0, 1.0))


def ppi_mean(labels: Sequence[float] | np.ndarray,
             predicted_labelled: Sequence[float] | np.ndarray,
             predicted_unlabelled: Sequence[float] | np.ndarray, *, lam: float | None = 1.0,
             clusters_labelled: Sequence[object] | None = None,
             clusters_unlabelled: Sequence[object] | None = None,
             z: float = Z95) -> tuple[float, float, float, float]:
    """The prediction-powered estimate of a mean and its normal 95% interval:
    ``theta = lam * mean(Yhat_unlabelled) + mean(Y - lam * Yhat_labelled)``, half-width
    ``z * sqrt(Var(lam * Yhat_unlabelled) / N + Var(Y - lam * Yhat_labelled) / n)`` (each
    variance with divisor N or n). ``lam=1`` is plain PPI; ``lam=None`` is PPI++, the
    parameter chosen by :func:`ppi_lambda`. Every item on its own, these are
    ppi-python 0.2.3's ``ppi_mean_pointestimate`` and ``ppi_mean_ci`` (alpha 0.05);
    with clusters where items share one (tasks), each term's variance is the clustered one.
    Returns (estimate, low, high, lambda used).

    Example:
        >>> est, lo, hi, lam = ppi_mean([1, 0, 1, 1], [1, 0, 0, 1], [1, 1, 0, 1, 0, 1, 1, 0])
        >>> round(est, 4), round(lo, 4), round(hi, 4), lam
        (0.875, 0.3341, 1.4159, 1.0)
    """
    y, yh, yu = _as_array(labels), _as_array(predicted_labelled), _as_array(predicted_unlabelled)
    if y.size == 0 or y.size != yh.size or yu.size == 0:
        raise ValueError("ppi_mean needs labels, their predictions and unlabelled predictions")
    used = ppi_lambda(y, yh, yu) if lam is None else float(lam)
    rectifier = y - used * yh
    imputed = used * yu
    estimate = float(imputed.mean() + rectifier.mean())
    var = _cluster_var(imputed, clusters_unlabelled) + _cluster_var(rectifier,
                                                                    clusters_labelled)
    half = z * math.sqrt(var)
    return estimate, estimate - half, estimate + half, used


Z95_ONE_SIDED = 1.6448536269514722
"""The 95% quantile of the standard normal: a one-sided 95% upper bound."""


def ppi_labels_needed(labels: Sequence[float] | np.ndarray,
                      predicted_labelled: Sequence[float] | np.ndarray,
                      predicted_unlabelled: Sequence[float] | np.ndarray, half_width: float,
                      *, lam: float | None = None, z: float = Z95) -> int | None:
    """How many random labels in all (those given included) bring the PPI interval to
    ``± half_width``, planned from the labels given: the smallest n with
    ``z^2 * (V_imputed / (T - n) + V_rect / n) <= half_width^2``, where T is the number of
    items (labelled and not), ``V_imputed`` the variance of ``lam * Yhat`` over the
    unlabelled items and ``V_rect`` a one-sided 95% upper bound of the variance of
    ``Y - lam * Yhat`` (the sample variance plus 1.645 standard errors, the standard error
    from the fourth central moment; a one-sided 95% upper bound; at least
    ``(n + 1) / (n + 2)^2``, what one disagreement more in two more labels would give): a plan from few labels
    errs toward labelling more. With ``lam`` None (PPI++), lambda is tuned again for each
    n from the labels' moments, as PPI++ will tune it on n labels. None when no count
    short of labelling every item does.

    Example:
        >>> ppi_labels_needed([0, 1] * 10, [0, 1] * 9 + [1, 0], [0, 1] * 500, 0.05)
        407
    """
    y, yh, yu = _as_array(labels), _as_array(predicted_labelled), _as_array(predicted_unlabelled)
    if y.size < 2 or yu.size == 0:
        return None
    used = ppi_lambda(y, yh, yu) if lam is None else float(lam)
    rect = y - used * yh
    var = float(np.var(rect))
    m4 = float(np.mean((rect - rect.mean()) ** 4))
    upper = var + Z95_ONE_SIDED * math.sqrt(max(m4 - var * var, 0.0) / rect.size)
    # never below the variance of one disagreement more in two more labels: a few labels
    # that all agree do not show that the next ones will
    floor = (y.size + 1) / (y.size + 2) ** 2
    upper = max(upper, floor)
    inflate = upper / var if var > 0 else 1.0
    total = y.size + yu.size
    n = np.arange(1, total, dtype=float)
    cov = float(np.mean((y - y.mean()) * (yh - yh.mean())))
    var_y, var_yh = float(np.var(y)), float(np.var(yh))
    var_all = float(np.var(np.concatenate([yh, yu]), ddof=1))
    if lam is None:  # PPI++ tunes lambda again on n labels of T items
        lams = np.clip(cov / np.maximum((1 + n / (total - n)) * var_all, 1e-300), 0.0, 1.0) \
            if var_all > 0 else np.zeros_like(n)
    else:
        lams = np.full_like(n, used)
    rect_var = np.maximum(var_y - 2 * lams * cov + lams * lams * var_yh, 0.0) * inflate
    if var <= 0:
        rect_var = np.full_like(n, upper)
    width2 = z * z * (lams * lams * var_all / (total - n) + rect_var / n)
    fits = np.nonzero(width2 <= half_width * half_width)[0]
    return int(n[fits[0]]) if fits.size else None


def effective_judges(verdicts: Sequence[Sequence[float | None]]
                     ) -> tuple[float | None, float | None, int]:
    """The effective number of independent judges of a jury: ``n / (1 + (n - 1) * r)``,
    with n the judges and r the mean Pearson correlation of their verdicts over the pairs
    of judges (each pair on the items both judged; ``verdicts``: one row per item, one
    value per judge, None where it gave none), r clipped to [0, 1]: 1 for judges that all
    agree, n for independent ones. A pair of which one judge gave one value throughout
    has no correlation and is left out (two that both did and agree count as 1). Returns
    (effective number, mean correlation, pairs of judges used); None, None when no pair
    has a correlation.

    Example:
        >>> effective_judges([[1, 1, 1], [0, 0, 0], [1, 1, 1], [0, 0, 0]])
        (1.0, 1.0, 3)
        >>> n, r, _ = effective_judges([[1, 1, 0], [0, 0, 1], [1, 0, 0], [0, 1, 1]])
        >>> round(n, 3), round(r, 3)
        (3.0, -0.333)
    """
    m = np.array([[np.nan if v is None else float(v) for v in row] for row in verdicts],
                 dtype=float)
    if m.ndim != 2 or m.shape[1] < 2:
        return None, None, 0
    k = m.shape[1]
    corrs = []
    for i in range(k):
        for j in range(i + 1, k):
            both = ~np.isnan(m[:, i]) & ~np.isnan(m[:, j])
            a, b = m[both, i], m[both, j]
            if a.size < 2:
                continue
            sa, sb = float(a.std()), float(b.std())
            if sa == 0 or sb == 0:
                if sa == 0 and sb == 0 and np.array_equal(a, b):
                    corrs.append(1.0)
                continue
            corrs.append(float(np.mean((a - a.mean()) * (b - b.mean())) / (sa * sb)))
    if not corrs:
        return None, None, 0
    r = round(float(np.mean(corrs)), 12)
    clipped = min(1.0, max(0.0, r))
    return k / (1 + (k - 1) * clipped), r, len(corrs)
