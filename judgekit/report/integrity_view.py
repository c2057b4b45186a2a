"""The integrity step's part of ``report.md`` and ``report.html``: per arm, the pass rate as
reported beside the pass rate with flagged passes counted as failures, the ranking changes,
the flagged results with their evidence, and a warning at the top of the page when any arm
has findings.

Example:
    >>> from judgekit.summary import EvalSummary
    >>> s = EvalSummary.model_validate({"results": [], "arms": {}, "comparisons": [],
    ...     "seed": 0})
    >>> top_markdown(ReportInputs.of(s))
    []
"""

from __future__ import annotations

from judgekit.integrity.kind import INTEGRITY, arm_lines, item_count
from judgekit.integrity.models import IntegrityRecord
from judgekit.report import markdown_blocks
from judgekit.report.format import pct
from judgekit.report.load import ReportInputs
from judgekit.report.markup import e, not_run, section, table

_SHOWN = 200


def _warning(inputs: ReportInputs) -> str | None:
    s = inputs.summary.integrity
    if s is None or not s.n_flagged:
        return None
    arms = [name for name, a in s.arms.items() if a.n_flagged]
    return (f"Integrity: {s.n_flagged} result(s) flagged in arm(s) {', '.join(arms)}; "
            f"{s.n_flagged_passes} pass(es) counted as failures in the adjusted pass rate "
            f"({s.rule}). See the integrity section.")


def top_markdown(inputs: ReportInputs) -> list[str]:
    """The warning that leads the report when any arm has findings."""
    w = _warning(inputs)
    return [f"> **Warning.** {w}", ""] if w else []


def top_html(inputs: ReportInputs) -> str:
    w = _warning(inputs)
    return f'<div class="warning integrity-warning"><p>{e(w)}</p></div>' if w else ""


def _records(inputs: ReportInputs) -> list[IntegrityRecord]:
    return inputs.records_of(INTEGRITY)


def _rows(inputs: ReportInputs) -> list[list[object]]:
    out: list[list[object]] = []
    for r in _records(inputs)[:_SHOWN]:
        for f in r.findings:
            out.append([str(r.key()), r.test_status, f.kind, f.severity, r.confirmation,
                        f.evidence.where(), f.detail])
    return out


_HEAD = ["result", "tests", "finding", "severity", "judge", "where", "what"]


def _arm_rows(inputs: ReportInputs) -> list[list[object]]:
    s = inputs.summary.integrity
    if s is None:
        return []
    return [[name, a.n, pct(a.pass_rate), pct(a.pass_rate_adjusted), a.n_flagged_passes,
             a.n_flagged, a.n_without_transcript] for name, a in s.arms.items()]


_ARM_HEAD = ["arm", "results", "pass rate (reported)", "pass rate (flagged passes failed)",
             "flagged passes", "flagged results", "without transcript"]


def _item_rows(inputs: ReportInputs) -> list[list[object]]:
    return [[r.task_id, f.kind, pct(f.share or 0.0), f.evidence.where(), f.evidence.excerpt]
            for r in _records(inputs)[:_SHOWN] for f in r.findings]


_ITEM_HEAD = ["item", "finding", "share of the fix in the issue text", "where", "line"]


def markdown_section(inputs: ReportInputs) -> list[str]:
    s = inputs.summary.integrity
    items = inputs.summary.integrity_items
    if s is None and items is not None:
        lines = ["## Integrity of the items", "", item_count(items) + ".",
                 ""]
        rows = _item_rows(inputs)
        return lines + (markdown_blocks.table(_ITEM_HEAD, rows) if rows else [])
    if s is None:
        return ["## Integrity", "", "The integrity checks were not run.", ""]
    lines = ["## Integrity", "", f"{s.n_flagged} of {s.n_results} results flagged; {s.rule}.",
             ""]
    lines += markdown_blocks.table(_ARM_HEAD, _arm_rows(inputs))
    lines += [f"- {x}" for x in arm_lines(s) if x.startswith("ranking of")]
    if s.ranking_changes:
        lines.append("")
    rows = _rows(inputs)
    if rows:
        lines += markdown_blocks.table(_HEAD, rows)
    return lines


def html_section(inputs: ReportInputs) -> str:
    s = inputs.summary.integrity
    items = inputs.summary.integrity_items
    if s is None and items is not None:
        rows = _item_rows(inputs)
        body = f"<p>{e(item_count(items))}.</p>"
        return section("integrity", "Integrity of the items",
                       body + (table(_ITEM_HEAD, rows) if rows else ""))
    if s is None:
        return section("integrity", "Integrity", not_run("The integrity checks were not run."))
    parts = [f"<p>{e(s.n_flagged)} of {e(s.n_results)} results flagged; {e(s.rule)}.</p>",
             table(_ARM_HEAD, _arm_rows(inputs))]
    changes = [x for x in arm_lines(s) if x.startswith("ranking of")]
    if changes:
        parts.append("<ul>" + "".join(f"<li>{e(x)}</li>" for x in changes) + "</ul>")
    rows = _rows(inputs)
    if rows:
        parts.append(table(_HEAD, rows))
    return section("integrity", "Integrity", "".join(parts))


__all__ = ["html_section", "markdown_section", "top_html", "top_markdown"]
