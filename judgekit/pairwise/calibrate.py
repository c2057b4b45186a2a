"""Meta-evaluation of pairwise judging: the judge's verdicts against gold labels.

Each gold label (:mod:`judgekit.pairwise.gold`) names the better of two arms' solutions of
a task on one dimension, or a draw. Each record of ``pairwise.jsonl`` on the same task and
arms gives the judge's flip-and-draw verdict on that dimension; one item is one such
(record, dimension). Items are grouped by the judge model that answered (the model of the
record's calls), so several judges' records are compared one by one. A jury's records
(``judges`` set) give each judge's own flip-and-draw verdict, compared per judge under the
judge's name, and the jury's verdict (the record's ``dimensions``), compared as ``jury``.

Left out and counted: identical changes (a draw decided without asking any judge) and
dimensions without a valid verdict (unscored, error). Reported per judge: accuracy (the
share of items where the judge's verdict equals the label), Cohen's kappa over the three
labels A / B / draw with a percentile bootstrap interval that resamples compared pairs
(the dimensions of a pair stay together), the confusion matrix (the judge's verdict by
rows, the label by columns), agreement excluding draws (over the items where neither the
judge nor the label is a draw) and the same figures per dimension.

Example:
    >>> items = [Item("t1", "x", "y", "minimality", "A", "A", 0),
    ...          Item("t2", "x", "y", "minimality", "draw", "B", 1)]
    >>> a = agreement(items)
    >>> a.n, a.accuracy, a.confusion["judge_draw_gold_B"], a.agreement_excluding_draws
    (2, 0.5, 1, 1.0)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from pydantic import BaseModel, Field

from judgekit import stats
from judgekit.corrected import (CorrectedShare, EffectiveJudges, JudgedItem, Labelled,
                                corrected_share, effective_judges)
from judgekit.pairwise.agreement import agreement as alpha_agreement
from judgekit.pairwise.gold import GoldLabel, GoldSet, Key, Label, comparison_key
from judgekit.pairwise.models import JuryAgreementEntry
from judgekit.pairwise.records import DimensionRecord, PairRecord
from judgekit.pairwise.verdict import DIMENSIONS

LABELS: tuple[Label, ...] = ("A", "B", "draw")
CI_METHOD = "percentile bootstrap over compared pairs, 95%"
DEFAULT_JUDGE = "judge"


class Item(NamedTuple):
    """One dimension of one compared pair: the judge's verdict and the gold label."""

    task_id: str
    arm_a: str
    arm_b: str
    dimension: str
    judge: Label
    gold: Label
    pair: int
    """Which compared pair (record) the item belongs to: the bootstrap's unit."""


class DimensionAgreement(BaseModel):
    """Agreement on one dimension."""

    n: int
    accuracy: float | None = None
    kappa: float | None = None


class JudgeAgreement(BaseModel):
    """How one judge's (or the jury's) verdicts match the gold labels."""

    n: int = Field(description="Items compared: (compared pair, dimension) with both a valid "
                               "verdict and a label.")
    n_pairs: int = Field(0, description="Compared pairs the items come from.")
    accuracy: float | None = Field(None, description="Share of items where the verdict "
                                                     "equals the label.")
    kappa: float | None = Field(None, description="Cohen's kappa over the labels A, B, draw.")
    kappa_ci: tuple[float, float] | None = Field(None, description=CI_METHOD)
    kappa_ci_method: str = CI_METHOD
    kappa_note: str | None = Field(None, description="Why kappa or its interval is not "
                                                     "given, or is rough.")
    resamples_used: int | None = Field(None, description="Bootstrap resamples in which "
                                                         "kappa is defined.")
    confusion: dict[str, int] = Field(
        default_factory=dict, description="judge_<verdict>_gold_<label> → items; verdicts "
                                          "and labels are A, B or draw.")
    n_decisive: int = Field(0, description="Items where neither the verdict nor the label "
                                           "is a draw.")
    agreement_excluding_draws: float | None = Field(
        None, description="Share of the decisive items where verdict and label name the "
                          "same arm.")
    by_dimension: dict[str, DimensionAgreement] = Field(default_factory=dict)
    disagreements: list[str] = Field(default_factory=list,
                                     description="task / arm_a vs arm_b / dimension: "
                                                 "verdict vs label.")


class PairwiseCalibration(BaseModel):
    """``judgekit calibrate`` with pairwise gold labels: per judge, and for the jury."""

    kind: str = "pairwise"
    labels_file: str = Field("", description="The label file's name.")
    n_labels: int = Field(0, description="Labels read (blank rows left out).")
    blank_labels: int = 0
    judges: dict[str, JudgeAgreement] = Field(
        default_factory=dict, description="Judge model → its agreement with the labels.")
    jury: JudgeAgreement | None = Field(
        None, description="The jury's verdicts against the labels, when the records carry "
                          "a jury verdict; null otherwise.")
    left_out: dict[str, int] = Field(
        default_factory=dict, description="Labelled items without a judge's verdict, by "
                                          "reason: identical (a draw decided without a "
                                          "call), unscored, error.")
    labels_without_verdict: list[str] = Field(
        default_factory=list, description="Labels no compared pair matches.")
    n_verdicts_without_label: int = Field(0, description="Valid verdict items no label "
                                                         "covers (the labellers' ties are "
                                                         "counted in pooled_ties).")
    labellers: dict[str, LabellerCalibration] = Field(
        default_factory=dict, description="With labels of two or more labellers: each "
                                          "labeller's labels against the verdicts (\"\": "
                                          "rows naming no labeller); the figures above are "
                                          "against the pooled labels.")
    labeller_agreement: JuryAgreementEntry | None = Field(
        None, description="Krippendorff's alpha (nominal) between the labellers on the "
                          "comparisons two or more of them labelled, with its 95% bootstrap "
                          "interval over compared pairs; null with one labeller.")
    pooled_ties: int = Field(0, description="Comparisons whose labellers tied, left out of "
                                            "the pooled labels.")
    stale_labels: int = Field(0, description="Labels left out as stale: given (in judgekit "
                                             "review) to content that has changed since.")
    seed: int = stats.DEFAULT_SEED
    resamples: int = stats.DEFAULT_RESAMPLES
    effective_judges_errors: EffectiveJudges | None = Field(
        None, description="With a jury: how many independent judges it amounts to, from "
                          "the correlation of the judges' errors (verdict less label, A 1, "
                          "B 0, draw 0.5) on the labelled items.")
    corrected: dict[str, dict[str, CorrectedShare]] = Field(
        default_factory=dict, description="\"arm_a vs arm_b\" → dimension → arm_a's win "
                                          "rate (draws as half) estimated four ways: the "
                                          "judge's (uncorrected), the labels', PPI and PPI++ "
                                          "(the record's own verdict: the jury's, with a "
                                          "jury).")


class LabellerCalibration(BaseModel):
    """One labeller's labels against the verdicts."""

    n_labels: int = 0
    judges: dict[str, JudgeAgreement] = Field(default_factory=dict)
    jury: JudgeAgreement | None = None


def labeller_agreement(by_labeller: dict[str, dict[Key, GoldLabel]],
                       *, seed: int = stats.DEFAULT_SEED) -> JuryAgreementEntry:
    """Krippendorff's alpha between labellers: one unit per comparison, one value per
    labeller (missing when they did not label it), resampled by compared pair."""
    keys = sorted({k for labels in by_labeller.values() for k in labels},
                  key=lambda k: tuple("" if x is None else str(x) for x in k))
    units = [(_pair_name(key), [labels[key].label_for(key[1], key[2]) if key in labels
                                else None for labels in by_labeller.values()])
             for key in keys]
    return alpha_agreement(units, seed=seed)


def _pair_name(key: Key) -> str:
    """The compared pair of a comparison's key (its dimension left out)."""
    task, a, b, _, att_a, att_b = key
    return "\0".join([task, a, b, str(att_a), str(att_b)])


def _code(label: Label) -> int:
    return LABELS.index(label)


def _share(hits: int, n: int) -> float | None:
    return hits / n if n else None


def _kappa(items: Sequence[Item]) -> float | None:
    m = np.zeros((3, 3))
    for it in items:
        m[_code(it.judge), _code(it.gold)] += 1
    return stats.kappa_from_confusion(m)


def _kappa_with_interval(out: JudgeAgreement, items: Sequence[Item], seed: int,
                         resamples: int) -> None:
    judge = {it.judge for it in items}
    gold = {it.gold for it in items}
    constant = [who for who, side in (("judge", judge), ("gold labels", gold)) if len(side) == 1]
    if constant:
        out.kappa = None if judge == gold else 0.0
        out.kappa_note = (f"the {' and the '.join(constant)} gave every item the same label: "
                          + ("kappa is undefined" if out.kappa is None
                             else "kappa is 0 by construction") + "; no interval")
        return
    out.kappa = _kappa(items)
    out.kappa_ci, out.resamples_used = stats.kappa_bootstrap_ci(
        [_code(it.judge) for it in items], [_code(it.gold) for it in items],
        [it.pair for it in items], k=len(LABELS), seed=seed, resamples=resamples)
    if out.n_pairs < 10:
        out.kappa_note = (f"only {out.n_pairs} compared pairs: the interval is wide and rough")


def agreement(items: Sequence[Item], *, seed: int = stats.DEFAULT_SEED,
              resamples: int = stats.DEFAULT_RESAMPLES) -> JudgeAgreement:
    """Accuracy, kappa with its interval, confusion matrix and agreement excluding draws."""
    n = len(items)
    hits = sum(it.judge == it.gold for it in items)
    decisive = [it for it in items if it.judge != "draw" and it.gold != "draw"]
    cells = Counter(f"judge_{it.judge}_gold_{it.gold}" for it in items)
    out = JudgeAgreement(
        n=n, n_pairs=len({it.pair for it in items}), accuracy=_share(hits, n),
        confusion={f"judge_{j}_gold_{g}": cells.get(f"judge_{j}_gold_{g}", 0)
                   for j in LABELS for g in LABELS},
        n_decisive=len(decisive),
        agreement_excluding_draws=_share(sum(it.judge == it.gold for it in decisive),
                                         len(decisive)),
        disagreements=[f"{it.task_id} / {it.arm_a} vs {it.arm_b} / {it.dimension}: judge "
                       f"{it.judge}, gold {it.gold}" for it in items if it.judge != it.gold])
    for dim in DIMENSIONS:
        of_dim = [it for it in items if it.dimension == dim]
        if of_dim:
            out.by_dimension[dim] = DimensionAgreement(
                n=len(of_dim), accuracy=_share(sum(it.judge == it.gold for it in of_dim),
                                               len(of_dim)),
                kappa=_kappa(of_dim))
    if n:
        _kappa_with_interval(out, items, seed, resamples)
    return out


def judge_of(record: PairRecord, default: str = DEFAULT_JUDGE) -> str:
    """The judge model that answered a record's calls (``default`` when none is named)."""
    models = {o.model for o in record.orders if o.model and o.state == "valid"}
    return models.pop() if len(models) == 1 else default


def _label_name(key: Key) -> str:
    task, a, b, dim, att_a, att_b = key
    if att_a is None and att_b is None:
        return f"{task} / {a} vs {b} / {dim}"
    return f"{task} / {a} attempt {att_a} vs {b} attempt {att_b} / {dim}"


def _verdicts(record: PairRecord) -> list[tuple[str | None, dict[str, DimensionRecord]]]:
    """(judge name, dimensions) of each verdict a record holds: each judge's own with a
    jury, then the jury's (name None); the record's own verdict with one judge ("")."""
    if record.judges is None:
        return [("", record.dimensions)]
    return [*((name, j.dimensions) for name, j in record.judges.items()),
            (None, record.dimensions)]


def _side(record: PairRecord, winner: str) -> Label:
    return "A" if winner == record.arm_a else "B" if winner == record.arm_b else "draw"


def _ordered(by_judge: dict[str, list[Item]], records: Sequence[PairRecord]) -> list[str]:
    """The judges' names: a jury's in its order, others sorted."""
    jury = next((list(r.judges) for r in records if r.judges is not None), [])
    return ([n for n in jury if n in by_judge]
            + sorted(n for n in by_judge if n not in jury))


_VALUE = {"A": 1.0, "B": 0.0, "draw": 0.5}


def _label_of(record: PairRecord, dim: str, gold: GoldSet) -> tuple[Key, GoldLabel] | None:
    """The label of a record's dimension: of its attempt pair, else one naming none."""
    key = comparison_key(record.task_id, record.arm_a, record.arm_b, dim, record.attempt_a,
                         record.attempt_b)
    if key not in gold.labels:
        key = (*key[:4], None, None)
    label = gold.labels.get(key)
    return None if label is None else (key, label)


def corrected_win_rates(records: Sequence[PairRecord], gold: GoldSet, *,
                        every_label_random: bool = False,
                        target_half_width: float | None = None
                        ) -> dict[str, dict[str, CorrectedShare]]:
    """Per arm pair (arms in sorted order) and dimension, the first arm's win rate (draws as
    half) from the records' own verdicts, corrected by the labels: only labels whose item
    was taken in the review queue's random order (or every label, with
    ``every_label_random``) enter the corrected figures."""
    random_keys = gold.random_keys()
    items: dict[tuple[str, str, str], list[JudgedItem]] = {}
    labels: dict[tuple[str, str, str], dict[str, Labelled]] = {}
    for index, rec in enumerate(records):
        a, b = sorted((rec.arm_a, rec.arm_b))
        for dim in DIMENSIONS:
            d = rec.dimensions.get(dim)
            if d is None:
                continue
            share = (a, b, dim)
            found = _label_of(rec, dim, gold)
            if d.state == "valid":
                items.setdefault(share, []).append(
                    JudgedItem(str(index), rec.task_id, _VALUE[_side(rec, d.winner)]
                               if rec.arm_a == a else 1 - _VALUE[_side(rec, d.winner)]))
            if found is not None:
                key, g = found
                value = _VALUE[g.label_for(a, b)]
                labels.setdefault(share, {})[str(index)] = Labelled(
                    value, every_label_random or key in random_keys)
    out: dict[str, dict[str, CorrectedShare]] = {}
    for (a, b, dim) in sorted(set(items) | set(labels)):
        out.setdefault(f"{a} vs {b}", {})[dim] = corrected_share(
            items.get((a, b, dim), []), labels.get((a, b, dim), {}),
            target_half_width=target_half_width)
    return out


def error_correlation(records: Sequence[PairRecord], gold: GoldSet) -> EffectiveJudges | None:
    """The effective number of a jury's judges from their errors against the labels; None
    without a jury."""
    names = next((list(r.judges) for r in records if r.judges is not None), None)
    if names is None:
        return None
    rows: list[list[float | None]] = []
    for rec in records:
        if rec.judges is None or rec.identical:
            continue
        for dim in DIMENSIONS:
            found = _label_of(rec, dim, gold)
            if found is None:
                continue
            truth = _VALUE[found[1].label_for(rec.arm_a, rec.arm_b)]
            row: list[float | None] = []
            for name in names:
                own = rec.judges[name].dimensions.get(dim) if name in rec.judges else None
                row.append(None if own is None or own.state != "valid"
                           else _VALUE[_side(rec, own.winner)] - truth)
            rows.append(row)
    return effective_judges(rows, len(names), of="errors")


def calibrate_pairwise(records: Sequence[PairRecord], gold: GoldSet, *,
                       default_judge: str = DEFAULT_JUDGE, labels_file: str = "",
                       seed: int = stats.DEFAULT_SEED,
                       resamples: int = stats.DEFAULT_RESAMPLES,
                       every_label_random: bool = False,
                       target_half_width: float | None = None) -> PairwiseCalibration:
    """Compare each judge's pairwise verdicts, and a jury's, with the gold labels.

    ``left_out`` and the counts of unlabelled verdicts follow each record's own verdict
    (the jury's, with a jury); a judge's item without a valid verdict of its own is left
    out of that judge's figures only."""
    by_judge: dict[str, list[Item]] = {}
    jury: list[Item] | None = None
    left_out: Counter[str] = Counter()
    matched: set[Key] = set()
    unlabelled = 0
    for index, rec in enumerate(records):
        if rec.judges is not None and jury is None:
            jury = []
        for dim in DIMENSIONS:
            if dim not in rec.dimensions:
                continue
            # the label of this attempt pair, else one that names no attempts
            key = comparison_key(rec.task_id, rec.arm_a, rec.arm_b, dim, rec.attempt_a,
                                 rec.attempt_b)
            if key not in gold.labels and key not in gold.tied:
                key = (*key[:4], None, None)
            label = gold.labels.get(key)
            state = rec.dimensions[dim].state
            if label is None:  # a tie of the labellers is counted as such, not here
                unlabelled += (state == "valid" and not rec.identical
                               and key not in gold.tied)
                continue
            matched.add(key)
            if rec.identical:
                left_out["identical"] += 1
                continue
            if state != "valid":
                left_out[state] += 1
            gold_label = label.label_for(rec.arm_a, rec.arm_b)
            for name, dims in _verdicts(rec):
                own = dims.get(dim)
                if own is None or own.state != "valid":
                    continue
                item = Item(rec.task_id, rec.arm_a, rec.arm_b, dim, _side(rec, own.winner),
                            gold_label, index)
                if name is None:
                    assert jury is not None
                    jury.append(item)
                else:
                    by_judge.setdefault(name or judge_of(rec, default_judge), []).append(item)
    labellers: dict[str, LabellerCalibration] = {}
    for who, theirs in gold.by_labeller.items():
        one = calibrate_pairwise(records, GoldSet(labels=theirs, rows=len(theirs)),
                                 default_judge=default_judge, seed=seed, resamples=resamples)
        labellers[who] = LabellerCalibration(n_labels=len(theirs), judges=one.judges,
                                             jury=one.jury)
    return PairwiseCalibration(
        labellers=labellers, pooled_ties=gold.pooled_ties, stale_labels=gold.stale,
        labeller_agreement=(labeller_agreement(gold.by_labeller, seed=seed)
                            if gold.by_labeller else None),
        labels_file=labels_file, n_labels=len(gold.labels), blank_labels=gold.blank,
        judges={name: agreement(by_judge[name], seed=seed, resamples=resamples)
                for name in _ordered(by_judge, records)},
        jury=agreement(jury, seed=seed, resamples=resamples) if jury is not None else None,
        left_out=dict(sorted(left_out.items())),
        labels_without_verdict=[_label_name(k) for k in sorted(set(gold.labels) - matched)],
        n_verdicts_without_label=unlabelled, seed=seed, resamples=resamples,
        effective_judges_errors=error_correlation(records, gold),
        corrected=corrected_win_rates(records, gold, every_label_random=every_label_random,
                                      target_half_width=target_half_width))
