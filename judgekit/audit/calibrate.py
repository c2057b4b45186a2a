"""Compare audit verdicts with human labels, task by task.

Each task's verdict is the majority of its valid result-level scores (a tie counts as 0,
as in :func:`judgekit.audit.aggregate.majority_score`). Human labels may come one row per
run: they are aggregated per task by majority, and tasks whose labels tie are reported and
left out. Reported: agreement, Cohen's kappa with one interval, a seeded percentile
bootstrap over tasks (resamples in which either side gives a single label, where kappa is
undefined, are left out), and the confusion matrix with the judge's calls as rows and the
human labels as columns. When either side gives every task the same label, kappa is 0 (or
undefined) by construction: no interval is given and a note says why.

Example:
    >>> c = calibrate({"a": 1, "b": 0, "c": 0, "d": 1}, {"a": 1, "b": 0, "c": 1, "d": 1})
    >>> c.n, c.agreement, c.confusion["judge_1_human_1"]
    (4, 0.75, 2)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import combinations
from pathlib import Path

import numpy as np
from pydantic import BaseModel, Field

from judgekit import stats
from judgekit.corrected import CorrectedShare, JudgedItem, Labelled, corrected_share
from judgekit.audit.kind import AUDIT
from judgekit.audit.aggregate import AuditRecord, aggregate_tasks
from judgekit.errors import InputError
from judgekit.ingest.validation import validate
from judgekit.io import read_csv, read_json_lines

_LABELS = {"0": 0, "1": 1, "false": 0, "true": 1, "no": 0, "yes": 1}


#: Label columns looked for, in order, when none is named.
LABEL_COLUMNS = ("label", "human_label", "grade", "final_grade", "score")
CI_METHOD = "percentile bootstrap over tasks, 95%"


class LabelSet(BaseModel):
    """Human labels of one CSV, aggregated per task."""

    labels: dict[str, int] = Field(description="Task id → majority label (0 or 1).")
    column: str = Field(description="The column the labels were read from.")
    rows: int = Field(description="Rows read (header excluded).")
    blank: int = Field(0, description="Rows whose label was blank: skipped.")
    ties: list[str] = Field(default_factory=list,
                            description="Tasks whose rows split evenly between 0 and 1: left out.")
    runs_per_task: dict[str, int] = Field(default_factory=dict)
    labellers: list[str] = Field(default_factory=list, description="Who gave the labels, when "
                                 "the labels name their labellers (empty otherwise).")
    by_labeller: dict[str, LabelSet] = Field(
        default_factory=dict, description="With two or more labellers: each one's own labels.")
    by_result: dict[str, dict[str, int]] = Field(
        default_factory=dict, description="With two or more labellers: each labelled result "
                                          "→ labeller → label.")
    stale: int = Field(0, description="Labels left out as stale: given (in judgekit review) "
                                      "to content that has changed since.")


class Agreement(BaseModel):
    """Task-level audit verdicts against one set of human labels: agreement and kappa."""

    n: int = Field(description="Tasks with both a verdict and a label.")
    agreement: float | None
    kappa: float | None
    kappa_ci: tuple[float, float] | None = Field(None, description=CI_METHOD)
    kappa_ci_method: str = CI_METHOD
    kappa_note: str | None = Field(
        None, description="Why kappa or its interval is not given, or is degenerate.")
    resamples_used: int | None = Field(
        None, description="Bootstrap resamples in which kappa is defined.")
    confusion: dict[str, int]


class LabellerCalibration(Agreement):
    """One labeller's labels against the verdicts: per task the majority of the results
    they labelled."""

    n_labels: int = Field(0, description="Results they labelled (their last label of each).")
    label_ties: list[str] = Field(default_factory=list, description="Tasks whose results "
                                  "they labelled 0 and 1 equally often: left out.")
    disagreements: list[str] = Field(default_factory=list)


class InterRater(BaseModel):
    """How far the human raters agree with each other: Krippendorff's alpha."""

    metric: str = "interval"
    alpha: float | None = None
    alpha_ci: tuple[float, float] | None = Field(
        None, description="95% percentile bootstrap over items.")
    n_items: int = Field(0, description="Items with two or more raters' values.")
    n_raters: int = 0


class LabellerPair(BaseModel):
    """Two labellers on the results both labelled."""

    labellers: tuple[str, str]
    n: int = Field(0, description="Results both labelled.")
    agreement: float | None = None
    kappa: float | None = Field(None, description="Cohen's kappa; null when undefined (both "
                                                  "gave every result the same label).")
    kappa_ci: tuple[float, float] | None = Field(
        None, description="95% percentile bootstrap over the results.")


class LabellerAgreement(InterRater):
    """How far the labellers agree with each other on the results two or more of them
    labelled: Krippendorff's alpha (on 0/1 labels nominal and interval alpha are one), and
    Cohen's kappa of each pair of labellers."""

    metric: str = "nominal"
    pairs: list[LabellerPair] = Field(default_factory=list)


class Calibration(Agreement):
    """How well task-level audit verdicts match human labels."""

    judge_ife_precision: float | None = None
    judge_ife_recall: float | None = None
    disagreements: list[str] = Field(default_factory=list)
    labels_without_verdict: list[str] = Field(default_factory=list)
    verdicts_without_label: list[str] = Field(
        default_factory=list, description="Tasks with a verdict and no label (a task whose "
                                          "labels tied is in label_ties instead).")
    label_ties: list[str] = Field(default_factory=list)
    blank_labels: int = 0
    label_rows: int | None = None
    stale_labels: int = Field(0, description="Labels left out as stale: given (in judgekit "
                                             "review) to content that has changed since.")
    resamples: int = stats.DEFAULT_RESAMPLES
    seed: int = stats.DEFAULT_SEED
    labellers: dict[str, LabellerCalibration] = Field(
        default_factory=dict, description="With labels of two or more labellers (those "
                                          "`judgekit review` keeps): each labeller's labels "
                                          "against the verdicts; the figures above are "
                                          "against the pooled labels.")
    labeller_agreement: LabellerAgreement | None = Field(
        None, description="With two or more labellers: how far they agree with each other.")
    labeller_note: str | None = Field(
        None, description="Why there is no agreement between labellers to give, when the "
                          "labels name their labellers.")
    corrected: dict[str, CorrectedShare] = Field(
        default_factory=dict, description="Shares of the audited items estimated four ways "
                                          "(the judge's, uncorrected; the labels'; PPI; "
                                          "PPI++): \"defect\" (the share whose failure a "
                                          "defect of the task caused) and \"category: NAME\" "
                                          "(the share blamed on that rubric category).")
    corrected_unit: str | None = Field(None, description="What one item of the corrected "
                                                         "shares is: result, task, or item "
                                                         "(an item audit's benchmark "
                                                         "item).")


def load_verdicts(path: str | Path) -> list[AuditRecord]:
    """Records of an ``audit.jsonl`` (or of the one inside directory ``path``)."""
    p = Path(path)
    if p.is_dir():
        p = p / str(AUDIT.records_file)
    if not p.is_file():
        raise InputError(p, None, "no audit.jsonl found")
    return [validate(AuditRecord, obj, p, f"line {n}: ") for n, obj in read_json_lines(p)]


def task_scores(records: list[AuditRecord]) -> dict[str, int]:
    """Each task's majority verdict; tasks without any valid verdict are left out."""
    return {t.task_id: t.task_score for t in aggregate_tasks(records)
            if t.task_score is not None}


def _label_value(raw: str, path: Path, where: str) -> int | None:
    """0 or 1 from ``raw`` (``1``, ``1.00``, ``true``, ``yes``, ...); ``None`` when blank."""
    text = raw.strip()
    if not text:
        return None
    if text.casefold() in _LABELS:
        return _LABELS[text.casefold()]
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if value in (0.0, 1.0):
        return int(value)
    raise InputError(path, where, f"{raw!r} is not 0 or 1")


def read_labels(path: str | Path, column: str | None = None) -> LabelSet:
    """Human labels from a CSV with a ``task_id`` column and a label column (``column``, or
    the first of :data:`LABEL_COLUMNS` present). Rows may be per run: each task gets the
    majority of its rows; blank labels are skipped and counted; ties are reported."""
    p = Path(path)
    if not p.is_file():
        raise InputError(p, None, "labels file not found")
    fields, csv_rows = read_csv(p)
    if "task_id" not in fields:
        raise InputError(p, "header", "missing column(s) task_id")
    if column is None:
        column = next((c for c in LABEL_COLUMNS if c in fields), None)
        if column is None:
            raise InputError(p, "header", f"missing column(s) label (or one of "
                                          f"{', '.join(LABEL_COLUMNS[1:])})")
    elif column not in fields:
        raise InputError(p, "header", f"missing column(s) {column}")
    votes: dict[str, list[int]] = {}
    rows = blank = 0
    for n, row in csv_rows:
        rows += 1
        task = (row.get("task_id") or "").strip()
        if not task:
            raise InputError(p, f"line {n}: task_id", "empty")
        value = _label_value(row.get(column) or "", p, f"line {n}: {column}")
        if value is None:
            blank += 1
            continue
        votes.setdefault(task, []).append(value)
    labels, ties = majority_labels(votes)
    return LabelSet(labels=labels, column=column, rows=rows, blank=blank, ties=ties,
                    runs_per_task={t: len(v) for t, v in votes.items()})


def majority_labels(votes: Mapping[str, Sequence[int]]) -> tuple[dict[str, int], list[str]]:
    """Each task's majority of its 0/1 votes, and the tasks (sorted) whose votes split
    evenly: ties, left out.

    Example:
        >>> majority_labels({"a": [1, 1, 0], "b": [0, 1], "c": [0]})
        ({'a': 1, 'c': 0}, ['b'])
    """
    labels: dict[str, int] = {}
    ties: list[str] = []
    for task, values in votes.items():
        ones = sum(values)
        if ones * 2 == len(values):
            ties.append(task)
        else:
            labels[task] = int(ones * 2 > len(values))
    return labels, sorted(ties)


def load_labels(path: str | Path, column: str | None = None) -> dict[str, int]:
    """Task id → label (0 or 1); see :func:`read_labels`."""
    return read_labels(path, column).labels


def _bootstrap_kappa(a: np.ndarray, b: np.ndarray, seed: int,
                     resamples: int) -> tuple[tuple[float, float] | None, int]:
    """Percentile interval of kappa over resampled tasks, leaving out resamples in which
    either side is constant (kappa undefined there); and how many resamples were kept."""
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, a.size, size=(resamples, a.size))
    x, y = a[idx], b[idx]
    px, py = x.mean(axis=1), y.mean(axis=1)
    defined = (px > 0) & (px < 1) & (py > 0) & (py < 1)
    if not defined.any():
        return None, 0
    po = (x == y).mean(axis=1)[defined]
    pe = (px * py + (1 - px) * (1 - py))[defined]
    kappas = (po - pe) / (1 - pe)
    lo, hi = np.percentile(kappas, 2.5), np.percentile(kappas, 97.5)
    return (float(lo) + 0.0, float(hi) + 0.0), int(defined.sum())


def calibrate(verdicts: dict[str, int], labels: dict[str, int] | LabelSet, *,
              seed: int = stats.DEFAULT_SEED,
              resamples: int = stats.DEFAULT_RESAMPLES) -> Calibration:
    """Compare task-level verdicts (task id → 0/1) with human labels (task id → 0/1, or a
    :class:`LabelSet`, whose blanks and ties are then reported too)."""
    label_set = labels if isinstance(labels, LabelSet) else None
    table = labels.labels if isinstance(labels, LabelSet) else labels
    common = sorted(set(verdicts) & set(table))
    judge = [verdicts[t] for t in common]
    human = [table[t] for t in common]
    cells = {f"judge_{j}_human_{h}": 0 for j in (1, 0) for h in (1, 0)}
    for j, h in zip(judge, human):
        cells[f"judge_{j}_human_{h}"] += 1
    out = Calibration(
        n=len(common), agreement=None, kappa=None, confusion=cells, seed=seed,
        resamples=resamples, disagreements=[t for t, j, h in zip(common, judge, human) if j != h],
        labels_without_verdict=sorted(set(table) - set(verdicts)),
        verdicts_without_label=sorted(set(verdicts) - set(table)
                                      - set(label_set.ties if label_set else [])),
        label_ties=label_set.ties if label_set else [],
        blank_labels=label_set.blank if label_set else 0,
        label_rows=label_set.rows if label_set else None,
        stale_labels=label_set.stale if label_set else 0)
    if not common:
        return out
    n = len(common)
    po = sum(j == h for j, h in zip(judge, human)) / n
    out.agreement = round(po, 6)
    constant = [who for who, side in (("judge", judge), ("human labels", human))
                if len(set(side)) == 1]
    if constant:
        both = len(constant) == 2
        out.kappa = None if both and judge[0] == human[0] else 0.0
        out.kappa_note = (f"the {' and the '.join(constant)} gave every task the same label: "
                          + ("kappa is undefined" if out.kappa is None else
                             "kappa is 0 by construction") + "; no interval")
    else:
        out.kappa = round(stats.cohen_kappa(judge, human), 6) + 0.0
        out.kappa_ci, out.resamples_used = _bootstrap_kappa(
            np.array(judge), np.array(human), seed, resamples)
        if n < 10:
            out.kappa_note = f"only {n} tasks compared: the interval is wide and rough"
    tp, fp, fn = (cells["judge_1_human_1"], cells["judge_1_human_0"], cells["judge_0_human_1"])
    out.judge_ife_precision = tp / (tp + fp) if tp + fp else None
    out.judge_ife_recall = tp / (tp + fn) if tp + fn else None
    if label_set is not None and label_set.labellers:
        _by_labeller(out, verdicts, label_set, seed, resamples)
    return out


class ItemLabel(BaseModel):
    """A label of one audited item for the corrected shares."""

    label: int
    category: str | None = None
    random: bool = False


def corrected_shares(records: Sequence[AuditRecord], labels: Mapping[str, ItemLabel], *,
                     unit: str = "result", categories: Sequence[str] = (),
                     target_half_width: float | None = None) -> dict[str, CorrectedShare]:
    """The share of audited items whose failure the judge blames on the task (``defect``),
    and on each category (``category: NAME``), corrected by ``labels``: keyed by the
    result's ``task / arm / attempt N`` (``unit`` result) or by task id (``unit`` task, the
    judge's value then the task's majority score); a result's key is
    ``ResultKey.with_run()``. A label 1 naming no category is left out
    of the category shares."""
    items: list[tuple[str, str, int, str | None]] = []  # id, task, score, category
    if unit == "task":
        for t in aggregate_tasks(list(records)):
            if t.task_score is not None:
                items.append((t.task_id, t.task_id, t.task_score, t.suspected_type))
    else:
        for r in records:
            if r.score is not None:
                items.append((r.key().with_run(), r.task_id, r.score, r.deficiency_type))
    names = list(dict.fromkeys([*categories, *(c for *_, score, c in items if c and score),
                                *(lab.category for lab in labels.values() if lab.category)]))
    out = {"defect": corrected_share(
        [JudgedItem(i, t, float(score)) for i, t, score, _ in items],
        {k: Labelled(float(v.label), v.random) for k, v in labels.items()},
        target_half_width=target_half_width)}
    if unit == "task":
        return out
    for name in names:
        out[f"category: {name}"] = corrected_share(
            [JudgedItem(i, t, float(score == 1 and c == name)) for i, t, score, c in items],
            {k: Labelled(float(v.label == 1 and v.category == name), v.random)
             for k, v in labels.items() if v.label == 0 or v.category is not None},
            target_half_width=target_half_width)
    return out


def labeller_name(who: str) -> str:
    return who or "(no labeller named)"


def _by_labeller(out: Calibration, verdicts: dict[str, int], label_set: LabelSet,
                 seed: int, resamples: int) -> None:
    """Each labeller's own figures and their agreement with each other (two or more
    labellers), or why there are none."""
    names = label_set.labellers
    if len(names) < 2:
        out.labeller_note = (f"one labeller ({labeller_name(names[0])}): no agreement between "
                             "labellers to measure")
        return
    for who, own in label_set.by_labeller.items():
        one = calibrate(verdicts, own.labels, seed=seed, resamples=resamples)
        out.labellers[who] = LabellerCalibration(
            **one.model_dump(include=set(Agreement.model_fields) | {"disagreements"}),
            n_labels=own.rows, label_ties=own.ties)
    out.labeller_agreement = labeller_agreement(label_set.by_result, names, seed=seed,
                                                resamples=resamples)
    if not out.labeller_agreement.n_items:
        out.labeller_note = "no result was labelled by two or more labellers"


def labeller_agreement(by_result: Mapping[str, Mapping[str, int]], labellers: Sequence[str],
                       *, seed: int = stats.DEFAULT_SEED,
                       resamples: int = stats.DEFAULT_RESAMPLES) -> LabellerAgreement:
    """Krippendorff's alpha of the labellers' 0/1 labels (one unit per result, a missing
    value where a labeller gave none), and Cohen's kappa of each pair of labellers over the
    results both labelled.

    Example:
        >>> a = labeller_agreement({"r1": {"x": 1, "y": 1}, "r2": {"x": 1, "y": 0},
        ...                         "r3": {"x": 0, "y": 0}, "r4": {"x": 0}}, ["x", "y"])
        >>> round(a.alpha, 4), a.n_items, a.pairs[0].n, round(a.pairs[0].kappa, 4)
        (0.4444, 3, 3, 0.4)
    """
    units = [[given.get(who) for who in labellers] for given in by_result.values()]
    alpha, ci, n = stats.krippendorff_alpha_interval(units, seed=seed)
    out = LabellerAgreement(alpha=alpha, alpha_ci=ci, n_items=n, n_raters=len(labellers))
    for x, y in combinations(labellers, 2):
        both = [(g[x], g[y]) for g in by_result.values() if x in g and y in g]
        pair = LabellerPair(labellers=(x, y), n=len(both))
        if both:
            a, b = [p[0] for p in both], [p[1] for p in both]
            pair.agreement = round(sum(i == j for i, j in both) / len(both), 6)
            m = np.zeros((2, 2))
            np.add.at(m, (a, b), 1)
            kappa = stats.kappa_from_confusion(m)
            pair.kappa = None if kappa is None else round(kappa, 6) + 0.0
            if kappa is not None:
                pair.kappa_ci, _ = stats.kappa_bootstrap_ci(
                    a, b, range(len(both)), k=2, seed=seed, resamples=resamples)
        out.pairs.append(pair)
    return out
