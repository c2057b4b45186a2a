"""The integrity step's result: the records of the flagged results and the per-arm pass
rates, as reported and with flagged passes counted as failures.

Only flagged results make records; per arm the step keeps counters (results, passes,
results without a transcript), so it is made as results stream by.

Example:
    >>> from judgekit.integrity.models import Evidence, Finding
    >>> t = Tally()
    >>> t.count("a", passed=True, has_transcript=True)
    >>> t.count("b", passed=True, has_transcript=True)
    >>> f = Finding(kind="skip-tests", severity="severe", detail="x",
    ...             evidence=Evidence(file="tests/t.py"))
    >>> t.flag(IntegrityRecord(task_id="t", arm="a", attempt=0, test_status="passed",
    ...                        passed=True, findings=[f]))
    >>> s = IntegrityResult(t).summary().integrity
    >>> s.arms["a"].pass_rate, s.arms["a"].pass_rate_adjusted, s.ranking_changes[0].adjusted
    (1.0, 0.0, 'a < b')
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations

from judgekit.integrity.kind import INTEGRITY
from judgekit.integrity.models import (ArmIntegrity, IntegrityRecord, IntegrityStats,
                                       IntegrityStepSummary, RankingChange)
from judgekit.steps import StepResult

_LISTED = 50
RULE_UNJUDGED = ("without a judge, a pass with a severe finding is counted as a failure "
                 "(findings unconfirmed)")
RULE_JUDGED = "a pass with a finding the judge confirmed is counted as a failure"


@dataclass
class _Arm:
    n: int = 0
    passed: int = 0
    without_transcript: int = 0


@dataclass
class Tally:
    """Per-arm counters and the flagged results' records, filled one result at a time."""

    arms: dict[str, _Arm] = field(default_factory=dict)
    records: list[IntegrityRecord] = field(default_factory=list)

    def count(self, arm: str, *, passed: bool, has_transcript: bool) -> None:
        """One result of ``arm``."""
        a = self.arms.get(arm)
        if a is None:
            a = self.arms[arm] = _Arm()
        a.n += 1
        a.passed += passed
        a.without_transcript += not has_transcript

    def flag(self, record: IntegrityRecord) -> None:
        """A result with findings (counted with :meth:`count` too)."""
        self.records.append(record)


def counted_apart(record: IntegrityRecord, judged: bool) -> bool:
    """Whether a flagged result's pass is counted as a failure: the judge confirmed it, or
    without a judge one of its findings is severe."""
    if not record.passed:
        return False
    if judged:
        return record.confirmation == "confirmed"
    return record.severe()


def _order(a: float, b: float, name_a: str, name_b: str) -> str:
    sign = ">" if a > b else "<" if a < b else "="
    return f"{name_a} {sign} {name_b}"


def stats_of(tally: Tally, records: Sequence[IntegrityRecord], judged: bool,
             cost_usd: float = 0.0) -> IntegrityStats:
    """The step's part of ``summary.json`` from the counters and the records."""
    apart = Counter(r.arm for r in records if r.counted_apart)
    flagged = Counter(r.arm for r in records)
    kinds: dict[str, Counter[str]] = {}
    for r in records:
        kinds.setdefault(r.arm, Counter()).update({f.kind for f in r.findings})
    arms: dict[str, ArmIntegrity] = {}
    for name in sorted(tally.arms):
        a = tally.arms[name]
        arms[name] = ArmIntegrity(
            n=a.n, n_passed=a.passed, pass_rate=a.passed / a.n if a.n else 0.0,
            n_flagged=flagged[name], n_flagged_passes=apart[name],
            pass_rate_adjusted=(a.passed - apart[name]) / a.n if a.n else 0.0,
            n_without_transcript=a.without_transcript,
            by_kind=dict(sorted(kinds.get(name, Counter()).items())))
    changes = []
    for x, y in combinations(sorted(arms), 2):
        before = _order(arms[x].pass_rate, arms[y].pass_rate, x, y)
        after = _order(arms[x].pass_rate_adjusted, arms[y].pass_rate_adjusted, x, y)
        if before != after:
            changes.append(RankingChange(arm_a=x, arm_b=y, reported=before, adjusted=after))
    states = Counter(r.confirmation for r in records)
    return IntegrityStats(
        judged=judged, rule=RULE_JUDGED if judged else RULE_UNJUDGED,
        n_results=sum(a.n for a in tally.arms.values()), n_flagged=len(records),
        n_flagged_passes=sum(apart.values()),
        n_without_transcript=sum(a.without_transcript for a in tally.arms.values()),
        n_confirmed=states["confirmed"], n_cleared=states["cleared"],
        n_not_judged=states["not_judged"],
        n_skipped_cost=sum(bool(r.skipped_cost) for r in records),
        skipped_cost=[str(r.key()) for r in records if r.skipped_cost][:_LISTED],
        cost_usd=round(cost_usd, 6), arms=arms,
        ranking_changes=changes,
        flagged=[f"{r.key()}: {', '.join(sorted({f.kind for f in r.findings}))}"
                 for r in records[:_LISTED]])


class IntegrityResult(StepResult[IntegrityRecord, IntegrityStepSummary]):
    """The deterministic checks' result (findings unconfirmed), or the judge's
    confirmation of them (``judged``)."""

    kind = INTEGRITY

    def __init__(self, tally: Tally, records: Sequence[IntegrityRecord] | None = None, *,
                 judged: bool = False, cost_usd: float = 0.0) -> None:
        self.tally = tally
        self.judged = judged
        self.cost_usd = cost_usd
        given = list(tally.records if records is None else records)
        self.records = [r.model_copy(update={"counted_apart": counted_apart(r, judged)})
                        for r in given]

    def _summarise(self) -> IntegrityStepSummary:
        return IntegrityStepSummary(integrity=stats_of(self.tally, self.records, self.judged,
                                                       self.cost_usd))


__all__ = ["IntegrityResult", "RULE_JUDGED", "RULE_UNJUDGED", "Tally", "counted_apart",
           "stats_of"]
