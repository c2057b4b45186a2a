"""The pairwise step's descriptor: ``pairwise.jsonl`` of :class:`PairRecord`, the
:class:`PairwiseStepSummary` entries of ``summary.json``, and its closing lines (with a jury,
each judge's line after the step's own).

Example:
    >>> PAIRWISE.name, PAIRWISE.records_file
    ('pairwise', 'pairwise.jsonl')
"""

from __future__ import annotations

from judgekit.pairwise.models import PairwiseStepSummary
from judgekit.pairwise.records import PairRecord
from judgekit.steps import StepKind, StepResult, cached_text, closing_counts


class PairwiseKind(StepKind[PairRecord, PairwiseStepSummary]):
    """Pairwise judging by flip-and-draw, by one judge or a jury."""

    def ran(self, summary: PairwiseStepSummary) -> bool:
        return summary.pairwise_run is not None

    def closing_lines(self, summary: PairwiseStepSummary,
                      part: StepResult[PairRecord, PairwiseStepSummary] | None) -> list[str]:
        run = summary.pairwise_run
        if run is None:
            return []
        skipped = run.states.get("skipped", 0) or run.n_skipped_cost or 0
        return [f"{self.name}: {run.n_pairs} pairs: "
                + closing_counts(run.states.get("valid", 0), run.states.get("unscored", 0),
                                 run.states.get("error", 0), skipped,
                                 run.skipped.get("too_long_for_context", 0))
                + f"; {run.n_calls} calls{cached_text(run.n_cached)}; "
                  f"spend ${run.cost_usd:.4f}"] + _jury_lines(summary) + (
            _anchor_lines(summary))

    def spend_usd(self, summary: PairwiseStepSummary) -> float:
        return summary.pairwise_run.cost_usd if summary.pairwise_run is not None else 0.0

    def left_out_for_cost(self, summary: PairwiseStepSummary) -> tuple[str, list[str]]:
        run = summary.pairwise_run
        return "not judged", list(run.skipped_cost) if run is not None else []

    def n_left_out_for_cost(self, summary: PairwiseStepSummary) -> int:
        run = summary.pairwise_run
        return (run.n_skipped_cost or 0) if run is not None else 0


def _jury_lines(summary: PairwiseStepSummary) -> list[str]:
    """With a jury: each judge's calls, cost and verdict on itself, and the agreement."""
    jury = summary.pairwise.jury if summary.pairwise is not None else None
    if jury is None:
        return []
    alpha = jury.agreement.alpha
    lines = [f"jury ({jury.rule}) of {len(jury.judges)} judges; agreement (Krippendorff's "
             f"alpha) {'undefined' if alpha is None else f'{alpha:.2f}'}"]
    for label, m in jury.members.items():
        run, rel = m.run, m.judge_reliability
        calls = (f"{run.n_calls} calls, {run.n_cached} verdicts from the cache, "
                 f"${run.cost_usd:.4f}" if run is not None else "no calls")
        if label in jury.reused_judges:
            calls = "verdicts reused from the judged output, no call"
        flag = "; flagged" if rel is not None and rel.flagged else ""
        lines.append(f"  judge {label}: {calls}{flag}")
    return lines


def _anchor_lines(summary: PairwiseStepSummary) -> list[str]:
    """One line per anchor with anchored pairs: the judge's (or the jury's) verdicts held
    against the tests and the fix, as ``summary.json`` holds them."""
    rel = summary.pairwise.judge_reliability if summary.pairwise is not None else None
    anchors = rel.anchors if rel is not None else None
    if anchors is None:
        return []
    out = []
    for what, wrong, check in (("tests", "the failing side", anchors.tests),
                               ("fix", "the side outside the fix", anchors.fix)):
        if not check.n_pairs:
            continue
        share = "–" if check.share_wrong is None else f"{100 * check.share_wrong:.0f}%"
        out.append(f"anchors ({what}): {check.n_pairs} anchored pairs, {check.n} with a "
                   f"verdict; {check.dimension} favoured {wrong} in {share}"
                   + ("; flagged" if check.flagged else ""))
    return out


#: the pairwise step.
PAIRWISE = PairwiseKind("pairwise", PairRecord, PairwiseStepSummary, "pairwise.jsonl")

__all__ = ["PAIRWISE", "PairwiseKind"]
