"""From judge outcomes to audit records: majority over samples, then per-task aggregation.

A result judged ``N`` times (``samples=N``) gets the majority score of its valid samples
(a tie counts as 0: a defect claim needs a majority) and the share of samples agreeing with
it. A task is a *suspected defective item* when at least ``min_runs`` independent results
blame the same defect category, those results are a majority of the task's valid verdicts,
and no result of the task passed (a pass proves the task solvable).

Example:
    >>> majority_score([1, 1, 0])
    (1, 0.6667)
    >>> majority_score([1, 0])
    (0, 0.5)
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Sequence
from typing import Any

from pydantic import BaseModel, Field

from judgekit.audit.models import SuspectRun, TaskAudit
# AuditRecord is re-exported: older callers import it from here
from judgekit.audit.records import AuditRecord as AuditRecord
from judgekit.audit.verdict import Verdict
from judgekit.engine import ItemOutcome
from judgekit.engine.accounting import SkipReason
from judgekit.engine.types import State


class SampleOutcome(BaseModel):
    """One judgement of one result, after checks (``deficiency_type`` normalised)."""

    state: State
    verdict: Verdict | None = None
    deficiency_type: str | None = None
    evidence_verified: bool = False
    quotes_not_found: list[str] = Field(default_factory=list)
    tries: int = 0
    reason: str | None = None
    cached: bool = False
    cost_usd: float = 0.0
    skipped_cost: bool = False
    skipped: SkipReason | None = None
    fitted: bool = False


#: the rubric category a pass elsewhere does not contradict: flaky tests pass sometimes.
FLAKY_CATEGORY = "flaky-tests"


def contradict(records: Sequence[AuditRecord], passes: dict[str, list[str]],
               exempt: Collection[str] = ()) -> list[AuditRecord]:
    """``records`` with every verdict of score 1 on a task in ``passes`` (task id -> the
    results that passed with verified tests) marked contradicted, the passes as evidence;
    verdicts of a category in ``exempt`` stay as they are."""
    out = []
    for rec in records:
        evidence = passes.get(rec.task_id)
        hit = bool(evidence) and rec.score == 1 and rec.deficiency_type not in exempt
        out.append(rec.model_copy(update={"contradicted": hit,
                                          "contradicted_by": list(evidence or []) if hit
                                          else None}))
    return out


def majority_score(scores: Sequence[int]) -> tuple[int, float]:
    """Majority of 0/1 ``scores`` (tie → 0) and the share agreeing with it (4 decimals)."""
    ones = sum(1 for s in scores if s == 1)
    winner = 1 if ones * 2 > len(scores) else 0
    agree = ones if winner == 1 else len(scores) - ones
    return winner, round(agree / len(scores), 4) if scores else 0.0


def combine_samples(samples: Sequence[SampleOutcome]) -> dict[str, Any]:
    """Fields of an :class:`AuditRecord` from the samples of one result."""
    valid = [(s, s.verdict) for s in samples if s.state == "valid" and s.verdict is not None]
    common: dict[str, Any] = {
        "samples": len(samples), "tries": sum(s.tries for s in samples),
        "sample_scores": [s.verdict.score if s.state == "valid" and s.verdict else None
                          for s in samples],
        "cached": all(s.cached for s in samples), "cost_usd": sum(s.cost_usd for s in samples),
        "skipped_cost": bool(samples) and all(s.skipped_cost for s in samples),
        "skipped": samples[0].skipped if samples and all(
            s.skipped == samples[0].skipped for s in samples) else None,
        "materials_cut_to_fit": any(s.fitted for s in samples),
    }
    if not valid:
        state = "error" if any(s.state == "error" for s in samples) and not any(
            s.state == "unscored" for s in samples) else "unscored"
        reasons = [s.reason for s in samples if s.reason]
        return {**common, "state": state, "verdict": None, "deficiency_type": None,
                "evidence_verified": False, "reason": reasons[0] if reasons else None}
    score, agreement = majority_score([verdict.score for _, verdict in valid])
    winners = [s for s, verdict in valid if verdict.score == score]
    top_type = Counter(s.deficiency_type for s in winners).most_common(1)[0][0]
    chosen = next(s for s in winners if s.deficiency_type == top_type)
    return {**common, "state": "valid", "verdict": chosen.verdict,
            "deficiency_type": chosen.deficiency_type,
            "evidence_verified": chosen.evidence_verified,
            "quotes_not_found": chosen.quotes_not_found,
            "agreement": agreement if len(samples) > 1 else None,
            "reason": None}


def sample_from_outcome(outcome: ItemOutcome, normalise_type: Callable[[Any], str],
                        missing_quotes: Callable[[dict[str, Any]], list[str]]
                        ) -> SampleOutcome:
    """A :class:`SampleOutcome` from an engine outcome; helpers are the rubric's. A valid
    outcome's verdict met the verdict schema, so it reads as a :class:`Verdict`."""
    if outcome.state != "valid" or outcome.verdict is None:
        return SampleOutcome(state=outcome.state, tries=outcome.tries, reason=outcome.reason,
                             cached=outcome.cached, cost_usd=outcome.cost_usd,
                             skipped_cost=bool(getattr(outcome, "skipped_cost", False)),
                             skipped=getattr(outcome, "skipped", None),
                             fitted=bool(getattr(outcome, "fitted", False)))
    missing = missing_quotes(outcome.verdict)
    dtype = normalise_type(outcome.verdict.get("deficiency_type"))
    verdict = Verdict.model_validate({**outcome.verdict, "deficiency_type": dtype})
    return SampleOutcome(state="valid", verdict=verdict,
                         deficiency_type=dtype,
                         evidence_verified=not outcome.soft_failures and not missing,
                         quotes_not_found=missing, tries=outcome.tries, cached=outcome.cached,
                         cost_usd=outcome.cost_usd,
                         fitted=bool(getattr(outcome, "fitted", False)))


def aggregate_tasks(records: Sequence[AuditRecord], passed: dict[str, int] | None = None,
                    min_runs: int = 2, verified_only: bool = False) -> list[TaskAudit]:
    """Per-task aggregation; suspected tasks first, then by IFE count, then by id.
    ``verified_only``: only verdicts whose quotes were all found in the materials count
    towards suspecting a task (the item audit, where one verdict decides)."""
    by_task: dict[str, list[AuditRecord]] = defaultdict(list)
    for rec in records:
        by_task[rec.task_id].append(rec)
    passed = passed or {}
    tasks = []
    for task_id, recs in by_task.items():
        valid = [r for r in recs if r.state == "valid"]
        ife = [r for r in valid if r.score == 1]
        types = Counter(r.deficiency_type or "none" for r in ife)
        task = TaskAudit(
            task_id=task_id, n_audited=len(recs), n_valid=len(valid), n_ife=len(ife),
            n_passed=passed.get(task_id, 0), by_type=dict(types.most_common()),
            n_contradicted=sum(r.contradicted for r in recs),
            task_score=majority_score([r.score or 0 for r in valid])[0] if valid else None)
        # a contradicted verdict (a pass, or a fix passing its tests, says otherwise) does
        # not make a task suspected
        standing = Counter(r.deficiency_type or "none" for r in ife if not r.contradicted
                           and (r.evidence_verified or not verified_only))
        if standing:
            top, count = standing.most_common(1)[0]
            if count >= min_runs and count * 2 > len(valid) and task.n_passed == 0:
                task.suspected, task.suspected_type = True, top
                task.runs = [SuspectRun(run_id=r.run_id, arm=r.arm, attempt=r.attempt)
                             for r in ife if r.deficiency_type == top
                             and (r.evidence_verified or not verified_only)]
        tasks.append(task)
    return sorted(tasks, key=lambda t: (not t.suspected, -t.n_ife, t.task_id))
