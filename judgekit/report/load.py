"""What a report is rendered from, taken from an :class:`EvalResult` or from an output directory.

Everything is typed: the summary is an :class:`~judgekit.summary.EvalSummary`, the records
are :class:`~judgekit.pairwise.PairRecord` and :class:`~judgekit.audit.AuditRecord`, each
built with ``model_validate``, from the objects in memory or from the lines on disk.

An output directory (where ``judgekit score``, ``judge`` and ``audit`` write) holds
``summary.json`` (required), ``runs.jsonl`` (the loaded results, with diffs and test
output), ``pairwise.jsonl``, ``audit.jsonl`` and ``calibration.json`` (what ``judgekit
calibrate`` found); the last four are optional. ``judgekit report DIR`` rebuilds the
reports from these files alone.

Example:
    >>> inputs = ReportInputs.of({"results": [], "arms": {}, "comparisons": [], "seed": 0})
    >>> inputs.pairwise, inputs.audit, inputs.summary.audit
    ([], [], None)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from pydantic import BaseModel

from judgekit.audit.records import AuditRecord
from judgekit.audit.kind import AUDIT
from judgekit.errors import InputError
from judgekit.io import read_json, read_json_lines
from judgekit.outputs import RUNS_FILE, SUMMARY_FILE
from judgekit.pairwise.kind import PAIRWISE
from judgekit.pairwise.records import PairRecord
from judgekit.step_registry import STEPS
from judgekit.steps import StepKind
from judgekit.report.calibration import CalibrationFile, read_calibration
from judgekit.report.parts_cache import PartsCache
from judgekit.ingest import RunResult
from judgekit.ingest.load import read_jsonl
from judgekit.ingest.validation import validate
from judgekit.summary import EvalSummary, summary_of

if TYPE_CHECKING:
    from judgekit.evaluate import EvalResult

M = TypeVar("M", bound=BaseModel)
R = TypeVar("R", bound=BaseModel)


@dataclass
class ReportInputs:
    """The typed summary plus the per-item records a report shows, each step's by its
    descriptor (:mod:`judgekit.step_registry`)."""

    summary: EvalSummary
    runs: list[RunResult] = field(default_factory=list)
    #: each registered step's records, by the step's name (steps that ran only).
    records: dict[str, list[BaseModel]] = field(default_factory=dict)
    #: ``calibration.json``: the verdicts measured against labels (``judgekit calibrate``).
    calibration: CalibrationFile | None = None
    #: parts rendered ahead (diffs, test output); a cache, not data: the report is the same
    #: without it.
    prepared: PartsCache | None = field(default=None, repr=False, compare=False)

    def records_of(self, kind: StepKind[R, Any]) -> list[R]:
        """The records of the step ``kind`` describes (empty when it did not run); they were
        validated into ``kind.record`` when they were taken in."""
        return cast("list[R]", self.records.get(kind.name, []))

    @property
    def pairwise(self) -> list[PairRecord]:
        """Pairwise judging's records."""
        return self.records_of(PAIRWISE)

    @property
    def audit(self) -> list[AuditRecord]:
        """The audit's records."""
        return self.records_of(AUDIT)

    @classmethod
    def of(cls, summary: EvalSummary | dict[str, Any], *, runs: Sequence[RunResult] = (),
           pairwise: Sequence[PairRecord | dict[str, Any]] = (),
           audit: Sequence[AuditRecord | dict[str, Any]] = ()) -> ReportInputs:
        """Inputs from a summary and records, each validated into its model."""
        given: dict[str, list[BaseModel]] = {}
        for kind, records in ((PAIRWISE, pairwise), (AUDIT, audit)):
            if records:
                given[kind.name] = [kind.read_record(r) for r in records]
        return cls(summary=EvalSummary.model_validate(summary), runs=list(runs),
                   records=given)

    @classmethod
    def from_result(cls, result: EvalResult, prepared: PartsCache | None = None,
                    summary: EvalSummary | None = None) -> ReportInputs:
        """Collect the inputs of an in-memory evaluation (no file is read or written);
        ``prepared`` holds parts of its report rendered ahead, ``summary`` its typed summary
        when the caller has made it already (:func:`judgekit.summary.summary_of`)."""
        records: dict[str, list[BaseModel]] = {}
        for kind in STEPS:
            part = result.part(kind)
            if part is not None:
                records[kind.name] = [kind.read_record(r) for r in part.records]
        return cls(
            prepared=prepared,
            summary=summary if summary is not None else summary_of(result),
            runs=list(result.runs), records=records)


def load_summary(path: str | Path) -> EvalSummary:
    """Read and validate ``summary.json``; any problem is an :class:`InputError`."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, None,
                         "no such file (is this an {option:out} directory of judgekit?)")
    data = read_json(path, limit=None)  # judgekit's own, as large as the run it scores
    if not isinstance(data, dict):
        raise InputError(path, None, "expected a JSON object")
    return validate(EvalSummary, data, path)


def load_records(path: str | Path, model: type[M]) -> list[M]:
    """Read a JSON-lines file of ``model`` records; an InputError names the line and field."""
    path = Path(path)
    return [validate(model, obj, path, f"line {n}: ") for n, obj in read_json_lines(path)]


def load_runs_jsonl(path: str | Path) -> list[RunResult]:
    """Read ``runs.jsonl`` (one :class:`RunResult` a line)."""
    return read_jsonl(path)


def load_report_dir(out_dir: str | Path) -> ReportInputs:
    """Rebuild :class:`ReportInputs` from the files of an output directory."""
    out = Path(out_dir)
    if not out.is_dir():
        raise InputError(out, None, "not a directory")
    summary = load_summary(out / SUMMARY_FILE)
    runs_path = out / RUNS_FILE
    records: dict[str, list[BaseModel]] = {}
    for kind in STEPS:
        path = out / kind.records_file if kind.records_file is not None else None
        if path is not None and path.is_file():
            records[kind.name] = list(load_records(path, kind.record))
    return ReportInputs(
        summary=summary,
        runs=load_runs_jsonl(runs_path) if runs_path.is_file() else [],
        records=records, calibration=read_calibration(out))
