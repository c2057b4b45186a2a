"""The records of the audit: one line of ``audit.jsonl`` per audited result (or item).

:class:`AuditRecord` is the audit step's Record; ``judgekit schema audit-record`` publishes
its JSON Schema. Its ``state`` is the engine's :data:`~judgekit.engine.types.State` and its
``verdict`` the judge's answer as the typed :class:`~judgekit.audit.verdict.Verdict` (every
rubric asks for the same seven fields; its ``deficiency_type`` normalised to the rubric's
category name). With a jury, :class:`JurorAudit` keeps each judge's own audit beside the
jury's.

Example:
    >>> v = Verdict(score=1, deficiency_exists=True, deficiency_caused_failure=True,
    ...             deficiency_type="Flaky Tests", existence_reasoning="Flaky.",
    ...             causation_reasoning="It failed.", evidence='"timeout"')
    >>> rec = AuditRecord(task_id="t", arm="x", attempt=0, test_status="failed",
    ...                   state="valid", verdict=v, deficiency_type="Flaky Tests")
    >>> rec.score, str(rec.key())
    (1, 't / x / attempt 0')
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, Field

from judgekit.audit.verdict import Verdict
from judgekit.engine.accounting import SkipReason
from judgekit.engine.types import State
from judgekit.ingest.models import ResultKey
from judgekit.omit import OmitIfNone


#: the pseudo-arm of a benchmark item's record (the item audit), and its test status:
#: an item is audited with no run of it.
ITEM_ARM = "item"
NOT_RUN = "not run"


class JurorAudit(BaseModel):
    """One judge's audit of one failed result, beside the jury's verdict."""

    state: State
    score: int | None = None
    deficiency_type: str | None = None
    verdict: Verdict | None = None
    evidence_verified: bool = False
    tries: int = 0
    cost_usd: float = 0.0
    cached: bool = False
    reason: str | None = None


class AuditRecord(OmitIfNone):
    """One line of ``audit.jsonl``: the audit of one failed result."""

    omit_if_none: ClassVar[tuple[str, ...]] = ("judges", "contradicted_by")

    task_id: str
    arm: str
    attempt: int
    run_id: str | None = None
    test_status: str
    state: State = Field(description="valid, unscored or error.")
    verdict: Verdict | None = Field(None, description="The seven verdict fields when valid.")
    deficiency_type: str | None = Field(
        None, description="The verdict's category, normalised to the rubric's name, or 'none'.")
    evidence_verified: bool = False
    quotes_not_found: list[str] = Field(default_factory=list)
    tries: int = Field(0, description="Model answers asked for, over all samples.")
    reason: str | None = None
    samples: int = 1
    agreement: float | None = Field(None, description="Share of valid samples agreeing with the majority score.")
    sample_scores: list[int | None] = Field(default_factory=list)
    materials_cut: bool = False
    materials: list[str] = Field(
        default_factory=list,
        description="Names of the result's materials shown to the judge and searched for "
                    "evidence (evaluation log, gold patch, ...).")
    cached: bool = False
    cost_usd: float = 0.0
    skipped_cost: bool = Field(False, description="Not asked: the cost cap admitted none "
                                                  "of its calls.")
    skipped: SkipReason | None = Field(None, description="Not asked for another reason: "
                                                         "too_long_for_context.")
    materials_cut_to_fit: bool = Field(False, description="Materials condensed further to "
                                                          "fit the judge model's window.")

    contradicted: bool = Field(
        False, description="A verdict of score 1 (the task made success impossible) on a "
                           "task that another result passed with verified tests; a "
                           "flaky-tests verdict is never contradicted by a pass.")
    contradicted_by: list[str] | None = Field(
        None, description="The evidence against a contradicted verdict: the results of the "
                          "task that passed their tests.")
    judges: dict[str, JurorAudit] | None = Field(
        None, description="With several judges (an audit jury): each judge's own audit of "
                          "the result, by judge; the fields above are then the jury's "
                          "(majority score). Absent with one judge.")

    def key(self) -> ResultKey:
        """The audited result's identity."""
        return ResultKey.of(self)

    @property
    def is_item(self) -> bool:
        """The record of a benchmark item audited with no run (an item audit)."""
        return self.arm == ITEM_ARM and self.test_status == NOT_RUN

    def subject(self) -> str:
        """What the record is of, in words: ``task / arm / attempt N``, or an item's id."""
        return self.task_id if self.is_item else str(self.key())

    @property
    def score(self) -> int | None:
        return self.verdict.score if self.state == "valid" and self.verdict else None
