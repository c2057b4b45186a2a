"""The result of pairwise judging: one record per compared pair, and its statistics.

``pairwise.jsonl`` holds one :class:`PairRecord` a line; ``summary.json`` gets the
entries of :meth:`PairwiseReport.summary_entries`.

Example:
    >>> report = PairwiseReport(records=[])
    >>> report.summary_entries()["pairwise"], report.records_jsonl()
    ({}, '')
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from judgekit.omit import OmitIfNone
from judgekit.engine.accounting import SkipReason
from judgekit.engine.types import State
from judgekit.pairwise.flip import to_side
from judgekit.pairwise.reliability import DEFAULT_THRESHOLD, Comparison, judge_reliability
from judgekit.pairwise.size import SizedVerdict, size_controlled
from judgekit.pairwise.stats import DimensionTable, ranking, ranking_intervals
from judgekit.pairwise.verdict import DIMENSIONS

#: answers of one order, dimension -> "A" | "B" | "tie".
Answers = dict[str, str]


class DimensionRecord(BaseModel):
    """One dimension of one compared pair after flip-and-draw."""

    winner: str = Field(description="arm_a's or arm_b's name, or 'draw'. When state is not "
                                     "'valid' this is 'draw' and counts nowhere.")
    order1: Literal["A", "B", "tie"] | None = Field(
        description="The judge's answer with arm_a shown first (null: not asked or failed).")
    order2: Literal["A", "B", "tie"] | None = Field(
        description="The judge's answer with arm_b shown first (null: not asked or failed).")
    position_bias: bool = Field(description="The same slot won in both orders.")
    state: State
    reasoning1: str | None = None
    reasoning2: str | None = None


class OrderRecord(BaseModel):
    """What became of one of the two calls of a pair."""

    order: int
    shown_first: str
    state: State
    reason: str | None = None
    tries: int = 0
    cached: bool = False
    cost_usd: float = 0.0
    model: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    skipped_cost: bool = Field(False, description="Not asked: the cost cap would not admit "
                                                  "the call.")
    skipped: SkipReason | None = Field(None, description="Not asked for another reason: "
                                                         "too_long_for_context.")
    fitted: bool = Field(False, description="The diffs were cut by whole hunks to fit the "
                                            "judge model's context window.")


class PairRecord(OmitIfNone):
    """One line of ``pairwise.jsonl``: two solutions of one task, compared both ways."""

    omit_if_none: ClassVar[tuple[str, ...]] = ("judges",)

    task_id: str
    arm_a: str
    arm_b: str
    attempt_a: int
    attempt_b: int
    run_id_a: str | None = None
    run_id_b: str | None = None
    identical: bool = Field(False, description="Same change up to whitespace and file order: "
                                               "a draw decided without a call.")
    reference_shown: bool = False
    context_shown: bool = False
    dimensions: dict[str, DimensionRecord]
    orders: list[OrderRecord] = Field(default_factory=list)
    judges: dict[str, JurorRecord] | None = Field(
        None, description="With several judges (a jury): each judge's own flip-and-draw "
                          "result, by judge; ``dimensions`` then holds the jury's verdicts "
                          "(no orders of their own). Absent with one judge.")



class JurorRecord(BaseModel):
    """One judge's flip-and-draw result on one pair, beside the jury's verdict."""

    dimensions: dict[str, DimensionRecord]
    orders: list[OrderRecord] = Field(default_factory=list)


@dataclass
class PairwiseReport:
    """What :func:`judgekit.pairwise.run_pairwise` returns (a ``JudgedPart``)."""

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
    stopped: str | None = None
    #: dollars the engine had recorded when this step ended (all steps so far).
    spend_usd: float | None = None
    #: (size of a's patch, size of b's patch) per record, in lines added + removed; empty
    #: when unknown (no size bias or size-controlled results then).
    sizes: list[tuple[int, int]] = field(default_factory=list)
    _entries: dict[str, Any] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def dry_run(self) -> bool:
        return self.estimate is not None

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

    def size_control(self) -> dict[str, Any]:
        """``summary["pairwise_size"]``: per arm pair and dimension, the arm effect with and
        without patch size in the model, and the win rate by size ratio."""
        out: dict[str, Any] = {}
        for (a, b), dims in self.sized().items():
            entry = {dim: size_controlled(dims[dim]) for dim in DIMENSIONS if dim in dims}
            out[f"{a} vs {b}"] = {k: v for k, v in entry.items() if v is not None}
        return out

    def comparisons(self) -> list[Comparison]:
        """Every (pair, dimension) answered validly in both orders."""
        out = []
        for n, rec in enumerate(self.records):
            for dim in DIMENSIONS:
                d = rec.dimensions[dim]
                if d.state == "valid" and d.order1 is not None and d.order2 is not None:
                    out.append(Comparison(f"{n}", d.order1, d.order2, dim))
        return out

    def reliability(self) -> dict[str, Any]:
        """``summary["pairwise"]["judge_reliability"]``."""
        return judge_reliability(self.comparisons(), self.repeats, threshold=self.threshold,
                                 seed=self.seed, n_repeat_calls=self.n_repeat_calls,
                                 sized=self.sized_by_dimension())

    @property
    def n_skipped_cost(self) -> int:
        """Pairs left unjudged because the cost cap admitted none of their calls."""
        return sum(_skipped(r) for r in self.records)

    def skipped_pairs(self) -> list[str]:
        """``task / arm_a vs arm_b`` of every pair the cost cap left out."""
        return [f"{r.task_id} / {r.arm_a} vs {r.arm_b}" for r in self.records if _skipped(r)]

    def arms(self) -> list[str]:
        return sorted({r.arm_a for r in self.records} | {r.arm_b for r in self.records})

    def summary_entries(self) -> dict[str, Any]:
        """``pairwise`` (per "a vs b" and dimension), ``pairwise_ranking`` (more than two
        arms) and ``pairwise_run`` (judge, counts, cost). Computed once (the bootstrap
        intervals take a moment); a copy is returned."""
        if self._entries is None:
            self._entries = self._summary_entries()
        return copy.deepcopy(self._entries)

    def _summary_entries(self) -> dict[str, Any]:
        table = self.table()
        pairwise: dict[str, Any] = {f"{a} vs {b}": {dim: s.as_dict() for dim, s in dims.items()}
                                    for (a, b), dims in table.table.items()}
        orders = [o for r in self.records for o in r.orders]
        out: dict[str, Any] = {"pairwise": pairwise}
        if not self.dry_run and self.records:
            pairwise["judge_reliability"] = self.reliability()
            size = self.size_control()
            if size:
                out["pairwise_size"] = size
        if len(self.arms()) > 2:
            ranked = ranking(table, DIMENSIONS)
            if not self.dry_run:
                intervals = ranking_intervals(self._tables_by_record(), DIMENSIONS,
                                              seed=self.seed)
                for dim, entry in ranked.items():
                    entry["ci"] = intervals.get(dim, {})
            out["pairwise_ranking"] = {
                "method": "Bradley-Terry (MM), draws as half wins; 95% bootstrap intervals "
                          "over pairs", **ranked}
        skipped = self.skipped_pairs()
        too_long = [f"{r.task_id} / {r.arm_a} vs {r.arm_b}" for r in self.records
                    if _too_long(r)]
        notes = list(self.notes)
        if too_long:
            notes.append(f"{len(too_long)} pairs not judged: too long for the judge's context "
                         "window even cut by whole hunks: " + ", ".join(too_long[:20]))
        if skipped:
            notes.append(f"{len(skipped)} pairs not judged for the cost cap (--max-cost): "
                         + ", ".join(skipped[:20]) + (" …" if len(skipped) > 20 else ""))
        if self.stopped:
            notes.append(f"judging stopped: {self.stopped}")
        out["pairwise_run"] = {
            "judge": self.judge, "select": self.select, "n_pairs": len(self.records),
            "n_identical": sum(r.identical for r in self.records),
            "n_calls": sum(o.tries for o in orders if not o.cached) + self.n_repeat_calls,
            "n_cached": sum(o.cached for o in orders) + self.n_repeat_cached,
            "cost_usd": round(sum(o.cost_usd for o in orders) + self.repeat_cost_usd, 6),
            "states": _state_counts(self.records), "dry_run": self.dry_run,
            "notes": notes, "n_skipped_cost": len(skipped),
            "skipped_cost": skipped,
            "skipped": {"too_long_for_context": len(too_long)} if too_long else {},
            "n_fitted": sum(any(o.fitted for o in r.orders) for r in self.records),
        }
        if self.spend_usd is not None:
            out["pairwise_run"]["spend_usd"] = round(self.spend_usd, 6)
        return out

    def _tables_by_record(self) -> list[DimensionTable]:
        """One table per record: the units the ranking's bootstrap resamples."""
        tables = []
        for rec in self.records:
            one = PairwiseReport(records=[rec])
            tables.append(one.table())
        return tables

    def records_jsonl(self) -> str:
        """One :class:`PairRecord` a line."""
        return "".join(r.model_dump_json() + "\n" for r in self.records)


def _skipped(record: PairRecord) -> bool:
    return any(o.skipped_cost for o in record.orders) and not any(
        o.state == "error" for o in record.orders)


def _too_long(record: PairRecord) -> bool:
    return any(o.skipped == "too_long_for_context" for o in record.orders)


def _state_counts(records: list[PairRecord]) -> dict[str, int]:
    """Pairs per state; a pair the cost cap left out counts as ``skipped``, not unscored."""
    counts = {"valid": 0, "unscored": 0, "error": 0, "skipped": 0}
    for r in records:
        state = ("skipped" if _skipped(r) or _too_long(r)
                 else r.dimensions[DIMENSIONS[0]].state)
        counts[state] += 1
    return counts
