"""Labels that survive anything: one JSON line per label, appended and synced as it is given.

``labels/pairwise.jsonl`` holds :class:`~judgekit.pairwise.gold.GoldLabel` lines (what
``judgekit schema pairwise-label`` describes, with ``labeller``, ``time`` and
``shown_sha256``); ``labels/audit.jsonl`` holds :class:`AuditLabel` lines. A later line for
the same item by the same labeller supersedes an earlier one. The files are read and
appended by :mod:`judgekit.review.labelfile`: never through a link, each label a whole line
or nothing (the server acknowledges a label only once it is synced); a line that is not a
whole label (cut short by a crash) is left out and reported, never removed.

Example:
    >>> import tempfile
    >>> from pathlib import Path
    >>> store = LabelStore(Path(tempfile.mkdtemp()), "ana")
    >>> _ = store.add_pairwise("t1", "x", "y", "minimality", "B", shown_sha256="00")
    >>> _ = store.add_pairwise("t1", "x", "y", "minimality", "draw", shown_sha256="00")
    >>> store.pairwise[("t1", "x", "y", "minimality", None, None)].label
    'draw'
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal, TypeVar

from pydantic import BaseModel, Field, ValidationError

from judgekit.audit.calibrate import LabelSet, majority_labels
from judgekit.audit.kind import AUDIT
from judgekit.errors import InputError
from judgekit.outputs import LABELS_DIR
from judgekit.pairwise.gold import Chosen, GoldLabel, GoldSet, Label, gold_set
from judgekit.pairwise.kind import PAIRWISE
from judgekit.review.labelfile import append_line, read_label_lines

#: the labels of each step's records are kept under its records file's name.
PAIRWISE_FILE = str(PAIRWISE.records_file)
AUDIT_FILE = str(AUDIT.records_file)
PairKey = tuple[str, str, str, str, int | None, int | None]
"""(task id, arm_a, arm_b, dimension, attempt_a, attempt_b) as the record names the arms."""
AuditKey = tuple[str, str, int, str]
"""(task id, arm, attempt, run id or "")."""


class AuditLabel(BaseModel):
    """One person's verdict on one audited result: 1, a defect of the task; 0, the agent's
    fault."""

    task_id: str = Field(min_length=1)
    arm: str = Field(min_length=1)
    attempt: int = 0
    run_id: str | None = None
    label: Literal[0, 1] = Field(description="1: a defect of the task caused the failure; "
                                             "0: the failure is the agent's.")
    category: str | None = Field(None, description="The rubric category, when given.")
    labeller: str
    time: str
    shown_sha256: str
    chosen: Chosen | None = Field(
        None, description="How the item was chosen for labelling: random (the review "
                          "queue's seeded random order, taken in order), filter or hand. "
                          "Absent: not recorded, taken as not random.")
    queue_seed: int | None = Field(None, description="The seed of the random queue order.")
    queue_position: int | None = Field(None, description="The item's place in that order.")

    def key(self) -> AuditKey:
        return (self.task_id, self.arm, self.attempt, self.run_id or "")


def _pair_key(g: GoldLabel) -> PairKey:
    return (g.task_id, g.arm_a, g.arm_b, g.dimension, g.attempt_a, g.attempt_b)


K = TypeVar("K", PairKey, AuditKey)
L = TypeVar("L", GoldLabel, AuditLabel)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _read_lines(out_dir: Path, name: str, bad: list[str] | None = None
                ) -> list[tuple[int, dict[str, object]]]:
    """The JSON objects of ``out_dir/labels/name`` with their line numbers; each line that
    is not a whole label (a fragment left by a crash, never confirmed) is left out, kept in
    the file, and described in ``bad``."""
    got = read_label_lines(out_dir, name)
    if bad is not None:
        path = out_dir / LABELS_DIR / name
        bad.extend(f"{path}: line {n}: {why}" for n, why in got.bad)
    return got.rows


def audit_label_set(out_dir: Path,
                    fresh: Callable[[AuditLabel], bool] | None = None,
                    bad: list[str] | None = None) -> LabelSet:
    """The audit labels of ``out_dir/labels/audit.jsonl`` as ``judgekit calibrate`` measures
    them: each labeller's last label per result, then per task the majority of them (a
    task whose labels split evenly is a tie, left out). A line that is not a whole label
    is left out (the file is not changed), counted with the blank rows and described in
    ``bad``. With two or more labellers, each
    one's own task labels too, and each result's labels by labeller. A labeller's last
    label that ``fresh`` rejects is stale: left out and counted."""
    path = out_dir / LABELS_DIR / AUDIT_FILE
    if not path.is_file():
        raise InputError(path, None, "labels file not found")
    got = read_label_lines(out_dir, AUDIT_FILE)
    rows = got.rows
    torn = len(got.bad) - got.recovered  # the lines left out
    if bad is not None:
        bad.extend(f"{path}: line {n}: {why}" for n, why in got.bad)
    last: dict[tuple[str, AuditKey], AuditLabel] = {}
    for n, obj in rows:
        a = LabelStore._validate(AuditLabel, obj, path, n)
        last[(a.labeller, a.key())] = a
    stale = {k for k, a in last.items() if fresh is not None and not fresh(a)}
    last = {k: a for k, a in last.items() if k not in stale}
    out = _task_labels(last.values(), rows=len(rows) + torn, blank=torn)
    out.stale = len(stale)
    out.labellers = sorted({who for who, _ in last})
    if len(out.labellers) > 1:
        out.by_labeller = {who: _task_labels([a for (w, _), a in last.items() if w == who])
                           for who in out.labellers}
        for a in last.values():
            out.by_result.setdefault(_result_name(a.key()), {})[a.labeller] = a.label
    return out


def pairwise_gold_set(out_dir: Path, fresh: Callable[[GoldLabel], bool] | None = None,
                      bad: list[str] | None = None) -> GoldSet:
    """The pairwise labels of ``out_dir/labels/pairwise.jsonl`` as ``judgekit calibrate``
    measures them (:func:`~judgekit.pairwise.gold.read_gold`), read as the app writes them:
    never through a link, each line that is not a whole label left out, kept in the file
    and described in ``bad``."""
    path = out_dir / LABELS_DIR / PAIRWISE_FILE
    if not path.is_file():
        raise InputError(path, None, "labels file not found")
    return gold_set(path, _read_lines(out_dir, PAIRWISE_FILE, bad), fresh)


def _task_labels(given: Iterable[AuditLabel], rows: int | None = None,
                 blank: int = 0) -> LabelSet:
    """Per task the majority of ``given`` (ties left out); ``rows`` defaults to how many."""
    votes: dict[str, list[int]] = {}
    for a in given:
        votes.setdefault(a.task_id, []).append(a.label)
    labels, ties = majority_labels(votes)
    n = sum(len(v) for v in votes.values())
    return LabelSet(labels=labels, column="label", rows=n if rows is None else rows,
                    blank=blank, ties=ties, runs_per_task={t: len(v) for t, v in votes.items()})


def _result_name(key: AuditKey) -> str:
    task_id, arm, attempt, run_id = key
    return f"{task_id} / {arm} / attempt {attempt}" + (f" / {run_id}" if run_id else "")


class LabelStore:
    """The labels of one output directory: every labeller's, the effective one per item and
    labeller (the last given), and appends for ``labeller``."""

    def __init__(self, out_dir: Path, labeller: str) -> None:
        self.dir = out_dir / LABELS_DIR
        self.labeller = labeller
        #: each line of the label files that is not a whole label (left out, kept)
        self.bad_lines: list[str] = []
        self._lock = threading.Lock()
        self.pairwise: dict[PairKey, GoldLabel] = {}
        self.audit: dict[AuditKey, AuditLabel] = {}
        rows = _read_lines(out_dir, PAIRWISE_FILE, self.bad_lines)
        for n, obj in rows:
            g = self._validate(GoldLabel, obj, self.dir / PAIRWISE_FILE, n)
            if g.labeller == labeller:
                self.pairwise[_pair_key(g)] = g
        rows = _read_lines(out_dir, AUDIT_FILE, self.bad_lines)
        for n, obj in rows:
            a = self._validate(AuditLabel, obj, self.dir / AUDIT_FILE, n)
            if a.labeller == labeller:
                self.audit[a.key()] = a

    @staticmethod
    def _validate(model: type[BaseModel], obj: dict[str, object], path: Path, n: int):  # type: ignore[no-untyped-def]
        try:
            return model.model_validate(obj)
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(x) for x in err["loc"]) or None
            raise InputError(path, f"line {n}: {field}" if field else f"line {n}",
                             err["msg"]) from None

    def add_pairwise(self, task_id: str, arm_a: str, arm_b: str, dimension: str,
                     label: Label, *, shown_sha256: str, attempt_a: int | None = None,
                     attempt_b: int | None = None) -> GoldLabel:
        g = GoldLabel(task_id=task_id, arm_a=arm_a, arm_b=arm_b, attempt_a=attempt_a,
                      attempt_b=attempt_b, dimension=dimension,
                      label=label, note=None, labeller=self.labeller, time=_now(),
                      shown_sha256=shown_sha256)
        self._keep(PAIRWISE_FILE, g, self.pairwise, _pair_key(g))
        return g

    def add_audit(self, key: AuditKey, label: Literal[0, 1], *, category: str | None,
                  shown_sha256: str) -> AuditLabel:
        task_id, arm, attempt, run_id = key
        a = AuditLabel(task_id=task_id, arm=arm, attempt=attempt, run_id=run_id or None,
                       label=label, category=category, labeller=self.labeller, time=_now(),
                       shown_sha256=shown_sha256)
        self._keep(AUDIT_FILE, a, self.audit, key)
        return a

    def _keep(self, name: str, label: L, table: dict[K, L], key: K) -> None:
        """Append ``label`` to file ``name`` and sync it, then keep it as ``table[key]``."""
        line = json.dumps(label.model_dump(mode="json", exclude_none=True)) + "\n"
        with self._lock:
            append_line(self.dir.parent, name, line.encode("utf-8"))
            table[key] = label
