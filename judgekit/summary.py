"""``summary.json`` as one typed model: scoring, plus the pairwise and audit parts.

:class:`EvalSummary` is the single source of truth of ``summary.json``; ``judgekit schema
summary`` publishes its JSON Schema. It is built with ``model_validate`` from what
:meth:`judgekit.evaluate.EvalResult.summary_dict` yields, and read back from disk the same way.

``summary["pairwise"]`` keeps one key per arm pair (``"<arm_a> vs <arm_b>"``, dimension →
statistics) beside ``judge_reliability``; the pair keys are the model's typed extra fields,
reached through :meth:`PairwiseSummary.pairs`.

Example:
    >>> s = EvalSummary.model_validate({"results": [], "arms": {}, "comparisons": [],
    ...     "seed": 0, "pairwise": {"a vs b": {"minimality": {"wins_a": 1, "wins_b": 0,
    ...     "draws": 0}}}})
    >>> s.pairwise.pairs()["a vs b"]["minimality"].wins_a
    1
    >>> s.audit is None
    True
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from judgekit.engine.accounting import JudgeRun
from judgekit.scoring.models import ScoreSummary

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


class PairwiseSummary(BaseModel):
    """``summary["pairwise"]``: per arm pair and dimension, plus the judge's reliability."""

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, dict[str, PairDimensionStats]] = Field(init=False)

    judge_reliability: JudgeReliability | None = None

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


class PairwiseRun(_Open):
    """``summary["pairwise_run"]``: how the pairwise judging ran."""

    judge: str | None = None
    select: str = "best"
    n_pairs: int = 0
    n_identical: int = 0
    n_calls: int = 0
    n_cached: int = 0
    cost_usd: float = 0.0
    states: dict[str, int] = Field(default_factory=dict)
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


class SuspectRun(_Open):
    """One result that blamed a suspected task's defect."""

    run_id: str | None = None
    arm: str
    attempt: int = 0


class TaskAuditSummary(_Open):
    """What the audits of one task's failed results say together."""

    task_id: str
    n_audited: int = 0
    n_valid: int = 0
    n_ife: int = 0
    n_passed: int = 0
    by_type: dict[str, int] = Field(default_factory=dict)
    task_score: int | None = None
    suspected: bool = False
    suspected_type: str | None = None
    runs: list[SuspectRun] = Field(default_factory=list)


class AuditSummary(_Open):
    """``summary["audit"]``: counts of the audit of failed results, per task and category."""

    rubric: str | None = None
    rubric_version: int | str | None = None
    judge: str | None = None
    samples: int = 1
    n_failed: int = 0
    n_valid: int = 0
    n_unscored: int = 0
    n_error: int = 0
    n_ife: int = Field(0, description="Valid verdicts that blame the benchmark item.")
    by_type: dict[str, int] = Field(default_factory=dict)
    n_evidence_unverified: int = 0
    n_materials_cut: int = 0
    suspected_tasks: list[str] = Field(default_factory=list)
    tasks: list[TaskAuditSummary] = Field(default_factory=list)
    tries_total: int = 0
    cost_usd: float | None = None
    n_skipped_cost: int | None = Field(None, description="Results not audited for the cost cap.")
    skipped: dict[str, int] = Field(default_factory=dict, description="Results not audited, "
                                    "by reason (too_long_for_context).")
    n_materials_cut_to_fit: int = Field(0, description="Results whose materials were "
                                        "condensed further to fit the judge's window.")
    skipped_cost: list[str] = Field(default_factory=list,
                                    description="The results not audited for the cost cap "
                                                "(task / arm / attempt).")


class EvalSummary(ScoreSummary):
    """Everything ``summary.json`` holds: the scoring summary and the judged parts."""

    model_config = ConfigDict(title="EvalSummary")

    pairwise: PairwiseSummary | None = None
    pairwise_ranking: PairwiseRanking | None = None
    pairwise_run: PairwiseRun | None = None
    audit: AuditSummary | None = None
    judge: JudgeRun | None = Field(None, description="The judge model, how verdicts were "
                                   "asked of it, and every request it received.")
    notes: list[str] = Field(default_factory=list)

    def _not_given(self) -> set[str]:
        return set(type(self).model_fields) - self.model_fields_set

    def as_json(self) -> dict[str, Any]:
        """What ``summary.json`` holds: every field given, parts not run left out."""
        left_out = self._not_given()
        data = self.model_dump(mode="json", exclude=left_out | {"results"})
        if "results" in left_out:
            return data
        return {"results": [r.json_dict() for r in self.results], **data}

    def to_json_text(self) -> str:
        """``summary.json``'s text."""
        return self.model_dump_json(indent=2, exclude=self._not_given()) + "\n"


def summary_of(result: Any) -> EvalSummary:
    """The typed summary of an :class:`~judgekit.evaluate.EvalResult`.

    The scoring summary's values are taken as they are (typed already), not written out
    and read back; the judged parts' entries are validated.
    """
    score = result.summary
    data: dict[str, Any] = {name: getattr(score, name) for name in type(score).model_fields}
    for part in (result.pairwise, result.audit):
        if part is not None:
            data.update(part.summary_entries())
    if getattr(result, "judge", None) is not None:
        data["judge"] = result.judge
    if result.notes:
        data["notes"] = list(result.notes)
    return EvalSummary.model_validate(data)


__all__ = [
    "AuditSummary",
    "DimensionReliability",
    "EvalSummary",
    "JudgeReliability",
    "PairDimensionStats",
    "PairwiseRanking",
    "PairwiseRun",
    "PairwiseSummary",
    "RankingEntry",
    "SuspectRun",
    "TaskAuditSummary",
    "summary_of",
]
