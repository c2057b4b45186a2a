"""Write an evaluation's files and reports.

``write_reports(result, DIR)`` writes, each file atomically:

- ``summary.json``: the summary dictionary (scores, arms, comparisons, warnings, and
  ``pairwise`` / ``audit`` when those steps ran);
- ``results.jsonl``: one scored result a line;
- ``runs.jsonl``: one loaded run result a line (diffs, test output), so the reports can be
  rebuilt from DIR alone;
- ``pairwise.jsonl`` and ``audit.jsonl`` when those steps ran;
- ``report.md`` and ``report.html``.

``render_reports(DIR)`` rebuilds the two reports from those files, without any model call.

Example:
    >>> from judgekit import evaluate                       # doctest: +SKIP
    >>> write_reports(evaluate(["examples/bobbin"]), "out")  # doctest: +SKIP
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from judgekit.io import atomic_write_text
from judgekit.report.html import render_html
from judgekit.report.load import ReportInputs, load_report_dir
from judgekit.report.markdown import render_markdown

if TYPE_CHECKING:
    from judgekit.evaluate import EvalResult

REPORT_FILES: tuple[str, ...] = ("report.html", "report.md")


def write_report_files(inputs: ReportInputs, out_dir: str | Path) -> list[Path]:
    """Write ``report.html`` and ``report.md`` for ``inputs``; return their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out / "report.md", render_markdown(inputs))
    atomic_write_text(out / "report.html", render_html(inputs))
    return [out / name for name in REPORT_FILES]


def write_reports(result: EvalResult, out_dir: str | Path) -> None:
    """Write every file of ``result`` into ``out_dir``, each one atomically."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    inputs = ReportInputs.from_result(result)
    atomic_write_text(out / "summary.json", json.dumps(inputs.summary, indent=2) + "\n")
    atomic_write_text(out / "results.jsonl", "".join(
        r.model_dump_json() + "\n" for r in result.summary.results))
    atomic_write_text(out / "runs.jsonl", "".join(r.model_dump_json() + "\n" for r in result.runs))
    for name, part in (("pairwise.jsonl", result.pairwise), ("audit.jsonl", result.audit)):
        if part is not None:
            atomic_write_text(out / name, part.records_jsonl())
    write_report_files(inputs, out)


def render_reports(out_dir: str | Path) -> list[Path]:
    """Rebuild ``report.html`` and ``report.md`` from the files in ``out_dir``."""
    return write_report_files(load_report_dir(out_dir), out_dir)


__all__ = ["ReportInputs", "load_report_dir", "render_reports", "write_report_files",
           "write_reports"]
