"""Audit verdicts against human labels published as severity scales, per category.

Benchmark annotations are often published as one row per item (or per item and rater)
with a severity per question: SWE-bench Verified's ``ensembled_annotations_public.csv``
scores ``underspecified`` and ``false_negative`` from 0 to 3. :func:`read_scale_labels`
reads such a CSV: an id column (``task_id``, else ``instance_id``), the named label
columns, a threshold (a score at or above it is a defect; SWE-bench Verified filtered at
2) and, optionally, a rater column.

The human label of an item:

* per column: the row's score is a defect when at least the threshold; with several rows
  (raters) the majority of their calls, a tie left out (listed);
* overall: a row calls a defect when any of its columns does, no defect when every column
  is given and none does (else it calls nothing); the majority of the rows, as above.

An item whose rows give no call is *without a label*: counted, never guessed.

The judge's verdict of a task is the majority of its valid scores (:func:`task_scores`)
and, when that is 1, its category: the type most of the score-1 verdicts name. Per column
the judge calls a defect only with a score of 1 *and* the column's category (``label_map``,
``COL=CATEGORY``, by rubric id or name; unmapped, the column's own name): a verdict of
another category counts as no defect for that column. Each comparison is
:func:`judgekit.audit.calibrate.calibrate`'s (agreement, Cohen's kappa with its bootstrap
interval, precision and recall of defect calls, the confusion matrix). With a jury the
same is given per judge. With several raters, their agreement is Krippendorff's alpha
with the interval metric: per column on the raw scores, overall on the defect calls.

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "labels.csv"
    >>> _ = p.write_text("instance_id,underspecified,false_negative\\na,3,0\\nb,0,1\\n")
    >>> labels = read_scale_labels(p, ["underspecified", "false_negative"], threshold=2)
    >>> labels.overall, labels.by_column["underspecified"]
    ({'a': 1, 'b': 0}, {'a': 1, 'b': 0})
"""

from __future__ import annotations

import csv
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from io import BytesIO, TextIOWrapper
from pathlib import Path

from pydantic import BaseModel, Field

from judgekit import stats
from judgekit.audit.records import AuditRecord
from judgekit.audit.calibrate import Calibration, InterRater, calibrate, task_scores
from judgekit.errors import InputError
from judgekit.io import read_unzipped

ID_COLUMNS = ("task_id", "instance_id")
DEFAULT_THRESHOLD = 2.0


@dataclass
class ScaleLabels:
    """Human labels of one CSV of severity scales, per item."""

    path: Path
    id_column: str
    columns: list[str]
    threshold: float
    rater_column: str | None = None
    rows: int = 0
    #: item -> 0/1, overall and per column (items without a call, or tied, left out).
    overall: dict[str, int] = field(default_factory=dict)
    by_column: dict[str, dict[str, int]] = field(default_factory=dict)
    #: items whose rows give no call, overall and per column.
    unlabelled: list[str] = field(default_factory=list)
    unlabelled_by_column: dict[str, list[str]] = field(default_factory=dict)
    ties: list[str] = field(default_factory=list)
    ties_by_column: dict[str, list[str]] = field(default_factory=dict)
    #: item -> one entry per row (rater): the column's score, or the overall call.
    scores: dict[str, dict[str, list[float | None]]] = field(default_factory=dict)
    calls: dict[str, list[int | None]] = field(default_factory=dict)
    raters: set[str] = field(default_factory=set)


def _score(raw: str | None, path: Path, where: str) -> float | None:
    text = (raw or "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise InputError(path, where, f"{raw!r} is not a number")
    return value


def _majority(calls: Sequence[int | None]) -> int | None | str:
    """0 or 1 by majority of the given calls; ``"tie"`` on a tie; None when none given."""
    given = [c for c in calls if c is not None]
    if not given:
        return None
    ones = sum(given)
    if 2 * ones == len(given):
        return "tie"
    return int(2 * ones > len(given))


def read_scale_labels(path: str | Path, columns: Sequence[str], *,
                      threshold: float = DEFAULT_THRESHOLD,
                      rater_column: str | None = None) -> ScaleLabels:
    """Human labels from a CSV of severity scales (see the module text): one row per item,
    or per item and rater. A missing column, an empty id or a score that is not a number
    raises :class:`~judgekit.errors.InputError` naming the line and the column."""
    p = Path(path)
    if not p.is_file():
        raise InputError(p, None, "labels file not found")
    fh = TextIOWrapper(BytesIO(read_unzipped(p)), encoding="utf-8-sig", newline="")
    with fh:
        try:
            reader = csv.DictReader(fh)
            fields = [f.strip() for f in reader.fieldnames or []]
        except (UnicodeDecodeError, csv.Error) as exc:
            raise InputError(p, "header", f"not a UTF-8 CSV ({exc})") from None
        reader.fieldnames = fields
        id_column = next((c for c in ID_COLUMNS if c in fields), None)
        wanted = [*columns, *([rater_column] if rater_column else [])]
        missing = [c for c in wanted if c not in fields]
        if id_column is None:
            missing.insert(0, " or ".join(ID_COLUMNS))
        if missing:
            raise InputError(p, "header", f"missing column(s) {', '.join(missing)}")
        assert id_column is not None
        out = ScaleLabels(path=p, id_column=id_column, columns=list(columns),
                          threshold=threshold, rater_column=rater_column)
        try:
            for n, row in enumerate(reader, 2):
                _add_row(out, row, p, n)
        except UnicodeDecodeError:
            raise InputError(p, f"line {out.rows + 2}", "not UTF-8 text") from None
        except csv.Error as exc:
            raise InputError(p, f"line {reader.line_num}", f"malformed CSV ({exc})") from None
    _decide(out)
    return out


def _add_row(out: ScaleLabels, row: Mapping[str, str | None], p: Path, n: int) -> None:
    out.rows += 1
    item = (row.get(out.id_column) or "").strip()
    if not item:
        raise InputError(p, f"line {n}: {out.id_column}", "empty")
    if out.rater_column:
        out.raters.add((row.get(out.rater_column) or "").strip())
    scores = {c: _score(row.get(c), p, f"line {n}: {c}") for c in out.columns}
    per = out.scores.setdefault(item, {c: [] for c in out.columns})
    for c, s in scores.items():
        per[c].append(s)
    flags = [None if s is None else int(s >= out.threshold) for s in scores.values()]
    call = 1 if 1 in flags else 0 if flags and None not in flags else None
    out.calls.setdefault(item, []).append(call)


def _decide(out: ScaleLabels) -> None:
    """The items' labels from their rows' calls."""
    for item, calls in out.calls.items():
        got = _majority(calls)
        if got == "tie":
            out.ties.append(item)
        elif got is None:
            out.unlabelled.append(item)
        else:
            out.overall[item] = int(got)
    for c in out.columns:
        labels, ties, blank = {}, [], []
        for item, per in out.scores.items():
            got = _majority([None if s is None else int(s >= out.threshold) for s in per[c]])
            if got == "tie":
                ties.append(item)
            elif got is None:
                blank.append(item)
            else:
                labels[item] = int(got)
        out.by_column[c], out.ties_by_column[c], out.unlabelled_by_column[c] = labels, ties, blank


class ScaleAgreement(Calibration):
    """One judge's (or the jury's) verdicts against the labels: overall defect, then per
    column."""

    categories: dict[str, Calibration] = Field(
        default_factory=dict, description="Per label column: its defect calls against the "
                                          "verdicts of its category (another category "
                                          "counts as no defect).")
    n_labels_without_verdict: int = 0
    n_verdicts_without_label: int = 0


class ScaleCalibration(ScaleAgreement):
    """``judgekit calibrate`` with label columns: verdicts against published severity scales."""

    labels_file: str = ""
    id_column: str = "task_id"
    label_columns: list[str] = Field(default_factory=list)
    label_threshold: float = DEFAULT_THRESHOLD
    label_map: dict[str, str] = Field(default_factory=dict, description="Column -> the "
                                      "rubric category it is compared with.")
    rater_column: str | None = None
    n_items_labelled: int = Field(0, description="Items with an overall human label.")
    n_items_without_label: int = Field(0, description="Items whose rows give no call: "
                                                      "counted, not guessed.")
    label_ties_by_column: dict[str, list[str]] = Field(default_factory=dict)
    inter_rater: InterRater | None = Field(None, description="With a rater column: alpha "
                                           "over the raters' overall defect calls.")
    inter_rater_by_column: dict[str, InterRater] = Field(
        default_factory=dict, description="With a rater column: alpha over each column's "
                                          "raw scores.")
    judges: dict[str, ScaleAgreement] = Field(default_factory=dict, description="With a "
                                              "jury: each judge's own verdicts.")


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.casefold())


def task_categories(records: Sequence[AuditRecord]) -> dict[str, str]:
    """Each task's category: the type most of its valid score-1 verdicts name."""
    kinds: dict[str, Counter[str]] = {}
    for r in records:
        if r.score == 1:
            kinds.setdefault(r.task_id, Counter())[r.deficiency_type or "none"] += 1
    return {t: c.most_common(1)[0][0] for t, c in kinds.items()}


def _agreement(records: Sequence[AuditRecord], labels: ScaleLabels,
               matches: Mapping[str, set[str]], seed: int, resamples: int) -> ScaleAgreement:
    verdicts = task_scores(list(records))
    kinds = task_categories(records)
    base = calibrate(verdicts, labels.overall, seed=seed, resamples=resamples)
    out = ScaleAgreement(**base.model_dump())
    out.label_ties, out.label_rows = sorted(labels.ties), labels.rows
    out.n_labels_without_verdict = len(out.labels_without_verdict)
    out.n_verdicts_without_label = len(out.verdicts_without_label)
    for c in labels.columns:
        called = {t: int(v == 1 and _norm(kinds.get(t, "")) in matches[c])
                  for t, v in verdicts.items()}
        col = calibrate(called, labels.by_column[c], seed=seed, resamples=resamples)
        col.label_ties = sorted(labels.ties_by_column[c])
        out.categories[c] = col
    return out


def _inter_rater(units: Sequence[Sequence[float | None]], n_raters: int,
                 seed: int) -> InterRater:
    alpha, ci, n = stats.krippendorff_alpha_interval(units, seed=seed)
    return InterRater(alpha=alpha, alpha_ci=ci, n_items=n, n_raters=n_raters)


def _juror_records(records: Sequence[AuditRecord]) -> dict[str, list[AuditRecord]]:
    """Each judge's own records, from a jury's (empty with one judge)."""
    out: dict[str, list[AuditRecord]] = {}
    for r in records:
        for label, j in (r.judges or {}).items():
            out.setdefault(label, []).append(r.model_copy(update={
                "state": j.state, "verdict": j.verdict, "deficiency_type": j.deficiency_type,
                "judges": None}))
    return out


def calibrate_scales(records: Sequence[AuditRecord], labels: ScaleLabels, *,
                     label_map: Mapping[str, str] | None = None,
                     category_names: Mapping[str, str] | None = None,
                     seed: int = stats.DEFAULT_SEED,
                     resamples: int = stats.DEFAULT_RESAMPLES) -> ScaleCalibration:
    """The verdicts of ``records`` (an ``audit.jsonl``) against ``labels``; ``label_map``
    pairs a column with a rubric category (by id or name; ``category_names`` maps the
    rubric's ids to the names verdicts carry)."""
    label_map = dict(label_map or {})
    names = {_norm(k): v for k, v in (category_names or {}).items()}
    matches = {}
    for c in labels.columns:
        target = label_map.get(c, c)
        matches[c] = {_norm(target), _norm(names.get(_norm(target), target))}
    main = _agreement(records, labels, matches, seed, resamples)
    out = ScaleCalibration(
        **main.model_dump(), labels_file=labels.path.name, id_column=labels.id_column,
        label_columns=list(labels.columns), label_threshold=labels.threshold,
        label_map=label_map, rater_column=labels.rater_column,
        n_items_labelled=len(labels.overall), n_items_without_label=len(labels.unlabelled),
        label_ties_by_column={c: sorted(t) for c, t in labels.ties_by_column.items()})
    out.categories = main.categories
    out.judges = {label: _agreement(own, labels, matches, seed, resamples)
                  for label, own in _juror_records(records).items()}
    if labels.rater_column:
        n = len(labels.raters)
        out.inter_rater = _inter_rater(list(labels.calls.values()), n, seed)
        out.inter_rater_by_column = {
            c: _inter_rater([per[c] for per in labels.scores.values()], n, seed)
            for c in labels.columns}
    return out


__all__ = ["DEFAULT_THRESHOLD", "InterRater", "ScaleAgreement", "ScaleCalibration",
           "ScaleLabels", "calibrate_scales", "read_scale_labels", "task_categories"]
