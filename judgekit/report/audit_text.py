"""The audit section as lines of text, rendered from the typed ``summary["audit"]``.

Suspected defective tasks come first, then every audited task; an audit of benchmark items
(an item audit) speaks of items.

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

from judgekit.report.judged import audit_jury_lines, audit_words
from judgekit.report.markdown_blocks import cell, md
from judgekit.summary import AuditStats, SuspectRun


def _run_name(run: SuspectRun) -> str:
    return f"{run.arm}#{run.attempt}" + (f" ({run.run_id})" if run.run_id else "")


def audit_lines(audit: AuditStats | dict[str, Any], markdown: bool = True) -> list[str]:
    """Lines of the audit section; plain text when ``markdown`` is false. An audit of
    benchmark items speaks of items (:func:`~judgekit.report.judged.audit_words`)."""
    a = audit if isinstance(audit, AuditStats) else AuditStats.model_validate(audit)
    words = audit_words(a)
    t = (lambda x: md(x, block=False)) if markdown else str  # values from data
    h = "## " if markdown else ""
    b = "**" if markdown else ""
    out = [f"{h}{words.title} (rubric {t(a.rubric or '?')})", ""]
    skipped = (f", {a.n_skipped_cost} not audited (cost cap)" if a.n_skipped_cost else "")
    counted = (f"{a.n_failed} results did not pass" if words.per_result
               else f"{a.n_failed} {words.audited}")
    out.append(
        f"{counted}: {a.n_valid} valid verdicts, "
        f"{a.n_unscored} unscored, {a.n_error} errors{skipped}. {b}{a.n_ife}{b} "
        f"verdicts blame the benchmark item (score 1)"
        + (f"; {a.n_evidence_unverified} valid verdicts quote text not found in the "
           "materials" if a.n_evidence_unverified else "") + ".")
    if a.by_type:
        out.append("By defect: " + ", ".join(f"{t(k)} {v}" for k, v in a.by_type.items())
                   + ".")
    jury, disagreements = audit_jury_lines(a)
    if jury:
        out += [t(jury)] + [f"- {t(d)}" for d in disagreements]
    out.append("")
    suspected = [x for x in a.tasks if x.suspected]
    out.append(f"{h}# {words.suspected}" if markdown else f"{words.suspected}:")
    out.append("")
    if not suspected:
        out.append("None: no task has several results blaming the same defect."
                   if words.per_result else f"None: {words.none_suspected}")
    for task in suspected:
        if not words.per_result:
            out.append(f"- {b}{t(task.task_id)}{b}: {t(task.suspected_type)}, blamed by its "
                       "verdict, quotes found in the item's texts")
            continue
        runs = ", ".join(_run_name(r) for r in task.runs)
        out.append(f"- {b}{t(task.task_id)}{b}: {t(task.suspected_type)}, blamed by "
                   f"{task.n_ife} of {task.n_valid} valid verdicts"
                   + (f"; runs: {t(runs)}" if runs else ""))
    out.append("")
    others = [x for x in a.tasks if not x.suspected]
    if others and markdown and words.per_result:
        out += ["### Other audited tasks", "",
                "| task | audited | valid | score 1 | passed | types |",
                "|---|---|---|---|---|---|"]
        for task in others:
            types = ", ".join(f"{k} {v}" for k, v in task.by_type.items()) or "–"
            out.append(f"| {cell(task.task_id)} | {task.n_audited} | {task.n_valid} | "
                       f"{task.n_ife} | {task.n_passed} | {cell(types)} |")
        out.append("")
    elif others and markdown:
        out += ["### Other audited items", "", "| item | valid verdict | score 1 | types |",
                "|---|---|---|---|"]
        for task in others:
            types = ", ".join(f"{k} {v}" for k, v in task.by_type.items()) or "–"
            out.append(f"| {cell(task.task_id)} | {'yes' if task.n_valid else 'no'} | "
                       f"{task.n_ife} | {cell(types)} |")
        out.append("")
    return out
