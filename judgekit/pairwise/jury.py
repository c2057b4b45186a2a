"""Juries: several judges, each by the full flip-and-draw protocol, and their verdict.

Each judge judges every pair in both orders on its own (:func:`run_pairwise` once per
judge). Per pair and dimension each judge's flip-and-draw result is a vote: ``a``, ``b``,
``draw``, or none when its calls failed. The jury's verdict is

* ``majority``: the arm named by more than half of the judges that gave a verdict; a tie,
  a split or a majority of draws is a draw;
* ``unanimous``: the arm every judge named, each of them having given a verdict; anything
  else is a draw.

A jury's :class:`~judgekit.pairwise.records.PairRecord` holds the jury's verdict in
``dimensions`` and each judge's own result in ``judges``. Its summary is the usual
pairwise summary computed on the jury's verdicts, plus ``pairwise.jury``: each judge's
results, self-audit and cost side by side, and their agreement (Krippendorff's alpha,
:mod:`judgekit.pairwise.agreement`).

Example:
    >>> jury_verdict(["a", "a", "draw"]), jury_verdict(["a", "b", "draw"])
    ('a', 'draw')
    >>> jury_verdict(["a", "a", None], "unanimous"), jury_verdict([None, None])
    ('draw', None)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from judgekit.corrected import EffectiveJudges, effective_judges
from judgekit.engine.jury import juror_labels
from judgekit.engine.types import Skip, State
from judgekit.pairwise.agreement import agreement
from judgekit.pairwise.anchors import anchor_reasons
from judgekit.pairwise.kind import PAIRWISE
from judgekit.pairwise.models import (
    JudgeReliability,
    JuryAgreement,
    JuryMember,
    PairwiseJury,
    PairwiseRun,
    PairwiseStepSummary,
)
from judgekit.pairwise.records import DimensionRecord, JurorRecord, PairRecord
from judgekit.pairwise.result import PairwiseResult
from judgekit.pairwise.size import size_bias, size_reason
from judgekit.pairwise.verdict import DIMENSIONS
from judgekit.steps import Failures, StepKind, StepResult

JuryRule = Literal["majority", "unanimous"]


def jury_verdict(votes: Sequence[str | None], rule: JuryRule = "majority") -> str | None:
    """The jury's verdict from each judge's ``"a"``, ``"b"``, ``"draw"`` or None (no
    verdict); None when no judge gave one."""
    given = [v for v in votes if v is not None]
    if not given:
        return None
    if rule == "unanimous":
        same = len(given) == len(votes) and len(set(given)) == 1
        return given[0] if same else "draw"
    for side in ("a", "b"):
        if 2 * given.count(side) > len(given):
            return side
    return "draw"


@dataclass
class Juror:
    """One judge of a jury and what it found."""

    label: str
    model: str
    base_url: str | None
    result: PairwiseResult


def _side(rec: PairRecord, dim: str) -> str | None:
    d = rec.dimensions[dim]
    if d.state != "valid":
        return None
    return "a" if d.winner == rec.arm_a else "b" if d.winner == rec.arm_b else "draw"


def _state(states: Sequence[State]) -> State:
    if "valid" in states:
        return "valid"
    return "error" if "error" in states else "unscored"


def _same_pair(one: PairRecord, other: PairRecord) -> bool:
    return ((one.task_id, one.arm_a, one.arm_b, one.attempt_a, one.attempt_b)
            == (other.task_id, other.arm_a, other.arm_b, other.attempt_a, other.attempt_b))


def jury_record(recs: Sequence[PairRecord], labels: Sequence[str],
                rule: JuryRule = "majority") -> PairRecord:
    """One pair's record of the jury from each judge's record of it."""
    first = recs[0]
    dims: dict[str, DimensionRecord] = {}
    for dim in DIMENSIONS:
        verdict = jury_verdict([_side(r, dim) for r in recs], rule)
        winner = {"a": first.arm_a, "b": first.arm_b}.get(verdict or "", "draw")
        dims[dim] = DimensionRecord(winner=winner, order1=None, order2=None,
                                    position_bias=False,
                                    state=_state([r.dimensions[dim].state for r in recs]))
    base = first.model_dump(exclude={"dimensions", "orders", "judges"})
    judges = {label: JurorRecord(dimensions=r.dimensions, orders=r.orders)
              for label, r in zip(labels, recs)}
    return PairRecord(**base, dimensions=dims, judges=judges)


@dataclass
class JuryResult(StepResult[PairRecord, PairwiseStepSummary]):
    """What pairwise judging by a jury returns: the pairwise step's result, like
    :class:`~judgekit.pairwise.result.PairwiseResult`, with each judge's beside it."""

    kind: ClassVar[StepKind[Any, Any]] = PAIRWISE

    jurors: list[Juror]
    rule: JuryRule = "majority"
    #: notes on the jury as a whole (``pairwise_run.notes``), after the first judge's.
    notes: list[str] = field(default_factory=list)
    #: judges whose verdicts were taken from an earlier output, not asked in this run: their
    #: entries are theirs as judged then, and this run's counts and cost leave them out.
    reused: list[str] = field(default_factory=list)
    _records: list[PairRecord] | None = field(default=None, init=False, repr=False)

    @property
    def labels(self) -> list[str]:
        return [j.label for j in self.jurors]

    @property
    def records(self) -> list[PairRecord]:  # type: ignore[override]
        """One record per pair: the jury's verdicts, each judge's beside them."""
        if self._records is None:
            per = [j.result.records for j in self.jurors]
            if len({len(r) for r in per}) != 1 or not all(
                    _same_pair(recs[0], r) for recs in zip(*per) for r in recs):
                raise ValueError("the judges of a jury did not judge the same pairs")
            self._records = [jury_record(recs, self.labels, self.rule) for recs in zip(*per)]
        return self._records

    @property
    def stopped(self) -> Skip | None:
        """Why a judge's engine stopped sending calls (an authentication failure), if one did."""
        return next((j.result.stopped.model_copy(update={
            "detail": f"{j.label}: {j.result.stopped.detail}"}) for j in self.jurors
            if j.result.stopped is not None), None)

    def stop_detail(self) -> str | None:
        return self.stopped.detail if self.stopped is not None else None

    def dry_run_text(self) -> str | None:
        return self.estimate

    def failures(self) -> Failures:
        """Each judge's failed calls, its lines naming it."""
        each = [j.result.failures(f" (judge {j.label})") for j in self.jurors]
        return Failures([line for f in each for line in f.lines],
                        any(f.all_failed for f in each))

    @property
    def estimate(self) -> str | None:
        """On a dry run, each judge's estimate."""
        if not self.dry_run:
            return None
        return "; ".join(f"{j.label}: {j.result.estimate}" for j in self.jurors)

    @property
    def dry_run(self) -> bool:
        return self.jurors[0].result.dry_run

    def verdicts(self) -> PairwiseResult:
        """The jury's verdicts as one result (its statistics are the jury's)."""
        first = self.jurors[0].result
        return PairwiseResult(records=self.records, judge=f"jury ({self.rule}): "
                              + ", ".join(self.labels), select=first.select,
                              notes=list(first.notes) + list(self.notes),
                              threshold=first.threshold, seed=first.seed, sizes=list(first.sizes),
                              anchors=list(first.anchors),
                              stopped=self.stopped,
                              spend_usd=sum(j.result.spend_usd or 0.0 for j in self.jurors))

    def agreement(self) -> JuryAgreement:
        """``pairwise.jury.agreement``: alpha over every (pair, dimension), then per dimension."""
        units: dict[str, list[tuple[str, list[str | None]]]] = {d: [] for d in DIMENSIONS}
        for n, recs in enumerate(zip(*(j.result.records for j in self.jurors))):
            if recs[0].identical:
                continue  # a draw decided without asking any judge
            for dim in DIMENSIONS:
                units[dim].append((str(n), [_side(r, dim) for r in recs]))
        seed = self.jurors[0].result.seed
        pooled = agreement([u for dim in DIMENSIONS for u in units[dim]], seed=seed)
        return JuryAgreement(alpha=pooled.alpha, ci=pooled.ci, n_units=pooled.n_units,
                             n_pairs=pooled.n_pairs, by_dimension={
                                 dim: agreement(units[dim], seed=seed) for dim in DIMENSIONS})

    def effective_judges(self) -> EffectiveJudges:
        """How many independent judges the jury amounts to: the correlation of the judges'
        verdicts (A 1, B 0, draw 0.5) over every (pair, dimension) not decided without a
        call."""
        value = {"a": 1.0, "b": 0.0, "draw": 0.5}
        rows = []
        for recs in zip(*(j.result.records for j in self.jurors)):
            if recs[0].identical:
                continue
            for dim in DIMENSIONS:
                if dim in recs[0].dimensions:
                    rows.append([None if (s := _side(r, dim)) is None else value[s]
                                 for r in recs])
        return effective_judges(rows, len(self.jurors))

    def members(self) -> dict[str, JuryMember]:
        """Each judge's own results, self-audit, size control and run."""
        members = {}
        for j in self.jurors:
            own = j.result.summary()
            pairwise = own.pairwise
            members[j.label] = JuryMember(
                model=j.model, base_url=j.base_url,
                pairs=pairwise.pairs() if pairwise is not None else {},
                judge_reliability=pairwise.judge_reliability if pairwise is not None else None,
                size_control=own.pairwise_size or {}, run=own.pairwise_run)
        return members

    def _summarise(self) -> PairwiseStepSummary:
        """The pairwise summary of the jury's verdicts, with ``pairwise.jury``."""
        verdicts = self.verdicts()
        out = verdicts.summary().model_copy()
        if self.dry_run:
            return out
        members = self.members()
        flagged = [label for label, m in members.items()
                   if m.judge_reliability is not None and m.judge_reliability.flagged]
        runs = [m.run for label, m in members.items()
                if label not in self.reused and m.run is not None]
        assert out.pairwise is not None and out.pairwise_run is not None
        out.pairwise_run = _jury_run(out.pairwise_run, runs)
        jury = PairwiseJury(rule=self.rule, judges=self.labels, agreement=self.agreement(),
                           members=members, flagged_judges=flagged,
                           effective_judges=self.effective_judges())
        if self.reused:
            jury.reused_judges = list(self.reused)
        out.pairwise = out.pairwise.model_copy(update={
            "judge_reliability": self._reliability(members, flagged, verdicts), "jury": jury})
        return out

    def _reliability(self, members: dict[str, JuryMember], flagged: list[str],
                     verdicts: PairwiseResult) -> JudgeReliability:
        """The jury's reliability: every judge's reasons, and the jury's own size lean."""
        rels = [(label, m.judge_reliability) for label, m in members.items()]
        reasons = [f"judge {label}: {reason}" for label, rel in rels if rel is not None
                   for reason in rel.reasons]
        sized = verdicts.sized_by_dimension()
        bias = size_bias(sized) if sized is not None else None
        own = size_reason(bias) if bias is not None else None
        if own:
            reasons.append(f"the jury's verdicts: {own}")
        anchors = verdicts.anchor_checks()
        reasons.extend(f"the jury's verdicts: {r}"
                       for r in (anchor_reasons(anchors) if anchors is not None else []))
        return JudgeReliability(
            flagged=bool(reasons), reasons=reasons,
            message=_jury_message(reasons, flagged, len(self.jurors)),
            threshold=self.jurors[0].result.threshold,
            n_repeats=sum(rel.n_repeats for _, rel in rels if rel is not None),
            n_repeat_calls=sum(rel.n_repeat_calls for _, rel in rels if rel is not None),
            size_bias=bias, anchors=anchors)


def _jury_run(run: PairwiseRun, runs: Sequence[PairwiseRun]) -> PairwiseRun:
    """The jury's ``pairwise_run``: the calls, cost and skips of the judges asked now."""
    return run.model_copy(update=dict(
        n_calls=sum(r.n_calls for r in runs), n_cached=sum(r.n_cached for r in runs),
        cost_usd=round(sum(r.cost_usd for r in runs), 6),
        n_skipped_cost=sum(r.n_skipped_cost or 0 for r in runs),
        skipped_cost=sorted({p for r in runs for p in r.skipped_cost}),
        n_fitted=sum(r.n_fitted for r in runs)))


def _jury_message(reasons: Sequence[str], flagged: Sequence[str], n: int) -> str:
    """The jury's reliability in words."""
    if not reasons:
        return (f"Each of the {n} judges passed its reliability checks (position "
                "consistency, preference fairness, patch size): the jury's verdicts "
                "reflect the solutions, not their order or size.")
    who = (f"{len(flagged)} of the {n} judges did not pass their checks "
           f"({', '.join(flagged)})" if flagged else "the jury's verdicts follow "
           "patch size")
    return (f"Read the jury's verdicts with care: {who}. A majority outvotes one "
            "judge's bias only where the other judges agree with each other; "
            "compare each judge's verdicts and self-audit side by side, and the "
            "size-controlled win rates.")


__all__ = ["Juror", "JuryResult", "JuryRule", "jury_record", "jury_verdict", "juror_labels"]
