"""The integrity step's descriptor: ``integrity.jsonl`` of :class:`IntegrityRecord` (one
line per flagged result), the :class:`IntegrityStepSummary` entry of ``summary.json``
(``integrity``), its closing and headline lines, and its switch (``no-integrity``).

Example:
    >>> INTEGRITY.name, INTEGRITY.records_file, INTEGRITY.switch.flag
    ('integrity', 'integrity.jsonl', 'no-integrity')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel

from judgekit.integrity.models import (IntegrityRecord, IntegrityStats, IntegrityStepSummary,
                                       ItemFlag, ItemIntegrity)
from judgekit.steps import StepKind, StepResult, Switch

if TYPE_CHECKING:
    from judgekit.ingest.items import BenchmarkItem
    from judgekit.ingest.transcripts.model import Transcript


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def arm_lines(stats: IntegrityStats) -> list[str]:
    """Per arm: the pass rate as reported and with flagged passes counted as failures."""
    out = []
    for name, arm in stats.arms.items():
        line = (f"{name}: pass rate {_pct(arm.pass_rate)} as reported, "
                f"{_pct(arm.pass_rate_adjusted)} with {arm.n_flagged_passes} flagged "
                f"pass{'es' if arm.n_flagged_passes != 1 else ''} counted as failures "
                f"({arm.n_flagged} of {arm.n} results flagged")
        if arm.n_without_transcript:
            line += f"; {arm.n_without_transcript} without a transcript: tool-call checks unknown"
        out.append(line + ")")
    for change in stats.ranking_changes:
        out.append(f"ranking of {change.arm_a} and {change.arm_b} changes: {change.reported} "
                   f"as reported, {change.adjusted} with flagged passes counted as failures")
    return out


def item_count(items: ItemIntegrity) -> str:
    """``solution-in-item in N of M items (...)``."""
    return (f"solution-in-item in {items.n_flagged} of {items.n_items} items (at least "
            f"{_pct(items.threshold)} of the fix's added lines in the issue text)")


def item_lines(items: ItemIntegrity) -> list[str]:
    """``solution-in-item`` on benchmark items: how many, and which with their shares."""
    head = f"integrity: {item_count(items)}"
    if not items.flagged:
        return [head]
    listed = ", ".join(f"{f.instance_id} ({_pct(f.share)})" for f in items.flagged[:10])
    more = f" and {len(items.flagged) - 10} more" if len(items.flagged) > 10 else ""
    return [f"{head}: {listed}{more}"]


class IntegrityKind(StepKind[IntegrityRecord, IntegrityStepSummary]):
    """Integrity checks of every result; a judge confirms the flagged ones."""

    def ran(self, summary: IntegrityStepSummary) -> bool:
        return summary.integrity is not None or summary.integrity_items is not None

    def closing_lines(self, summary: IntegrityStepSummary,
                      part: StepResult[IntegrityRecord, IntegrityStepSummary] | None
                      ) -> list[str]:
        s = summary.integrity
        if s is None:
            return item_lines(summary.integrity_items) if summary.integrity_items else []
        judged = (f"; judge: {s.n_confirmed} confirmed, {s.n_cleared} cleared, "
                  f"{s.n_not_judged} not judged"
                  + (f" ({s.n_skipped_cost} for the cost cap)" if s.n_skipped_cost else "")
                  + f"; spend ${s.cost_usd:.4f}" if s.judged
                  else "; findings unconfirmed (no judge)")
        return [f"{self.name}: {s.n_flagged} of {s.n_results} results flagged, "
                f"{s.n_flagged_passes} passes counted as failures{judged}"]

    def headline_lines(self, summary: IntegrityStepSummary) -> list[str]:
        s = summary.integrity
        if s is None:
            return item_lines(summary.integrity_items) if summary.integrity_items else []
        head = (f"integrity: {s.n_flagged} of {s.n_results} results flagged ({s.rule})"
                if s.n_flagged else f"integrity: no findings on {s.n_results} results")
        if s.n_without_transcript:
            head += (f"; {s.n_without_transcript} without a transcript (tool-call checks "
                     "unknown)")
        return [head] + (arm_lines(s) if s.n_flagged else [])

    def on_transcript(self, transcript: Transcript) -> list[BaseModel]:
        """The findings its tool calls and the patch it holds show
        (:func:`judgekit.integrity.inspect.inspect_transcript`)."""
        from judgekit.integrity.inspect import inspect_transcript

        return list(inspect_transcript(transcript))

    def on_items(self, items: Sequence[BenchmarkItem]
                 ) -> StepResult[IntegrityRecord, IntegrityStepSummary]:
        """``solution-in-item`` on every item (:func:`check_items`)."""
        return check_items(items)

    def left_out_for_cost(self, summary: IntegrityStepSummary) -> tuple[str, list[str]]:
        s = summary.integrity
        return "not confirmed", list(s.skipped_cost) if s is not None else []

    def n_left_out_for_cost(self, summary: IntegrityStepSummary) -> int:
        return summary.integrity.n_skipped_cost if summary.integrity is not None else 0

    def spend_usd(self, summary: IntegrityStepSummary) -> float:
        return summary.integrity.cost_usd if summary.integrity is not None else 0.0


#: the integrity step.
INTEGRITY = IntegrityKind("integrity", IntegrityRecord, IntegrityStepSummary,
                          "integrity.jsonl")
INTEGRITY.switch = Switch("no-integrity", "skip the integrity checks (tampered or skipped "
                                          "tests, peeking at the fix, ...; docs/integrity.md)")



class ItemIntegrityResult(StepResult[IntegrityRecord, IntegrityStepSummary]):
    """``solution-in-item`` on benchmark items: the flagged items' records and their count
    among all items."""

    kind = INTEGRITY

    def __init__(self, n_items: int, records: Sequence[IntegrityRecord],
                 threshold: float) -> None:
        self.n_items = n_items
        self.records = list(records)
        self.threshold = threshold

    def _summarise(self) -> IntegrityStepSummary:
        flags = [ItemFlag(instance_id=r.task_id, share=f.share or 0.0)
                 for r in self.records for f in r.findings]
        return IntegrityStepSummary(integrity_items=ItemIntegrity(
            threshold=self.threshold, n_items=self.n_items, n_flagged=len(self.records),
            flagged=flags))


def check_items(items: Sequence[BenchmarkItem]) -> ItemIntegrityResult:
    """``solution-in-item`` on every item: a record for each flagged one
    (:func:`judgekit.integrity.items.item_records`)."""
    from judgekit.integrity.checks import SOLUTION_SHARE
    from judgekit.integrity.items import item_records

    return ItemIntegrityResult(len(items), item_records(items), SOLUTION_SHARE)


__all__ = ["INTEGRITY", "IntegrityKind", "ItemIntegrityResult", "arm_lines", "check_items",
           "item_count", "item_lines"]
