"""Audit juries: several judges audit every failed result; the majority classifies it.

Each judge audits on its own (:func:`judgekit.audit.step.run_audit` once per judge). Per
result, the jury's score is the majority of the judges' valid scores (a tie is 0, as for
samples: blaming the benchmark item needs a majority); its verdict and deficiency type are
those of a judge of the majority, the type the majority names most. A result is a
*disagreement* when the judges with a valid verdict do not all give the same score; each
is listed in ``summary["audit"]["jury"]["disagreements"]`` with every judge's score and
type. The per-task aggregation and suspected tasks are then the jury's.

Example:
from judgekit.audit.records import AuditRecord
    >>> from judgekit.audit.verdict import Verdict
    >>> def rec(score):
    ...     kind = "Flaky Tests" if score else "none"
    ...     v = Verdict(score=score, deficiency_exists=bool(score),
    ...                 deficiency_caused_failure=bool(score), deficiency_type=kind,
    ...                 existence_reasoning="-", causation_reasoning="-", evidence='"x"')
    ...     return AuditRecord(task_id="t", arm="x", attempt=0, test_status="failed",
    ...                        state="valid", verdict=v, deficiency_type=kind)
    >>> jury = jury_audit_record([rec(1), rec(0), rec(1)], ["m1", "m2", "m3"])
    >>> jury.score, disagreement(jury)
    (1, 't / x / attempt 0: m1 1 (Flaky Tests), m2 0, m3 1 (Flaky Tests)')
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from judgekit.audit.aggregate import aggregate_tasks, contradict, majority_score
from judgekit.corrected import effective_judges
from judgekit.audit.models import AuditJury, AuditJuryMember, AuditStepSummary
from judgekit.audit.records import AuditRecord, JurorAudit
from judgekit.audit.kind import AUDIT, audit_failures
from judgekit.audit.step import AuditResult, exempt_categories
from judgekit.engine import Skip
from judgekit.steps import Failures, StepKind, StepResult


def _juror(rec: AuditRecord) -> JurorAudit:
    return JurorAudit(state=rec.state, score=rec.score, deficiency_type=rec.deficiency_type,
                      verdict=rec.verdict, evidence_verified=rec.evidence_verified,
                      tries=rec.tries, cost_usd=rec.cost_usd, cached=rec.cached,
                      reason=rec.reason)


def jury_audit_record(recs: Sequence[AuditRecord], labels: Sequence[str]) -> AuditRecord:
    """One result's record of the jury from each judge's record of it."""
    first = recs[0]
    judges = {label: _juror(r) for label, r in zip(labels, recs)}
    base = first.model_dump(exclude={"state", "verdict", "deficiency_type", "evidence_verified",
                                     "quotes_not_found", "tries", "reason", "agreement",
                                     "sample_scores", "cached", "cost_usd", "judges",
                                     "contradicted", "contradicted_by"})
    common: dict[str, Any] = {
        **base, "judges": judges, "tries": sum(r.tries for r in recs),
        "cost_usd": sum(r.cost_usd for r in recs), "cached": all(r.cached for r in recs),
        "sample_scores": [r.score for r in recs]}
    valid = [r for r in recs if r.score is not None]
    if not valid:
        state = "error" if any(r.state == "error" for r in recs) else "unscored"
        reason = next((r.reason for r in recs if r.reason), None)
        return AuditRecord(**common, state=state, reason=reason)
    score, agreement = majority_score([r.score or 0 for r in valid])
    winners = [r for r in valid if r.score == score]  # never empty: a tie is 0, given
    top = Counter(r.deficiency_type for r in winners).most_common(1)[0][0]
    chosen = next(r for r in winners if r.deficiency_type == top)
    return AuditRecord(**common, state="valid", verdict=chosen.verdict, deficiency_type=top,
                       evidence_verified=chosen.evidence_verified,
                       quotes_not_found=chosen.quotes_not_found, agreement=agreement)


def disagreement(record: AuditRecord) -> str | None:
    """``task / arm / attempt N: judge score (type), ...`` when the judges with a valid
    verdict give different scores; None otherwise."""
    judges = record.judges or {}
    scores = {j.score for j in judges.values() if j.score is not None}
    if len(scores) < 2:
        return None
    def one(label: str, j: JurorAudit) -> str:
        if j.score is None:
            return f"{label} no verdict ({j.state})"
        kind = f" ({j.deficiency_type})" if j.score == 1 and j.deficiency_type else ""
        return f"{label} {j.score}{kind}"
    return (f"{record.subject()}: " + ", ".join(one(label, j) for label, j in judges.items()))


@dataclass
class AuditJuror:
    """One judge of an audit jury and its audit."""

    label: str
    model: str
    base_url: str | None
    result: AuditResult


@dataclass
class AuditJuryResult(StepResult[AuditRecord, AuditStepSummary]):
    """The audit step's result by a jury: the jury's records and summary, each judge's
    beside them."""

    kind: ClassVar[StepKind[Any, Any]] = AUDIT

    jurors: list[AuditJuror]
    min_runs: int = 2

    @property
    def labels(self) -> list[str]:
        return [j.label for j in self.jurors]

    @property
    def stopped(self) -> Skip | None:
        """Why a judge's engine stopped sending calls (an authentication failure), if one did."""
        return next((j.result.stopped for j in self.jurors if j.result.stopped), None)

    def stop_detail(self) -> str | None:
        return self.stopped.detail if self.stopped is not None else None

    def failures(self) -> Failures:
        return audit_failures(self)

    @property
    def records(self) -> list[AuditRecord]:  # type: ignore[override]
        per = [j.result.records for j in self.jurors]
        first = self.jurors[0].result
        return contradict([jury_audit_record(recs, self.labels) for recs in zip(*per)],
                          first.passes or {}, exempt_categories(first.rubric))

    def verdicts(self) -> AuditResult:
        """The jury's verdicts as one audit result (counts, tasks, suspected: the jury's)."""
        first = self.jurors[0].result
        records = self.records
        passed = {t.task_id: t.n_passed for t in first.tasks}
        return AuditResult(rubric=first.rubric, records=records,
                           tasks=aggregate_tasks(records, passed, min_runs=self.min_runs,
                                                 verified_only=first.items),
                           model="jury (majority): " + ", ".join(self.labels),
                           samples=first.samples, passes=first.passes, items=first.items)

    def _member(self, juror: AuditJuror) -> AuditJuryMember:
        own = juror.result.counts()
        return AuditJuryMember(
            model=juror.model, base_url=juror.base_url, n_valid=own.n_valid, n_ife=own.n_ife,
            n_error=own.n_error, n_unscored=own.n_unscored, by_type=own.by_type,
            suspected_tasks=own.suspected_tasks, tries_total=own.tries_total,
            cost_usd=own.cost_usd, n_skipped_cost=own.n_skipped_cost)

    def _summarise(self) -> AuditStepSummary:
        verdicts = self.verdicts()
        counts = verdicts.counts()
        disagreements = [d for d in map(disagreement, verdicts.records) if d]
        scores = [[None if (j := (r.judges or {}).get(label)) is None else j.score
                   for label in self.labels] for r in verdicts.records]
        counts.jury = AuditJury(rule="majority", judges=self.labels,
                                members={j.label: self._member(j) for j in self.jurors},
                                effective_judges=effective_judges(scores, len(self.labels)),
                                n_disagreements=len(disagreements),
                                disagreements=disagreements)
        return AuditStepSummary(audit=counts)


__all__ = ["AuditJuror", "AuditJuryResult", "disagreement", "jury_audit_record"]
