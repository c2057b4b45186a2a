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

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pydantic import ConfigDict, Field, TypeAdapter

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
from judgekit.jsontext import batched, dumps, dumps_chunks, spliced
from judgekit.scoring.models import ScoredResult, ScoreSummary

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

    def json_chunks(self) -> Iterator[str]:
        """``dumps(self.as_json())`` (what the JSON option prints) piece by piece: the results
        are written a batch at a time, never all at once."""
        left_out = self._not_given()
        data = self.model_dump(mode="json", exclude=left_out | {"results"})
        if "results" in left_out:
            yield dumps(data)
            return
        yield from dumps_chunks({"results": [], **data}, "results",
                                (r.json_dict() for r in self.results), batch=_BATCH)

    def text_chunks(self) -> Iterator[str]:
        """:meth:`to_json_text` piece by piece, the results a batch at a time."""
        left_out = self._not_given()
        if "results" in left_out or not self.results:
            yield self.to_json_text()
            return
        head = self.model_copy(update={"results": []}).model_dump_json(indent=2,
                                                                        exclude=left_out)
        rows = _ROWS.dump_json
        yield from spliced(head, "results", (rows(chunk, indent=2).decode("utf-8")
                                             for chunk in batched(self.results, _BATCH)))
        yield "\n"


_ROWS: TypeAdapter[list[ScoredResult]] = TypeAdapter(list[ScoredResult])
_BATCH = 1000


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
