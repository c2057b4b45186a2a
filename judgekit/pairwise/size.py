"""Does the judge follow patch size? Size bias, and win rates with size held equal.

A patch's *size* is the lines it adds plus the lines it removes. For each dimension:

* *size bias*: the share of decisive verdicts (an arm won both orders) that went to the
  larger of the two patches, with its 95% Wilson interval; pairs of equal size do not
  count. 0.5 is what a judge blind to size gives when merit and size are unrelated.
  A judge is *flagged* when, on some dimension with at least :data:`SIZE_MIN_N` such
  verdicts, the share is at least :data:`SIZE_THRESHOLD` and the interval's lower bound
  is above 0.5: its verdicts follow size, whatever the merits.
* *size-controlled win rate*: a logistic (Bradley–Terry) model of the verdicts of one
  arm pair, ``logit P(a beats b) = arm + size · log((1 + size_a) / (1 + size_b))``, a win
  of ``a`` counting 1, a draw 0.5 and a loss 0 (so that without the covariate the model
  gives back the usual win rate, draws as half). ``arm`` is reported with and without the
  size term: the arm effect with size held equal is what is left of the preference once
  the judge's taste for larger (or smaller) patches is taken out. The fit is
  Newton–Raphson (IRLS) with a weak ridge penalty (:data:`RIDGE`: a normal prior of
  standard deviation about 1.4 on each coefficient) that keeps it finite when the verdicts
  separate perfectly; intervals are Wald intervals from the penalised information.

Example:
    >>> patch_size("@@ -1 +1,2 @@\\n-a\\n+b\\n+c\\n")
    3
    >>> v = [SizedVerdict("a", 10, 2)] * 12
    >>> size_lean(v).share_larger, size_bias({"minimality": v}).flagged
    (1.0, True)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from judgekit.pairwise.models import Coefficient, RatioBin, SizeBias, SizeControl, SizeLean
from judgekit.stats import wilson_interval

#: share of decisive verdicts for the larger patch at which a judge is flagged.
SIZE_THRESHOLD = 0.8
#: decisive verdicts between patches of unequal size a dimension needs to be flagged.
SIZE_MIN_N = 10
#: ridge penalty of the logistic model (on every coefficient).
RIDGE = 0.5
_Z = 1.959963984540054


def patch_size(diff: str | None) -> int:
    """Lines added plus lines removed in the hunks of ``diff`` (file headers not counted)."""
    if not diff:
        return 0
    count, in_hunk = 0, False
    for line in diff.split("\n"):
        if line.startswith("diff --git ") or line.startswith("Index: "):
            in_hunk = False
        elif line.startswith("@@ "):
            in_hunk = True
        elif in_hunk and line[:1] in ("+", "-") and not line.startswith(("+++ ", "--- ")):
            count += 1
    return count


@dataclass(frozen=True)
class SizedVerdict:
    """One verdict on one dimension of a pair, with the sizes of the two patches.

    ``winner`` is ``"a"``, ``"b"`` or ``"draw"``.
    """

    winner: str
    size_a: int
    size_b: int

    @property
    def log_ratio(self) -> float:
        return math.log((1 + self.size_a) / (1 + self.size_b))

    @property
    def larger_won(self) -> bool | None:
        """True when the larger patch won; None for a draw or patches of equal size."""
        if self.winner not in ("a", "b") or self.size_a == self.size_b:
            return None
        return (self.winner == "a") == (self.size_a > self.size_b)


def size_lean(verdicts: Sequence[SizedVerdict]) -> SizeLean:
    """Share of decisive verdicts between unequal patches that favour the larger one."""
    won = [v.larger_won for v in verdicts if v.larger_won is not None]
    n, k = len(won), sum(won)
    if not n:
        return SizeLean()
    lo, hi = wilson_interval(k, n)
    return SizeLean(share_larger=round(k / n, 4), share_larger_ci=(round(lo, 4), round(hi, 4)),
                    n=n)


def _follows_size(lean: SizeLean, threshold: float, min_n: int) -> bool:
    share, ci = lean.share_larger, lean.share_larger_ci
    return (share is not None and ci is not None and lean.n >= min_n
            and share >= threshold and ci[0] > 0.5)


def size_bias(by_dimension: Mapping[str, Sequence[SizedVerdict]], *,
              threshold: float = SIZE_THRESHOLD, min_n: int = SIZE_MIN_N) -> SizeBias:
    """``judge_reliability["size_bias"]``: the lean to the larger patch, pooled and per
    dimension, and whether it is strong enough to flag the judge (and on which dimensions)."""
    dims = {dim: size_lean(v) for dim, v in by_dimension.items()}
    pooled = size_lean([v for vs in by_dimension.values() for v in vs])
    flagged = [dim for dim, lean in dims.items() if _follows_size(lean, threshold, min_n)]
    return SizeBias(share_larger=pooled.share_larger, share_larger_ci=pooled.share_larger_ci,
                    n=pooled.n, flagged=bool(flagged), flagged_dimensions=flagged,
                    threshold=threshold, min_n=min_n, by_dimension=dims)


def size_reason(bias: SizeBias) -> str | None:
    """The plain-words reason a judge is flagged for size, or None."""
    if not bias.flagged:
        return None
    dims = list(bias.flagged_dimensions)
    worst = max(dims, key=lambda d: bias.by_dimension[d].share_larger or 0.0)
    d = bias.by_dimension[worst]
    assert d.share_larger is not None and d.share_larger_ci is not None  # it is flagged
    lo, hi = d.share_larger_ci
    others = [x for x in dims if x != worst]
    also = f", and likewise on {', '.join(others)}" if others else ""
    return (f"its decisive verdicts follow patch size: the larger patch (lines added + "
            f"removed) won {100 * d.share_larger:.0f}% of {d.n} decisive verdicts on "
            f"{worst} (95% CI {100 * lo:.0f}%–{100 * hi:.0f}%){also}, whatever the merits")


def fit_logistic(x: np.ndarray, y: np.ndarray, *, ridge: float = RIDGE,
                 iterations: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """Penalised logistic regression of ``y`` in [0, 1] on the columns of ``x`` by Newton–
    Raphson: the coefficients and their standard errors."""
    beta = np.zeros(x.shape[1])
    penalty = ridge * np.eye(x.shape[1])
    info = penalty
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(x @ beta)))
        grad = x.T @ (y - p) - penalty @ beta
        info = (x.T * (p * (1 - p))) @ x + penalty
        step = np.linalg.solve(info, grad)
        beta = beta + step
        if float(np.max(np.abs(step))) < 1e-10:
            break
    p = 1.0 / (1.0 + np.exp(-(x @ beta)))
    info = (x.T * (p * (1 - p))) @ x + penalty
    return beta, np.sqrt(np.diag(np.linalg.inv(info)))


def _coef(beta: float, se: float) -> Coefficient:
    return Coefficient(estimate=round(beta, 4),
                       ci=(round(beta - _Z * se, 4), round(beta + _Z * se, 4)))


def _rate(beta: float) -> float:
    return round(1.0 / (1.0 + math.exp(-beta)), 4)


def size_controlled(verdicts: Sequence[SizedVerdict]) -> SizeControl | None:
    """The arm effect of one arm pair on one dimension, with and without patch size: log-
    odds that ``a`` beats ``b`` and the win rate it implies (``a`` vs ``b`` at equal size
    for the controlled one); ``size_effect`` is the log-odds per unit of log size ratio."""
    rows = [v for v in verdicts if v.winner in ("a", "b", "draw")]
    if not rows:
        return None
    y = np.array([{"a": 1.0, "b": 0.0}.get(v.winner, 0.5) for v in rows])
    ratio = np.array([v.log_ratio for v in rows])
    ones = np.ones(len(rows))
    plain, plain_se = fit_logistic(ones[:, None], y)
    out = SizeControl(n=len(rows), sizes_differ=int(np.count_nonzero(ratio)),
                      arm_effect=_coef(float(plain[0]), float(plain_se[0])),
                      win_rate_a=_rate(float(plain[0])))
    if np.any(ratio != ratio[0]):  # the size term is identified only when sizes vary
        both, both_se = fit_logistic(np.column_stack([ones, ratio]), y)
        out.arm_effect_size_controlled = _coef(float(both[0]), float(both_se[0]))
        out.win_rate_a_size_controlled = _rate(float(both[0]))
        out.size_effect = _coef(float(both[1]), float(both_se[1]))
    out.by_ratio = by_ratio(rows)
    return out


#: bins of log2(size_a / size_b) for the win-rate-versus-size plot: (upper bound, label).
RATIO_BINS: tuple[tuple[float, str], ...] = (
    (-1.0, "a at most half b's size"), (-0.25, "a smaller"), (0.25, "about equal"),
    (1.0, "a larger"), (math.inf, "a at least twice b's size"))


def by_ratio(verdicts: Sequence[SizedVerdict]) -> list[RatioBin]:
    """The win rate of ``a`` (draws as half) per bin of the size ratio, with its Wilson
    interval: the points of the win-rate-versus-size plot (empty bins left out)."""
    scores: dict[int, list[float]] = {}
    for v in verdicts:
        if v.winner not in ("a", "b", "draw"):
            continue
        r = math.log2((1 + v.size_a) / (1 + v.size_b))
        k = next(i for i, (top, _) in enumerate(RATIO_BINS)
                 if r < top or (top == -1.0 and r <= top))
        scores.setdefault(k, []).append({"a": 1.0, "b": 0.0}.get(v.winner, 0.5))
    out: list[RatioBin] = []
    for k in sorted(scores):
        vals = scores[k]
        lo, hi = wilson_interval(sum(vals), len(vals))
        out.append(RatioBin(bin=RATIO_BINS[k][1], win_rate_a=round(sum(vals) / len(vals), 4),
                            ci=(round(lo, 4), round(hi, 4)), n=len(vals)))
    return out
