"""Compare audit verdicts with human labels, task by task.

Each task's verdict is the majority of its valid result-level scores (a tie counts as 0,
as in :func:`judgekit.audit.aggregate.majority_score`). Reported: agreement, Cohen's kappa
with a seeded percentile-bootstrap 95% interval (and the large-sample analytic one), and
the confusion matrix with the judge's calls as rows and the human labels as columns.

Example:
    >>> c = calibrate({"a": 1, "b": 0, "c": 0, "d": 1}, {"a": 1, "b": 0, "c": 1, "d": 1})
    >>> c.n, c.agreement, c.confusion["judge_1_human_1"]
    (4, 0.75, 2)
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
from pydantic import BaseModel, Field, ValidationError

from judgekit import stats
from judgekit.audit.aggregate import AuditRecord, aggregate_tasks
from judgekit.errors import InputError

_LABELS = {"0": 0, "1": 1, "false": 0, "true": 1, "no": 0, "yes": 1}


class Calibration(BaseModel):
    """How well task-level audit verdicts match human labels."""

    n: int = Field(description="Tasks with both a verdict and a label.")
    agreement: float | None
    kappa: float | None
    kappa_ci: tuple[float, float] | None = Field(None, description="Percentile bootstrap, 95%.")
    kappa_ci_analytic: tuple[float, float] | None = None
    confusion: dict[str, int]
    judge_ife_precision: float | None = None
    judge_ife_recall: float | None = None
    disagreements: list[str] = Field(default_factory=list)
    labels_without_verdict: list[str] = Field(default_factory=list)
    verdicts_without_label: list[str] = Field(default_factory=list)
    resamples: int = stats.DEFAULT_RESAMPLES
    seed: int = stats.DEFAULT_SEED


def load_verdicts(path: str | Path) -> list[AuditRecord]:
    """Records of an ``audit.jsonl`` (or of the one inside directory ``path``)."""
    p = Path(path)
    if p.is_dir():
        p = p / "audit.jsonl"
    if not p.is_file():
        raise InputError(p, None, "no audit.jsonl found")
    records = []
    for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            records.append(AuditRecord.model_validate(json.loads(line)))
        except (ValueError, ValidationError) as exc:
            reason = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
            raise InputError(p, f"line {n}", reason) from None
    return records


def task_scores(records: list[AuditRecord]) -> dict[str, int]:
    """Each task's majority verdict; tasks without any valid verdict are left out."""
    return {t.task_id: t.task_score for t in aggregate_tasks(records)
            if t.task_score is not None}


def load_labels(path: str | Path) -> dict[str, int]:
    """Human labels from a CSV with columns ``task_id`` and ``label`` (0 or 1)."""
    p = Path(path)
    if not p.is_file():
        raise InputError(p, None, "labels file not found")
    with p.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        missing = {"task_id", "label"} - set(reader.fieldnames or [])
        if missing:
            raise InputError(p, "header", f"missing column(s) {', '.join(sorted(missing))}")
        labels: dict[str, int] = {}
        for n, row in enumerate(reader, 2):
            task, raw = (row.get("task_id") or "").strip(), (row.get("label") or "").strip()
            if not task:
                raise InputError(p, f"line {n}: task_id", "empty")
            if raw.casefold() not in _LABELS:
                raise InputError(p, f"line {n}: label", f"{raw!r} is not 0 or 1")
            value = _LABELS[raw.casefold()]
            if labels.get(task, value) != value:
                raise InputError(p, f"line {n}: label", f"task {task!r} labelled both 0 and 1")
            labels[task] = value
    return labels


def _bootstrap_kappa(a: np.ndarray, b: np.ndarray, seed: int, resamples: int) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, a.size, size=(resamples, a.size))
    x, y = a[idx], b[idx]
    po = (x == y).mean(axis=1)
    px, py = x.mean(axis=1), y.mean(axis=1)
    pe = px * py + (1 - px) * (1 - py)
    with np.errstate(divide="ignore", invalid="ignore"):
        kappas = np.where(pe >= 1.0, 1.0, (po - pe) / np.where(pe >= 1.0, 0.5, 1 - pe))
    return (float(np.percentile(kappas, 2.5)), float(np.percentile(kappas, 97.5)))


def calibrate(verdicts: dict[str, int], labels: dict[str, int], *,
              seed: int = stats.DEFAULT_SEED,
              resamples: int = stats.DEFAULT_RESAMPLES) -> Calibration:
    """Compare task-level verdicts (task id → 0/1) with human labels (task id → 0/1)."""
    common = sorted(set(verdicts) & set(labels))
    judge = [verdicts[t] for t in common]
    human = [labels[t] for t in common]
    cells = {f"judge_{j}_human_{h}": 0 for j in (1, 0) for h in (1, 0)}
    for j, h in zip(judge, human):
        cells[f"judge_{j}_human_{h}"] += 1
    out = Calibration(
        n=len(common), agreement=None, kappa=None, confusion=cells, seed=seed,
        resamples=resamples, disagreements=[t for t, j, h in zip(common, judge, human) if j != h],
        labels_without_verdict=sorted(set(labels) - set(verdicts)),
        verdicts_without_label=sorted(set(verdicts) - set(labels)))
    if not common:
        return out
    n = len(common)
    po = sum(j == h for j, h in zip(judge, human)) / n
    pj, ph = sum(judge) / n, sum(human) / n
    pe = pj * ph + (1 - pj) * (1 - ph)
    out.agreement = round(po, 6)
    out.kappa = round(stats.cohen_kappa(judge, human), 6)
    out.kappa_ci = _bootstrap_kappa(np.array(judge), np.array(human), seed, resamples)
    if pe < 1:
        se = math.sqrt(po * (1 - po) / (n * (1 - pe) ** 2))
        out.kappa_ci_analytic = (max(-1.0, out.kappa - stats.Z95 * se),
                                 min(1.0, out.kappa + stats.Z95 * se))
    tp, fp, fn = (cells["judge_1_human_1"], cells["judge_1_human_0"], cells["judge_0_human_1"])
    out.judge_ife_precision = tp / (tp + fp) if tp + fp else None
    out.judge_ife_recall = tp / (tp + fn) if tp + fn else None
    return out
