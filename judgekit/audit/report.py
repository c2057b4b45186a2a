"""The audit section of the reports, rendered from ``summary["audit"]``.

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


def audit_lines(audit: dict[str, Any], markdown: bool = True) -> list[str]:
    """Lines of the audit section; plain text when ``markdown`` is false."""
    h = "## " if markdown else ""
    b = "**" if markdown else ""
    out = [f"{h}Audit of failed results (rubric {audit.get('rubric', '?')})", ""]
    out.append(
        f"{audit['n_failed']} results did not pass: {audit['n_valid']} valid verdicts, "
        f"{audit['n_unscored']} unscored, {audit['n_error']} errors. {b}{audit['n_ife']}{b} "
        f"verdicts blame the benchmark item (score 1)"
        + (f"; {audit['n_evidence_unverified']} valid verdicts quote text not found in the "
           "materials" if audit.get("n_evidence_unverified") else "") + ".")
    if audit.get("by_type"):
        out.append("By defect: " + ", ".join(f"{k} {v}" for k, v in audit["by_type"].items()) + ".")
    out.append("")
    tasks = audit.get("tasks", [])
    suspected = [t for t in tasks if t.get("suspected")]
    out.append(f"{h}# Suspected defective tasks" if markdown else "Suspected defective tasks:")
    out.append("")
    if not suspected:
        out.append("None: no task has several results blaming the same defect.")
    for t in suspected:
        runs = ", ".join(f"{r['arm']}#{r['attempt']}" + (f" ({r['run_id']})" if r.get("run_id") else "")
                         for r in t.get("runs", []))
        out.append(f"- {b}{t['task_id']}{b}: {t['suspected_type']}, blamed by {t['n_ife']} of "
                   f"{t['n_valid']} valid verdicts" + (f"; runs: {runs}" if runs else ""))
    out.append("")
    others = [t for t in tasks if not t.get("suspected")]
    if others and markdown:
        out += ["### Other audited tasks", "", "| task | audited | valid | score 1 | passed | types |",
                "|---|---|---|---|---|---|"]
        for t in others:
            types = ", ".join(f"{k} {v}" for k, v in t.get("by_type", {}).items()) or "–"
            out.append(f"| {t['task_id']} | {t['n_audited']} | {t['n_valid']} | {t['n_ife']} | "
                       f"{t.get('n_passed', 0)} | {types} |")
        out.append("")
    return out
