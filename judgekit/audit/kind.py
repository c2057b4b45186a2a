"""The audit step's descriptor: ``audit.jsonl`` of :class:`AuditRecord`, the
:class:`AuditStepSummary` entry of ``summary.json`` (``audit``), and its closing line.

Example:
    >>> AUDIT.name, AUDIT.records_file
    ('audit', 'audit.jsonl')
"""

from __future__ import annotations

from judgekit.audit.records import AuditRecord
from judgekit.audit.models import AuditStats, AuditStepSummary
from judgekit.steps import Failures, StepKind, StepResult, cached_text, closing_counts


class AuditKind(StepKind[AuditRecord, AuditStepSummary]):
    """The audit of failed results with a rubric, by one judge or a jury."""

    def ran(self, summary: AuditStepSummary) -> bool:
        return summary.audit is not None

    def closing_lines(self, summary: AuditStepSummary,
                      part: StepResult[AuditRecord, AuditStepSummary] | None) -> list[str]:
        audit = summary.audit
        if audit is None:
            return []
        # the records answered from the cache, as audit.jsonl marks them; not known for an
        # audit carried over from a judged output
        cached = (None if part is None or part.carried_over
                  else sum(1 for r in part.records if r.cached))
        return [f"{self.name}: {audit.n_failed} {_audited(audit, part)}: "
                + closing_counts(audit.n_valid, audit.n_unscored, audit.n_error,
                                 (audit.n_skipped_cost or 0) + sum(audit.skipped.values()),
                                 audit.skipped.get("too_long_for_context", 0))
                + f"{cached_text(cached)}; spend ${audit.cost_usd or 0.0:.4f}"] + (
            [f"{self.name}: {audit.n_contradicted} verdicts of score 1 contradicted by a "
             "verified pass of the same task (listed apart in summary.json)"]
            if audit.n_contradicted else [])

    def spend_usd(self, summary: AuditStepSummary) -> float:
        return (summary.audit.cost_usd or 0.0) if summary.audit is not None else 0.0

    def left_out_for_cost(self, summary: AuditStepSummary) -> tuple[str, list[str]]:
        audit = summary.audit
        return "not audited", list(audit.skipped_cost) if audit is not None else []

    def n_left_out_for_cost(self, summary: AuditStepSummary) -> int:
        return (summary.audit.n_skipped_cost or 0) if summary.audit is not None else 0


def _audited(audit: AuditStats, part: StepResult[AuditRecord, AuditStepSummary] | None
             ) -> str:
    """What the audit's records are of: benchmark items (the item audit; an older output
    says so by each record's arm :data:`~judgekit.audit.records.ITEM_ARM`) or results that
    did not pass."""
    if audit.audited == "items" or (part is not None and part.records
                                    and all(r.is_item for r in part.records)):
        return "items"
    return "results that did not pass"


def audit_failures(part: StepResult[AuditRecord, AuditStepSummary]) -> Failures:
    """One line when audit calls ended in error; every call failed when every audit did."""
    audit = part.summary().audit
    if audit is None or not audit.n_error:
        return Failures()
    reason = next((r.reason for r in part.records if r.state == "error" and r.reason),
                  "unknown")
    what = "items" if audit.audited == "items" else "results"
    return Failures([f"{AUDIT.name}: {audit.n_error} of {audit.n_failed} {what} ended in "
                     f"error (first: {reason})"], audit.n_error == audit.n_failed)


#: the audit step.
AUDIT = AuditKind("audit", AuditRecord, AuditStepSummary, "audit.jsonl")

__all__ = ["AUDIT", "AuditKind", "audit_failures"]
