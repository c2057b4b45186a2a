"""``summary.json`` as one typed model, composed from the steps' own summaries.

:class:`EvalSummary` is the single source of truth of ``summary.json``; ``judgekit schema
summary`` publishes its JSON Schema. It inherits the scoring summary
(:class:`~judgekit.scoring.models.ScoreSummary`), the pairwise step's
(:class:`~judgekit.pairwise.models.PairwiseStepSummary`) and the audit step's
(:class:`~judgekit.audit.models.AuditStepSummary`); :func:`summary_of` builds it from an
evaluation's typed step results, and :func:`judgekit.report.load.load_summary` reads it
back from disk.

``summary["pairwise"]`` keeps one key per arm pair (``"<arm_a> vs <arm_b>"``, dimension →
statistics) beside ``judge_reliability``; the pair keys are the model's typed extra fields,
reached through :meth:`PairwiseStats.pairs`.

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

from typing import TYPE_CHECKING, Any

from pydantic import ConfigDict, Field

from judgekit.audit.models import (
    AuditJury,
    AuditJuryMember,
    AuditStats,
    AuditStepSummary,
    SuspectRun,
    TaskAudit,
)
from judgekit.engine.accounting import JudgeRun
from judgekit.integrity.models import IntegrityStepSummary
from judgekit.pairwise.models import (
    Coefficient,
    DimensionReliability,
    JudgeReliability,
    JuryAgreement,
    JuryAgreementEntry,
    JuryMember,
    PairDimensionStats,
    PairwiseJury,
    PairwiseRanking,
    PairwiseRun,
    PairwiseStats,
    PairwiseStepSummary,
    RankingEntry,
    RatioBin,
    SizeBias,
    SizeControl,
    SizeLean,
)
from judgekit.scoring.models import ScoreSummary

if TYPE_CHECKING:
    from judgekit.evaluate import EvalResult


class EvalSummary(IntegrityStepSummary, AuditStepSummary, PairwiseStepSummary,
                  ScoreSummary):
    """Everything ``summary.json`` holds: the scoring summary and the judged parts."""

    # pydantic lists the fields of the last base first: the bases stand in the reverse of
    # the steps' order, so that the file lists scoring, then pairwise, then the audit.

    model_config = ConfigDict(title="EvalSummary")

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


def summary_of(result: EvalResult) -> EvalSummary:
    """The typed summary of an :class:`~judgekit.evaluate.EvalResult`: the scoring summary
    and each step's own summary, taken as they are (typed already), then the judge's record
    and the notes. A step's entries it did not make stay out of ``summary.json``."""
    score = result.summary
    parts: dict[str, Any] = {name: getattr(score, name) for name in type(score).model_fields}
    for step in result.steps():
        made = step.summary()
        parts.update({name: getattr(made, name) for name in made.model_fields_set})
    if result.judge is not None:
        parts["judge"] = result.judge
    if result.notes:
        parts["notes"] = list(result.notes)
    unknown = sorted(set(parts) - set(EvalSummary.model_fields))
    if unknown:  # a step whose Summary model is not among EvalSummary's bases
        raise TypeError(f"summary entries no EvalSummary field holds: {', '.join(unknown)}")
    return EvalSummary(**parts)


__all__ = [
    "AuditJury",
    "AuditJuryMember",
    "AuditStepSummary",
    "AuditStats",
    "Coefficient",
    "DimensionReliability",
    "EvalSummary",
    "JudgeReliability",
    "JuryAgreement",
    "JuryAgreementEntry",
    "JuryMember",
    "PairwiseJury",
    "PairDimensionStats",
    "PairwiseRanking",
    "PairwiseRun",
    "PairwiseStepSummary",
    "PairwiseStats",
    "RankingEntry",
    "RatioBin",
    "SizeBias",
    "SizeControl",
    "SizeLean",
    "SuspectRun",
    "TaskAudit",
    "summary_of",
]
