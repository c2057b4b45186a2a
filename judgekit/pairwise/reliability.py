"""How far the pairwise judge itself can be trusted: position consistency, preference
fairness and repetition stability, and the verdict that sums them up.

The metrics follow Shi et al., "Judging the Judges: A Systematic Study of Position Bias in
LLM-as-a-Judge" (2024), on every comparison judged in both orders:

* *position consistency*: share of comparisons whose winner survived the swap of the two
  solutions (both orders named the same arm, or both said tie);
* *preference fairness*: the signed lean toward a slot, in [-1, 1]: +1 for a comparison
  where the solution shown first won both orders, -1 where the one shown second did, 0
  otherwise, averaged; 0 is fair. Its 95% interval is a bootstrap over compared pairs;
* *repetition stability*: share of repeated answers (the same request asked again) that
  agree with the first answer, dimension by dimension;
* *size bias*: the share of decisive verdicts that went to the larger patch (see
  :mod:`judgekit.pairwise.size` for the threshold at which it flags the judge);
* *anchors*: how often verdicts favour the side the tests or the fix say is worse (see
  :mod:`judgekit.pairwise.anchors` for the rule that flags the judge).

Example:
    >>> comps = [Comparison("p1", "A", "A")] * 4
    >>> r = judge_reliability(comps, {}, threshold=0.6)
    >>> r.flagged, r.position_consistency, r.preference_fairness
    (True, 0.0, 1.0)
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from judgekit.errors import render_options
from judgekit.pairwise.flip import to_side
from judgekit.pairwise.anchors import anchor_reasons
from judgekit.pairwise.models import (
    AnchorChecks,
    DimensionReliability,
    Interval,
    JudgeReliability,
)
from judgekit.pairwise.size import SizedVerdict, size_bias, size_reason

#: bootstrap resamples of the preference-fairness interval.
BOOTSTRAP = 1000
DEFAULT_THRESHOLD = 0.6


@dataclass(frozen=True)
class Comparison:
    """One dimension of one pair, answered validly in both orders."""

    pair: str
    order1: str
    order2: str
    dimension: str = ""

    @property
    def consistent(self) -> bool:
        return to_side(self.order1, 1) == to_side(self.order2, 2)

    @property
    def lean(self) -> int:
        """+1: the first slot won both orders; -1: the second slot did; else 0."""
        if self.order1 == self.order2 == "A":
            return 1
        if self.order1 == self.order2 == "B":
            return -1
        return 0


def _fairness_ci(comps: Sequence[Comparison], seed: int) -> Interval | None:
    """Percentile bootstrap of the mean lean, resampling whole pairs (their dimensions
    move together).

    A pair enters the mean only through its (sum of leans, dimensions) kind, of which
    there are a handful; resampling ``k`` pairs is drawing how many of each kind, one
    multinomial draw per resample, whatever the number of pairs.
    """
    by_pair: dict[str, list[int]] = defaultdict(list)
    for c in comps:
        by_pair[c.pair].append(c.lean)
    if not by_pair:
        return None
    kinds = Counter((sum(v), len(v)) for v in by_pair.values())
    sums = np.array([s for s, _ in kinds], dtype=float)
    counts = np.array([n for _, n in kinds], dtype=float)
    share = np.array(list(kinds.values()), dtype=float) / len(by_pair)
    drawn = np.random.default_rng(seed).multinomial(len(by_pair), share, size=BOOTSTRAP)
    stats = (drawn @ sums) / (drawn @ counts)
    lo, hi = np.percentile(stats, [2.5, 97.5])
    return (round(float(lo), 4), round(float(hi), 4))


def _metrics(comps: Sequence[Comparison], seed: int) -> DimensionReliability:
    n = len(comps)
    if not n:
        return DimensionReliability()
    return DimensionReliability(
        position_consistency=round(sum(c.consistent for c in comps) / n, 4),
        preference_fairness=round(sum(c.lean for c in comps) / n, 4),
        preference_fairness_ci=_fairness_ci(comps, seed), n=n)


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def _message(reasons: list[str], overall: DimensionReliability,
             size: str | None = None, anchored: Sequence[str] = ()) -> str:
    pc = overall.position_consistency
    if reasons and anchored and set(reasons) <= {*anchored, size}:
        return ("Do not take these pairwise results at face value: where the tests or the "
                "fix settle which solution is better, the judge's verdicts contradict them "
                "more often than not. Use another judge model or a revised prompt, and "
                "measure again.")
    if pc is None:
        return ("No comparison was answered in both orders, so the judge's position "
                "behaviour could not be measured.")
    if reasons and reasons == [size]:
        return ("Do not take these pairwise results at face value: the judge rewards the "
                "larger patch, so an arm that writes more wins whatever its fixes are worth. "
                "The size-controlled win rates show what is left of each preference with "
                "patch size held equal; use another judge model or a revised prompt, and "
                "measure again.")
    if not reasons:
        return (f"The judge kept its verdict when the two solutions swapped places in "
                f"{_pct(pc)} of comparisons and showed no clear preference for a slot: the "
                "pairwise wins reflect the solutions, not their order.")
    return render_options(
        "Do not take these pairwise results at face value: " + "; ".join(reasons)
        + ". Flip-and-draw turns order-dependent answers into draws, so many draws mean "
          "'the judge could not tell', not 'equally good'; use a stronger judge model or "
          "a revised prompt, and measure again ({option:stability_sample} shows how often "
          "it changes its mind on the very same question).")


def judge_reliability(comparisons: Sequence[Comparison],
                      repeats: Mapping[str, Sequence[tuple[Mapping[str, str], Mapping[str, str]]]],
                      *, threshold: float = DEFAULT_THRESHOLD, seed: int = 0,
                      n_repeat_calls: int = 0,
                      sized: Mapping[str, Sequence[SizedVerdict]] | None = None,
                      anchors: AnchorChecks | None = None) -> JudgeReliability:
    """``summary["pairwise"]["judge_reliability"]``.

    ``comparisons`` are every (pair, dimension) answered validly in both orders;
    ``repeats`` maps a request key to ``(first answers, repeated answers)`` tuples, each a
    ``dimension -> "A" | "B" | "tie"`` mapping. ``n_repeats`` counts the repeated answers
    compared; ``n_repeat_calls`` the calls this run made for them (0 on a cached re-run).
    ``sized`` (dimension -> verdicts with the two patch sizes) adds ``size_bias``;
    ``anchors`` (the verdicts held against the tests and the fix) adds ``anchors``.
    """
    overall = _metrics(comparisons, seed)
    by_dim: dict[str, list[Comparison]] = defaultdict(list)
    for c in comparisons:
        by_dim[c.dimension].append(c)
    reasons: list[str] = []
    pc, ci = overall.position_consistency, overall.preference_fairness_ci
    if pc is not None and pc < threshold:
        reasons.append(f"position consistency {pc:.2f} is below {threshold:.2f}: the verdict "
                       "often changed when the two solutions swapped places")
    if ci is not None and (ci[0] > 0 or ci[1] < 0):
        slot = "first" if ci[0] > 0 else "second"
        reasons.append(f"preference fairness {overall.preference_fairness:+.2f}, 95% CI "
                       f"[{ci[0]:+.2f}, {ci[1]:+.2f}] excludes 0: the judge favours the "
                       f"solution shown {slot}")
    agree = total = 0
    for pairs in repeats.values():
        for first, again in pairs:
            for dim, answer in first.items():
                if dim in again:
                    total += 1
                    agree += int(again[dim] == answer)
    bias = size_bias(sized) if sized is not None else None
    size = size_reason(bias) if bias is not None else None
    if size:
        reasons.append(size)
    anchored = anchor_reasons(anchors) if anchors is not None else []
    reasons.extend(anchored)
    return JudgeReliability(
        flagged=bool(reasons), reasons=reasons,
        message=_message(reasons, overall, size, anchored),
        threshold=threshold, position_consistency=overall.position_consistency,
        preference_fairness=overall.preference_fairness,
        preference_fairness_ci=overall.preference_fairness_ci,
        by_dimension={dim: _metrics(comps, seed) for dim, comps in sorted(by_dim.items())},
        repetition_stability=round(agree / total, 4) if total else None,
        n_repeats=sum(len(v) for v in repeats.values()), n_repeat_calls=n_repeat_calls,
        size_bias=bias, anchors=anchors)
