"""The integrity step's descriptor: ``integrity.jsonl`` of :class:`IntegrityRecord` (one
line per flagged result), the :class:`IntegrityStepSummary` entry of ``summary.json``
(``integrity``), its closing and headline lines, and its switch (``no-integrity``).

Example:
    >>> INTEGRITY.name, INTEGRITY.records_file, INTEGRITY.switch.flag
    ('integrity', 'integrity.jsonl', 'no-integrity')
"""

from __future__ import annotations

from judgekit.integrity.models import (IntegrityRecord, IntegrityStats, IntegrityStepSummary,
                                       ItemIntegrity)
from judgekit.steps import StepKind, StepResult, Switch


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

__all__ = ["INTEGRITY", "IntegrityKind", "arm_lines", "item_count", "item_lines"]
