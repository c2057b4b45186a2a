"""What the pairwise step adds to ``summary.json``: typed statistics, built directly.

:class:`PairwiseStepSummary` is the step's summary (its part of ``summary.json``): the
top-level entries ``pairwise`` (:class:`PairwiseStats`: per arm pair and dimension, plus
the judge's reliability and, with several judges, the jury, :class:`PairwiseJury`),
``pairwise_ranking`` (more than two arms), ``pairwise_run`` (judge, counts, cost)
and ``pairwise_size`` (the arm effect with and without patch size).
:class:`judgekit.summary.EvalSummary` is composed from it.

Example:
    >>> s = PairwiseStats(judge_reliability=None, **{"a vs b": {
    ...     "minimality": PairDimensionStats(wins_a=1)}})
    >>> s.pairs()["a vs b"]["minimality"].wins_a
    1
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from judgekit.engine.types import State
from judgekit.corrected import EffectiveJudges
from judgekit.engine.urls import RedactedURL
from judgekit.omit import OmitIfNone

Interval = tuple[float, float]


class _Open(BaseModel):
    """A part another step produces: known fields are typed, new keys pass through."""

    model_config = ConfigDict(extra="allow")


class PairDimensionStats(_Open):
    """Pairwise statistics of one arm pair on one dimension (flip-and-draw)."""

    wins_a: int = 0
    wins_b: int = 0
    draws: int = 0
    losses_a: int = 0
    n: int = Field(0, description="Pairs with a verdict (wins, losses and draws).")
    identical: int = Field(0, description="Draws decided without a call (identical changes).")
    unscored: int = 0
    error: int = 0
    n_unscored: int = Field(0, description="Pairs without a verdict (unscored or error).")
    win_rate_a: float | None = Field(None, description="Wins of arm_a, draws as half.")
    win_rate_a_ci: Interval | None = None
    position_consistency: float | None = Field(
        None, description="Share of judged pairs whose two orders agreed.")
    position_bias: int = Field(0, description="Pairs where the same slot won both orders.")
    first_slot_preference: float | None = Field(
        None, description="Share of decisive answers that picked the solution shown first.")
    n_judged: int = 0
    n_decisive_answers: int = 0


class DimensionReliability(_Open):
    """The judge's position behaviour on one dimension."""

    position_consistency: float | None = None
    preference_fairness: float | None = Field(
        None, description="In [-1, 1]: 0 fair, +1 always the first slot, -1 always the second.")
    preference_fairness_ci: Interval | None = None
    n: int = 0


class SizeLean(_Open):
    """How often the larger patch won the decisive verdicts between unequal patches."""

    share_larger: float | None = Field(
        None, description="Share of decisive verdicts that went to the larger patch (lines "
                          "added + removed); 0.5 is blind to size.")
    share_larger_ci: Interval | None = Field(None, description="95% Wilson interval.")
    n: int = Field(0, description="Decisive verdicts between patches of unequal size.")


class SizeBias(SizeLean):
    """``judge_reliability.size_bias``: the judge's lean to the larger patch."""

    flagged: bool = False
    flagged_dimensions: list[str] = Field(default_factory=list)
    threshold: float = Field(0.8, description="Share at which a dimension flags the judge "
                                              "(with the interval's lower bound above 0.5).")
    min_n: int = Field(10, description="Decisive verdicts a dimension needs to flag it.")
    by_dimension: dict[str, SizeLean] = Field(default_factory=dict)


class AnchorCheck(_Open):
    """One anchor: the judge's verdicts on pairs whose ground truth names the side that
    should win one dimension."""

    dimension: str
    right_side: str = Field("", description="Which side of an anchored pair should win.")
    n_pairs: int = Field(0, description="Anchored pairs (identical pairs left out).")
    n: int = Field(0, description="Anchored pairs with a verdict.")
    n_unscored: int = Field(0, description="Anchored pairs without a verdict.")
    right: int = 0
    draw: int = 0
    wrong: int = 0
    n_decisive: int = Field(0, description="Verdicts that named a side (right + wrong).")
    share_right: float | None = None
    share_right_ci: Interval | None = Field(None, description="95% Wilson interval.")
    share_draw: float | None = None
    share_draw_ci: Interval | None = None
    share_wrong: float | None = Field(None, description="Share of anchored verdicts that "
                                                        "favoured the anchored-wrong side.")
    share_wrong_ci: Interval | None = None
    flagged: bool = False


class AnchorChecks(_Open):
    """``judge_reliability.anchors``: verdicts held against the tests and the fix."""

    tests: AnchorCheck = Field(description="completeness on pairs with one verified pass "
                                           "and one verified fail.")
    fix: AnchorCheck = Field(description="minimality on pairs with one side inside the "
                                         "fix's files and one touching source files "
                                         "outside them.")
    flagged: bool = False
    min_n: int = 5
    rule: str = ""


class JudgeReliability(_Open):
    """Whether the pairwise judge's verdicts can be trusted, and why not."""

    flagged: bool
    reasons: list[str] = Field(default_factory=list)
    message: str = ""
    threshold: float = 0.6
    position_consistency: float | None = None
    preference_fairness: float | None = None
    preference_fairness_ci: Interval | None = None
    by_dimension: dict[str, DimensionReliability] = Field(default_factory=dict)
    repetition_stability: float | None = None
    n_repeats: int = 0
    n_repeat_calls: int = 0
    size_bias: SizeBias | None = Field(None, description="Whether decisive verdicts follow "
                                                         "patch size.")
    anchors: AnchorChecks | None = Field(None, description="How often verdicts contradict "
                                         "the tests and the fix (anchored pairs).")


class Coefficient(_Open):
    """A coefficient of the logistic model (log-odds) with its 95% Wald interval."""

    estimate: float
    ci: Interval | None = None


class RatioBin(_Open):
    """arm_a's win rate (draws as half) among pairs of one size-ratio bin."""

    bin: str
    win_rate_a: float
    ci: Interval | None = None
    n: int = 0


class SizeControl(_Open):
    """One arm pair on one dimension: the arm effect with and without patch size."""

    n: int = 0
    sizes_differ: int = Field(0, description="Verdicts between patches of unequal size.")
    arm_effect: Coefficient | None = Field(None, description="Log-odds that arm_a wins, "
                                                             "size not in the model.")
    win_rate_a: float | None = None
    arm_effect_size_controlled: Coefficient | None = Field(
        None, description="Log-odds that arm_a wins with patch size held equal (the log "
                          "size ratio as a covariate).")
    win_rate_a_size_controlled: float | None = None
    size_effect: Coefficient | None = Field(None, description="Log-odds per unit of "
                                                              "log(size_a / size_b).")
    by_ratio: list[RatioBin] = Field(default_factory=list)


class JuryAgreementEntry(_Open):
    """Krippendorff's alpha (nominal) over the judges' verdicts, with its interval."""

    alpha: float | None = None
    ci: Interval | None = Field(None, description="95% bootstrap interval over compared "
                                                  "pairs.")
    n_units: int = 0
    n_pairs: int = 0


class JuryAgreement(JuryAgreementEntry):
    """``pairwise.jury.agreement``: all dimensions pooled, then by dimension."""

    by_dimension: dict[str, JuryAgreementEntry] = Field(default_factory=dict)


class JuryMember(_Open):
    """One judge of a jury: its own results, self-audit and cost."""

    model: str
    base_url: RedactedURL | None = None
    pairs: dict[str, dict[str, PairDimensionStats]] = Field(default_factory=dict)
    judge_reliability: JudgeReliability | None = None
    size_control: dict[str, dict[str, SizeControl]] = Field(default_factory=dict)
    run: PairwiseRun | None = None


class PairwiseJury(_Open):
    """``pairwise.jury``: several judges, each by flip-and-draw, and their verdict."""

    rule: str = Field("majority", description="majority (more than half of the judges "
                                              "with a verdict) or unanimous.")
    judges: list[str] = Field(default_factory=list)
    agreement: JuryAgreement = Field(default_factory=JuryAgreement)
    members: dict[str, JuryMember] = Field(default_factory=dict)
    flagged_judges: list[str] = Field(default_factory=list, description="The judges whose "
                                      "self-audit flagged them.")
    effective_judges: EffectiveJudges | None = Field(
        None, description="How many independent judges the jury amounts to, from the "
                          "correlation of their verdicts (A 1, B 0, draw 0.5).")
    reused_judges: list[str] = Field(
        default_factory=list, description="Judges whose verdicts and entries were taken from "
                                          "the judged output a judge was added to (not asked "
                                          "in this run; pairwise_run's counts and cost leave "
                                          "them out).")


class PairwiseStats(OmitIfNone):
    """``summary["pairwise"]``: per arm pair and dimension, plus the judge's reliability."""

    omit_if_none: ClassVar[tuple[str, ...]] = ("jury",)

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, dict[str, PairDimensionStats]] = Field(init=False)

    judge_reliability: JudgeReliability | None = None
    jury: PairwiseJury | None = Field(None, description="With several judges: each judge's "
                                     "results and self-audit, and their agreement.")


    def pairs(self) -> dict[str, dict[str, PairDimensionStats]]:
        """``"<arm_a> vs <arm_b>"`` → dimension → statistics."""
        return dict(self.__pydantic_extra__ or {})


class RankingEntry(_Open):
    """Arms of one dimension, best first, with Bradley–Terry strengths."""

    ranking: list[str] = Field(default_factory=list)
    strength: dict[str, float] = Field(default_factory=dict)
    ci: dict[str, Interval | None] | None = Field(
        None, description="Bootstrap interval of each arm's strength.")


class PairwiseRanking(BaseModel):
    """``summary["pairwise_ranking"]``: the method, then one entry per dimension and
    ``overall``."""

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, RankingEntry] = Field(init=False)

    method: str = "Bradley-Terry"

    def dimensions(self) -> dict[str, RankingEntry]:
        return dict(self.__pydantic_extra__ or {})


#: how a pair ended, as ``pairwise_run.states`` counts it: its verdict's item state, or
#: ``skipped`` where the cost cap or the judge's context window left it out.
PairState = State | Literal["skipped"]


class PairwiseRun(_Open):
    """``summary["pairwise_run"]``: how the pairwise judging ran."""

    judge: str | None = None
    select: str = "best"
    n_pairs: int = 0
    n_identical: int = 0
    n_calls: int = 0
    n_cached: int = 0
    cost_usd: float = 0.0
    states: dict[PairState, int] = Field(default_factory=dict)
    dry_run: bool = False
    notes: list[str] = Field(default_factory=list)
    n_skipped_cost: int | None = Field(None, description="Pairs not judged for the cost cap.")
    skipped_cost: list[str] = Field(default_factory=list,
                                    description="The pairs not judged for the cost cap.")
    spend_usd: float | None = Field(None, description="What the engine had spent when this "
                                                      "step ended (every step so far).")
    skipped: dict[str, int] = Field(default_factory=dict, description="Pairs not judged, by "
                                    "reason (too_long_for_context).")
    n_fitted: int = Field(0, description="Pairs whose diffs were cut by whole hunks to fit "
                                         "the judge model's context window.")


class PairwiseStepSummary(BaseModel):
    """The entries the pairwise step adds to ``summary.json``; those not made stay unset."""

    pairwise: PairwiseStats | None = None
    pairwise_ranking: PairwiseRanking | None = None
    pairwise_run: PairwiseRun | None = None
    pairwise_size: dict[str, dict[str, SizeControl]] | None = Field(
        None, description="Per arm pair and dimension: the arm effect with and without "
                          "patch size (a logistic Bradley-Terry model).")


__all__ = [
    "AnchorCheck", "AnchorChecks", "Coefficient", "DimensionReliability", "Interval", "JudgeReliability", "JuryAgreement",
    "JuryAgreementEntry", "JuryMember", "PairwiseJury", "PairDimensionStats",
    "PairwiseRanking", "PairwiseRun", "PairwiseStepSummary", "PairwiseStats", "RankingEntry",
    "RatioBin", "SizeBias", "SizeControl", "SizeLean",
]
