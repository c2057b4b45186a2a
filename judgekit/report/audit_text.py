"""The audit section as lines of text, rendered from the typed ``summary["audit"]``.

Suspected defective tasks come first, then every audited task.

Example:
    >>> lines = audit_lines({"rubric": "commit-revert", "n_failed": 2, "n_valid": 2,
    ...     "n_unscored": 0, "n_error": 0, "n_ife": 2, "by_type": {"Flaky Tests": 2},
    ...     "suspected_tasks": ["t1"], "tasks": [{"task_id": "t1", "n_audited": 2,
    ...     "n_valid": 2, "n_ife": 2, "n_passed": 0, "suspected": True,
    ...     "suspected_type": "Flaky Tests", "runs": [], "by_type": {"Flaky Tests": 2}}]})
    >>> lines[0]
    '## Audit of failed results (rubric commit-revert)'
"""

from __future__ import annotations

from typing import Any

from judgekit.report.judged import audit_jury_lines
from judgekit.summary import AuditSummary, SuspectRun


def _run_name(run: SuspectRun) -> str:
    return f"{run.arm}#{run.attempt}" + (f" ({run.run_id})" if run.run_id else "")


def audit_lines(audit: AuditSummary | dict[str, Any], markdown: bool = True) -> list[str]:
    """Lines of the audit section; plain text when ``markdown`` is false."""
    a = audit if isinstance(audit, AuditSummary) else AuditSummary.model_validate(audit)
    h = "## " if markdown else ""
    b = "**" if markdown else ""
    out = [f"{h}Audit of failed results (rubric {a.rubric or '?'})", ""]
    skipped = (f", {a.n_skipped_cost} not audited (cost cap)" if a.n_skipped_cost else "")
    out.append(
        f"{a.n_failed} results did not pass: {a.n_valid} valid verdicts, "
        f"{a.n_unscored} unscored, {a.n_error} errors{skipped}. {b}{a.n_ife}{b} "
        f"verdicts blame the benchmark item (score 1)"
        + (f"; {a.n_evidence_unverified} valid verdicts quote text not found in the "
           "materials" if a.n_evidence_unverified else "") + ".")
    if a.by_type:
        out.append("By defect: " + ", ".join(f"{k} {v}" for k, v in a.by_type.items()) + ".")
    jury, disagreements = audit_jury_lines(a)
    if jury:
        out += [jury] + [f"- {d}" for d in disagreements]
    out.append("")
    suspected = [t for t in a.tasks if t.suspected]
    out.append(f"{h}# Suspected defective tasks" if markdown else "Suspected defective tasks:")
    out.append("")
    if not suspected:
        out.append("None: no task has several results blaming the same defect.")
    for t in suspected:
        runs = ", ".join(_run_name(r) for r in t.runs)
        out.append(f"- {b}{t.task_id}{b}: {t.suspected_type}, blamed by {t.n_ife} of "
                   f"{t.n_valid} valid verdicts" + (f"; runs: {runs}" if runs else ""))
    out.append("")
    others = [t for t in a.tasks if not t.suspected]
    if others and markdown:
        out += ["### Other audited tasks", "",
                "| task | audited | valid | score 1 | passed | types |",
                "|---|---|---|---|---|---|"]
        for t in others:
            types = ", ".join(f"{k} {v}" for k, v in t.by_type.items()) or "–"
            out.append(f"| {t.task_id} | {t.n_audited} | {t.n_valid} | {t.n_ife} | "
                       f"{t.n_passed} | {types} |")
        out.append("")
    return out
