"""A share the judge measured, corrected by a few labels: prediction-powered estimates.

For one share (a win rate, ties as half; the share of audits that blame the task, or name
one category), every judged item gives the judge's value ``Yhat`` and some items carry a
label ``Y``. :func:`corrected_share` reports four estimates, each with its 95% interval
(:mod:`judgekit.stats`): the judge alone (uncorrected: it takes the judge to be right),
the labels alone (classical), plain PPI (lambda 1) and PPI++ (lambda tuned). Only labels
whose items were chosen uniformly at random enter the corrected figures; the others are
counted and left out. With no random label but others, the figures are computed from
those and marked as not valid: a sample chosen by hand or by a filter can be anything.
Items of one task form a cluster: the intervals are clustered by task where tasks repeat.

Example:
    >>> items = [JudgedItem(f"i{k}", f"t{k}", float(k % 2)) for k in range(40)]
    >>> labels = {f"i{k}": Labelled(float(k % 2 == 0 or k == 3), True) for k in range(10)}
    >>> c = corrected_share(items, labels)
    >>> c.n_items, c.n_labelled, c.judge_only.value, c.random_sample
    (40, 10, 0.5, True)
    >>> round(c.ppi.value, 3)
    0.6
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np
from pydantic import BaseModel, Field

from judgekit import stats

METHOD = ("95% normal intervals (as ppi-python 0.2.3 computes them), clustered by task "
          "where tasks repeat; PPI++'s lambda tuned on the labels and clipped to [0, 1]")


class JudgedItem(NamedTuple):
    """One judged item: its id, its task (the cluster) and the judge's value in [0, 1]."""

    item: str
    task: str
    judge: float


class Labelled(NamedTuple):
    """One item's label in [0, 1], and whether its item was chosen uniformly at random."""

    value: float
    random: bool


class Estimate(BaseModel):
    """A point estimate and its 95% interval."""

    value: float
    ci: tuple[float, float]


class CorrectedShare(BaseModel):
    """One share estimated four ways."""

    n_items: int = Field(description="Judged items: with a valid verdict.")
    n_labelled: int = Field(0, description="Labels used by the corrected figures: of items "
                                           "chosen uniformly at random.")
    n_labels_not_random: int = Field(
        0, description="Labels of items chosen by a filter or by hand, or not saying how: "
                       "left out of the corrected figures (used, and marked not valid, "
                       "only when there is no random label).")
    n_labels_without_verdict: int = Field(0, description="Labels of items the judge gave no "
                                                         "valid verdict: left out.")
    judge_only: Estimate | None = Field(None, description="The judge's verdicts taken as "
                                                          "right: uncorrected.")
    classical: Estimate | None = Field(None, description="The labels alone.")
    ppi: Estimate | None = Field(None, description="Prediction-powered, lambda 1.")
    ppi_plus: Estimate | None = Field(None, description="PPI++: lambda tuned.")
    ppi_lambda: float | None = Field(None, description="PPI++'s lambda.")
    clustered: bool = Field(False, description="Items share tasks: intervals clustered by "
                                               "task.")
    random_sample: bool = Field(False, description="The corrected figures come from a "
                                                   "uniform random sample of the items: "
                                                   "their intervals are valid.")
    note: str | None = None
    target_half_width: float | None = None
    labels_needed: int | None = Field(
        None, description="Random labels in all that bring PPI++'s interval to ± the "
                          "target (planned from the labels' variance, erring high); null "
                          "when no count short of every item does.")
    more_labels_needed: int | None = Field(None, description="labels_needed less those "
                                                             "given.")
    method: str = METHOD


def _estimate(value: float, lo: float, hi: float) -> Estimate:
    return Estimate(value=round(value, 9) + 0.0, ci=(round(lo, 9) + 0.0, round(hi, 9) + 0.0))


def corrected_share(items: Sequence[JudgedItem], labels: Mapping[str, Labelled], *,
                    target_half_width: float | None = None) -> CorrectedShare:
    """The share's four estimates from the judged ``items`` and the ``labels`` by item id."""
    by_id = {it.item: it for it in items}
    given = {k: v for k, v in labels.items() if k in by_id}
    random_ids = [k for k, v in given.items() if v.random]
    out = CorrectedShare(n_items=len(items), n_labels_without_verdict=len(labels) - len(given),
                         n_labels_not_random=len(given) - len(random_ids),
                         target_half_width=target_half_width)
    if not items:
        out.note = "no judged item"
        return out
    yhat_all = np.array([it.judge for it in items])
    tasks_all = [it.task for it in items]
    out.clustered = len(set(tasks_all)) < len(tasks_all)
    out.judge_only = _estimate(*stats.classical_mean_ci(yhat_all, tasks_all))
    used = random_ids or list(given)
    out.random_sample = bool(random_ids)
    out.n_labelled = len(random_ids)
    if not used:
        out.note = "no label: the judge's figure only"
        return out
    if not random_ids:
        out.note = (f"none of the {len(used)} labelled items was chosen at random: PPI and "
                    "PPI++ are not valid estimates")
    y = np.array([given[k].value for k in used])
    yhat = np.array([by_id[k].judge for k in used])
    tasks = [by_id[k].task for k in used]
    out.classical = _estimate(*stats.classical_mean_ci(y, tasks))
    chosen = set(used)
    rest = [it for it in items if it.item not in chosen]
    if len(used) < 2 or not rest:
        out.note = out.note or ("fewer than 2 labels" if len(used) < 2
                                else "every item labelled: the labels are the answer")
        return out
    yu = np.array([it.judge for it in rest])
    tasks_u = [it.task for it in rest]
    for name, lam in (("ppi", 1.0), ("ppi_plus", None)):
        est, lo, hi, lam_used = stats.ppi_mean(y, yhat, yu, lam=lam, clusters_labelled=tasks,
                                               clusters_unlabelled=tasks_u)
        setattr(out, name, _estimate(est, lo, hi))
        if lam is None:
            out.ppi_lambda = round(lam_used, 9) + 0.0
    if target_half_width is not None and random_ids:
        need = stats.ppi_labels_needed(y, yhat, yu, target_half_width)
        out.labels_needed = need
        out.more_labels_needed = None if need is None else max(0, need - len(used))
    return out


EFFECTIVE_FORMULA = ("n_eff = n / (1 + (n - 1) * r), n the judges, r the mean Pearson "
                     "correlation between two judges' verdicts (or errors), clipped to [0, 1]")


class EffectiveJudges(BaseModel):
    """How many independent judges a jury amounts to (:func:`effective_judges`)."""

    of: str = Field("verdicts", description="What is correlated: the judges' verdicts, or "
                                            "their errors against labels.")
    n_judges: int
    n_effective: float | None = Field(None, description="From 1 (judges that all agree) "
                                                        "to n_judges (independent ones).")
    mean_correlation: float | None = None
    n_judge_pairs: int = Field(0, description="Pairs of judges with a correlation.")
    n_items: int = Field(0, description="Items at least two judges gave a value.")
    formula: str = EFFECTIVE_FORMULA


def effective_judges(rows: Sequence[Sequence[float | None]], n_judges: int, *,
                     of: str = "verdicts") -> EffectiveJudges:
    """The effective number of judges from one row per item, one value per judge.

    Example:
        >>> effective_judges([[1, 1], [0, 0], [1, 1]], 2).n_effective
        1.0
    """
    used = [r for r in rows if sum(v is not None for v in r) >= 2]
    n_eff, r, pairs = stats.effective_judges(used) if used else (None, None, 0)
    return EffectiveJudges(of=of, n_judges=n_judges,
                           n_effective=None if n_eff is None else round(n_eff, 6),
                           mean_correlation=None if r is None else round(r, 6) + 0.0,
                           n_judge_pairs=pairs, n_items=len(used))
