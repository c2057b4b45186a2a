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
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel

from judgekit.audit import AuditRecord
from judgekit.errors import InputError
from judgekit.io import read_json, read_json_lines
from judgekit.pairwise import PairRecord
from judgekit.report.calibration import CalibrationFile, read_calibration
from judgekit.report.parts_cache import PartsCache
from judgekit.ingest import RunResult
from judgekit.ingest.load import read_jsonl
from judgekit.ingest.validation import validate
from judgekit.summary import EvalSummary, summary_of

if TYPE_CHECKING:
    from judgekit.evaluate import EvalResult

M = TypeVar("M", bound=BaseModel)


@runtime_checkable
class RecordedPart(Protocol):
    """A judged part that keeps its per-item records in memory."""

    records: Sequence[Any]


@dataclass
class ReportInputs:
    """The typed summary plus the per-item records a report shows."""

    summary: EvalSummary
    runs: list[RunResult] = field(default_factory=list)
    pairwise: list[PairRecord] = field(default_factory=list)
    audit: list[AuditRecord] = field(default_factory=list)
    #: ``calibration.json``: the verdicts measured against labels (``judgekit calibrate``).
    calibration: CalibrationFile | None = None
    #: parts rendered ahead (diffs, test output); a cache, not data: the report is the same
    #: without it.
    prepared: PartsCache | None = field(default=None, repr=False, compare=False)

    @classmethod
    def of(cls, summary: EvalSummary | dict[str, Any], *, runs: Sequence[RunResult] = (),
           pairwise: Sequence[PairRecord | dict[str, Any]] = (),
           audit: Sequence[AuditRecord | dict[str, Any]] = ()) -> ReportInputs:
        """Inputs from a summary and records, each validated into its model."""
        return cls(summary=EvalSummary.model_validate(summary), runs=list(runs),
                   pairwise=[PairRecord.model_validate(r) for r in pairwise],
                   audit=[AuditRecord.model_validate(r) for r in audit])

    @classmethod
    def from_result(cls, result: EvalResult, prepared: PartsCache | None = None,
                    summary: EvalSummary | None = None) -> ReportInputs:
        """Collect the inputs of an in-memory evaluation (no file is read or written);
        ``prepared`` holds parts of its report rendered ahead, ``summary`` its typed summary
        when the caller has made it already (:func:`judgekit.summary.summary_of`)."""
        return cls(
            prepared=prepared,
            summary=summary if summary is not None else summary_of(result),
            runs=list(result.runs),
            pairwise=_records(result.pairwise, PairRecord),
            audit=_records(result.audit, AuditRecord),
        )


def _records(part: object | None, model: type[M]) -> list[M]:
    if part is None:
        return []
    if not isinstance(part, RecordedPart):
        raise TypeError(f"{type(part).__name__} keeps no records to report")
    return [model.model_validate(r) for r in part.records]


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
    summary = load_summary(out / "summary.json")
    runs_path, pair_path, audit_path = (out / n for n in ("runs.jsonl", "pairwise.jsonl",
                                                           "audit.jsonl"))
    return ReportInputs(
        summary=summary,
        runs=load_runs_jsonl(runs_path) if runs_path.is_file() else [],
        pairwise=load_records(pair_path, PairRecord) if pair_path.is_file() else [],
        audit=load_records(audit_path, AuditRecord) if audit_path.is_file() else [],
        calibration=read_calibration(out))
