"""The result of pairwise judging: one record per compared pair, and its statistics.

``pairwise.jsonl`` holds one :class:`~judgekit.pairwise.records.PairRecord` a line;
``summary.json`` gets :meth:`PairwiseResult.summary` (a
:class:`~judgekit.pairwise.models.PairwiseStepSummary`).

Example:
    >>> result = PairwiseResult(records=[])
    >>> result.summary().pairwise.pairs(), result.records_jsonl()
    ({}, '')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from judgekit.engine.types import Skip
from judgekit.pairwise.anchors import Anchor, Standing, anchor_checks, standing
from judgekit.pairwise.flip import to_side
from judgekit.pairwise.kind import PAIRWISE
from judgekit.pairwise.models import (
    AnchorChecks,
    JudgeReliability,
    PairState,
    PairwiseRanking,
    PairwiseRun,
    PairwiseStepSummary,
    PairwiseStats,
    SizeControl,
)
from judgekit.pairwise.records import PairRecord
from judgekit.pairwise.reliability import DEFAULT_THRESHOLD, Comparison, judge_reliability
from judgekit.pairwise.size import SizedVerdict, size_controlled
from judgekit.pairwise.stats import DimensionTable, ranking, ranking_intervals
from judgekit.pairwise.verdict import DIMENSIONS
from judgekit.steps import Failures, StepKind, StepResult

#: answers of one order, dimension -> "A" | "B" | "tie".
Answers = dict[str, str]

#: the method line of ``summary["pairwise_ranking"]``.
RANKING_METHOD = ("Bradley-Terry (MM), draws as half wins; 95% bootstrap intervals over "
                  "pairs")


@dataclass
class PairwiseResult(StepResult[PairRecord, PairwiseStepSummary]):
    """What :func:`judgekit.pairwise.run_pairwise` returns: the pairwise step's result."""

    kind: ClassVar[StepKind[Any, Any]] = PAIRWISE

    records: list[PairRecord]
    judge: str | None = None
    select: str = "best"
    notes: list[str] = field(default_factory=list)
    estimate: Any | None = None  # judgekit.engine.Estimate, on a dry run
    #: per re-asked request key: (first answers, one repeated answers) per valid repeat.
    repeats: dict[str, list[tuple[Answers, Answers]]] = field(default_factory=dict)
    n_repeat_requests: int = 0
    n_repeat_calls: int = 0
    n_repeat_cached: int = 0
    repeat_cost_usd: float = 0.0
    threshold: float = DEFAULT_THRESHOLD
    seed: int = 0
    #: why the engine stopped sending calls (an authentication failure), if it did.
    stopped: Skip | None = None
    #: dollars the engine had recorded when this step ended (all steps so far).
    spend_usd: float | None = None
    #: (size of a's patch, size of b's patch) per record, in lines added + removed; empty
    #: when unknown (no size bias or size-controlled results then).
    sizes: list[tuple[int, int]] = field(default_factory=list)
    #: what the tests and the fix say of each record's pair (:mod:`judgekit.pairwise.anchors`);
    #: empty when unknown (no anchored checks then).
    anchors: list[Anchor] = field(default_factory=list)

    @property
    def dry_run(self) -> bool:
        return self.estimate is not None

    def stop_detail(self) -> str | None:
        return self.stopped.detail if self.stopped is not None else None

    def dry_run_text(self) -> str | None:
        return str(self.estimate) if self.estimate is not None else None

    def failures(self, label: str = "") -> Failures:
        """A line per state some comparisons ended in (error, unscored; a pair the cost
        cap left out is not a failure); every call failed when each pair asked has an
        error. ``label`` tells one judge of a jury."""
        asked = [r for r in self.records if not r.identical]
        lines = []
        for state in ("error", "unscored"):
            hit = [r for r in asked
                   if any(o.state == state and not o.skipped_cost for o in r.orders)]
            if hit:
                first = next((o.reason for r in hit for o in r.orders
                              if o.state == state and not o.skipped_cost and o.reason),
                             "unknown")
                lines.append(f"{self.kind.name}{label}: {len(hit)} of {len(asked)} "
                             f"comparisons ended {state} (first: {first})")
        return Failures(lines, bool(asked) and all(
            any(o.state == "error" for o in r.orders) for r in asked))

    def table(self) -> DimensionTable:
        table = DimensionTable()
        for rec in self.records:
            for dim in DIMENSIONS:
                d = rec.dimensions[dim]
                side = ("a" if d.winner == rec.arm_a else "b" if d.winner == rec.arm_b
                        else "draw")
                agree = None
                if d.state == "valid" and d.order1 is not None and d.order2 is not None:
                    agree = to_side(d.order1, 1) == to_side(d.order2, 2)
                table.get((rec.arm_a, rec.arm_b), dim).add(
                    side, agree=agree, answers=(d.order1, d.order2),
                    bias=d.position_bias, state=d.state,
                    identical=rec.identical if rec.judges is not None else None)
        return table

    def sized(self) -> dict[tuple[str, str], dict[str, list[SizedVerdict]]]:
        """Valid verdicts with their patch sizes, by arm pair and dimension (empty without
        sizes); identical pairs are left out (no verdict of the judge's)."""
        out: dict[tuple[str, str], dict[str, list[SizedVerdict]]] = {}
        if len(self.sizes) != len(self.records):
            return out
        for rec, (size_a, size_b) in zip(self.records, self.sizes):
            if rec.identical:
                continue
            for dim in DIMENSIONS:
                d = rec.dimensions[dim]
                if d.state != "valid":
                    continue
                side = ("a" if d.winner == rec.arm_a else "b" if d.winner == rec.arm_b
                        else "draw")
                out.setdefault((rec.arm_a, rec.arm_b), {}).setdefault(dim, []).append(
                    SizedVerdict(side, size_a, size_b))
        return out

    def sized_by_dimension(self) -> dict[str, list[SizedVerdict]] | None:
        """Every arm pair's sized verdicts, by dimension; None without sizes."""
        if len(self.sizes) != len(self.records) or not self.records:
            return None
        out: dict[str, list[SizedVerdict]] = {dim: [] for dim in DIMENSIONS}
        for dims in self.sized().values():
            for dim, verdicts in dims.items():
                out[dim].extend(verdicts)
        return out

    def size_control(self) -> dict[str, dict[str, SizeControl]]:
        """``summary["pairwise_size"]``: per arm pair and dimension, the arm effect with and
        without patch size in the model, and the win rate by size ratio."""
        out: dict[str, dict[str, SizeControl]] = {}
        for (a, b), dims in self.sized().items():
            fitted = {dim: size_controlled(dims[dim]) for dim in DIMENSIONS if dim in dims}
            out[f"{a} vs {b}"] = {k: v for k, v in fitted.items() if v is not None}
        return out

    def anchor_checks(self) -> AnchorChecks | None:
        """The verdicts on anchored pairs held against the tests (completeness) and the
        fix (minimality); None without anchors. Identical pairs are left out."""
        if len(self.anchors) != len(self.records) or not self.records:
            return None
        tests: list[tuple[Standing | None, str]] = []
        fix: list[tuple[Standing | None, str]] = []
        for rec, anchor in zip(self.records, self.anchors):
            if rec.identical:
                continue
            for right, dim, out in ((anchor.tests, "completeness", tests),
                                    (anchor.fix, "minimality", fix)):
                if right is None:
                    continue
                d = rec.dimensions[dim]
                side = ("a" if d.winner == rec.arm_a else "b" if d.winner == rec.arm_b
                        else "draw")
                out.append((standing(side, right) if d.state == "valid" else None, d.state))
        return anchor_checks(tests, fix)

    def comparisons(self) -> list[Comparison]:
        """Every (pair, dimension) answered validly in both orders."""
        out = []
        for n, rec in enumerate(self.records):
            for dim in DIMENSIONS:
                d = rec.dimensions[dim]
                if d.state == "valid" and d.order1 is not None and d.order2 is not None:
                    out.append(Comparison(f"{n}", d.order1, d.order2, dim))
        return out

    def reliability(self) -> JudgeReliability:
        """``summary["pairwise"]["judge_reliability"]``."""
        return judge_reliability(self.comparisons(), self.repeats, threshold=self.threshold,
                                 seed=self.seed, n_repeat_calls=self.n_repeat_calls,
                                 sized=self.sized_by_dimension(),
                                 anchors=self.anchor_checks())

    @property
    def n_skipped_cost(self) -> int:
        """Pairs left unjudged because the cost cap admitted none of their calls."""
        return sum(_skipped(r) for r in self.records)

    def skipped_pairs(self) -> list[str]:
        """``task / arm_a vs arm_b`` of every pair the cost cap left out."""
        return [r.label() for r in self.records if _skipped(r)]

    def arms(self) -> list[str]:
        return sorted({r.arm_a for r in self.records} | {r.arm_b for r in self.records})

    def _summarise(self) -> PairwiseStepSummary:
        """``pairwise`` (per "a vs b" and dimension), ``pairwise_ranking`` (more than two
        arms), ``pairwise_run`` (judge, counts, cost) and ``pairwise_size``."""
        table = self.table()
        pairs = {f"{a} vs {b}": {dim: s.dimension_stats() for dim, s in dims.items()}
                 for (a, b), dims in table.table.items()}
        out = PairwiseStepSummary(pairwise=PairwiseStats(**pairs))
        if not self.dry_run and self.records:
            out.pairwise = PairwiseStats(judge_reliability=self.reliability(), **pairs)
            size = self.size_control()
            if size:
                out.pairwise_size = size
        if len(self.arms()) > 2:
            out.pairwise_ranking = self._ranking(table)
        out.pairwise_run = self._run()
        return out

    def _ranking(self, table: DimensionTable) -> PairwiseRanking:
        ranked = ranking(table, DIMENSIONS)
        if not self.dry_run:
            intervals = ranking_intervals(self._tables_by_record(), DIMENSIONS, seed=self.seed)
            for dim, entry in ranked.items():
                entry.ci = dict(intervals.get(dim, {}))
        return PairwiseRanking(method=RANKING_METHOD, **ranked)

    def _notes(self) -> list[str]:
        skipped = self.skipped_pairs()
        too_long = [r.label() for r in self.records if _too_long(r)]
        notes = list(self.notes)
        if too_long:
            notes.append(f"{len(too_long)} pairs not judged: too long for the judge's context "
                         "window even cut by whole hunks: " + ", ".join(too_long[:20]))
        if skipped:
            notes.append(f"{len(skipped)} pairs not judged for the cost cap: "
                         + ", ".join(skipped[:20]) + (" …" if len(skipped) > 20 else ""))
        if self.stopped is not None:
            notes.append(f"judging stopped: {self.stopped.detail}")
        return notes

    def _run(self) -> PairwiseRun:
        """``summary["pairwise_run"]``: the judge, what was asked, what it cost."""
        orders = [o for r in self.records for o in r.orders]
        skipped = self.skipped_pairs()
        too_long = sum(_too_long(r) for r in self.records)
        run = PairwiseRun(
            judge=self.judge, select=self.select, n_pairs=len(self.records),
            n_identical=sum(r.identical for r in self.records),
            n_calls=sum(o.tries for o in orders if not o.cached) + self.n_repeat_calls,
            n_cached=sum(o.cached for o in orders) + self.n_repeat_cached,
            cost_usd=round(sum(o.cost_usd for o in orders) + self.repeat_cost_usd, 6),
            states=_state_counts(self.records), dry_run=self.dry_run, notes=self._notes(),
            n_skipped_cost=len(skipped), skipped_cost=skipped,
            skipped={"too_long_for_context": too_long} if too_long else {},
            n_fitted=sum(any(o.fitted for o in r.orders) for r in self.records))
        if self.spend_usd is not None:
            run.spend_usd = round(self.spend_usd, 6)
        return run

    def _tables_by_record(self) -> list[DimensionTable]:
        """One table per record: the units the ranking's bootstrap resamples."""
        tables = []
        for rec in self.records:
            one = PairwiseResult(records=[rec])
            tables.append(one.table())
        return tables


def _skipped(record: PairRecord) -> bool:
    return any(o.skipped_cost for o in record.orders) and not any(
        o.state == "error" for o in record.orders)


def _too_long(record: PairRecord) -> bool:
    return any(o.skipped == "too_long_for_context" for o in record.orders)


def _state_counts(records: list[PairRecord]) -> dict[PairState, int]:
    """Pairs per state; a pair the cost cap left out counts as ``skipped``, not unscored."""
    counts: dict[PairState, int] = {"valid": 0, "unscored": 0, "error": 0, "skipped": 0}
    for r in records:
        state: PairState = ("skipped" if _skipped(r) or _too_long(r)
                 else r.dimensions[DIMENSIONS[0]].state)
        counts[state] += 1
    return counts


__all__ = ["Answers", "PairwiseResult"]
