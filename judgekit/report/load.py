"""What a report is rendered from, taken from an :class:`EvalResult` or from an output directory.

An output directory (``--out DIR``) holds ``summary.json`` (required), ``runs.jsonl`` (the
loaded results, with diffs and test output), ``pairwise.jsonl`` and ``audit.jsonl``; the
last three are optional. ``judgekit report DIR`` rebuilds the reports from these files alone.

Example:
    >>> inputs = ReportInputs(summary={"results": [], "arms": {}, "comparisons": []})
    >>> inputs.pairwise, inputs.audit
    ([], [])
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any


from judgekit.errors import InputError
from judgekit.io import json_lines
from judgekit.runs.load import read_jsonl
from judgekit.runs.models import RunResult

if TYPE_CHECKING:
    from judgekit.evaluate import EvalResult

#: Keys ``summary.json`` must hold for a report to be rendered from it.
REQUIRED_SUMMARY_KEYS: tuple[str, ...] = ("results", "arms", "comparisons")


@dataclass
class ReportInputs:
    """The summary dictionary plus the per-item records a report shows."""

    summary: dict[str, Any]
    runs: list[RunResult] = field(default_factory=list)
    pairwise: list[dict[str, Any]] = field(default_factory=list)
    audit: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def from_result(cls, result: EvalResult) -> ReportInputs:
        """Collect the inputs of an in-memory evaluation (no file is read)."""
        return cls(
            summary=result.summary_dict(),
            runs=list(result.runs),
            pairwise=_parse_lines(result.pairwise.records_jsonl(), "pairwise records")
            if result.pairwise is not None else [],
            audit=_parse_lines(result.audit.records_jsonl(), "audit records")
            if result.audit is not None else [],
        )


def _parse_lines(text: str, where: str | Path) -> list[dict[str, Any]]:
    records = []
    for n, obj in json_lines(text, where):
        if not isinstance(obj, dict):
            raise InputError(where, f"line {n}", "expected a JSON object")
        records.append(obj)
    return records


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(path, None, f"cannot read ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise InputError(path, None, "not UTF-8 text") from None


def load_summary(path: str | Path) -> dict[str, Any]:
    """Read and check ``summary.json``; any problem is an :class:`InputError`."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, None, "no such file (is this an --out directory of judgekit?)")
    try:
        data = json.loads(_read(path))
    except json.JSONDecodeError as exc:
        raise InputError(path, f"line {exc.lineno}", f"malformed JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise InputError(path, None, "expected a JSON object")
    for key in REQUIRED_SUMMARY_KEYS:
        if key not in data:
            raise InputError(path, key, "field required")
    if not isinstance(data["results"], list):
        raise InputError(path, "results", "expected a list")
    if not isinstance(data["arms"], dict):
        raise InputError(path, "arms", "expected an object")
    if not isinstance(data["comparisons"], list):
        raise InputError(path, "comparisons", "expected a list")
    return data


def load_runs_jsonl(path: str | Path) -> list[RunResult]:
    """Read ``runs.jsonl`` (one :class:`RunResult` a line)."""
    return read_jsonl(path)


def load_report_dir(out_dir: str | Path) -> ReportInputs:
    """Rebuild :class:`ReportInputs` from the files of an output directory."""
    out = Path(out_dir)
    if not out.is_dir():
        raise InputError(out, None, "not a directory")
    summary = load_summary(out / "summary.json")
    runs_path = out / "runs.jsonl"
    runs = load_runs_jsonl(runs_path) if runs_path.is_file() else []
    records = {}
    for name in ("pairwise", "audit"):
        path = out / f"{name}.jsonl"
        records[name] = _parse_lines(_read(path), path) if path.is_file() else []
    return ReportInputs(summary=summary, runs=runs, **records)
