"""What the audit step adds to ``summary.json``: typed counts, built directly.

:class:`AuditStepSummary` is the step's summary (its part of ``summary.json``): the
top-level entry ``audit``, an :class:`AuditStats` (the audit's counts, with one
:class:`TaskAudit` per task). :class:`judgekit.summary.EvalSummary` is composed from it.
"Summary" names only ``summary.json`` and each step's part of it; the entries inside are
stats, runs, juries.

Example:
    >>> AuditStats(n_failed=2, tasks=[TaskAudit(task_id="t")]).tasks[0].n_audited
    0
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from judgekit.corrected import EffectiveJudges
from judgekit.engine.urls import RedactedURL
from judgekit.omit import OmitIfNone


class _Open(BaseModel):
    """Known fields are typed; keys another version wrote pass through."""

    model_config = ConfigDict(extra="allow")


class SuspectRun(_Open):
    """One result that blamed a suspected task's defect."""

    run_id: str | None = None
    arm: str
    attempt: int = 0


class TaskAudit(_Open):
    """What the audits of one task's failed results say together."""

    task_id: str
    n_audited: int = 0
    n_valid: int = 0
    n_ife: int = 0
    n_passed: int = 0
    n_contradicted: int = Field(0, description="Verdicts of score 1 contradicted by a "
                                               "result that passed with verified tests.")
    by_type: dict[str, int] = Field(default_factory=dict)
    task_score: int | None = None
    suspected: bool = False
    suspected_type: str | None = None
    runs: list[SuspectRun] = Field(default_factory=list)


class AuditJuryMember(_Open):
    """One judge of an audit jury: what its own verdicts say, and what they cost."""

    model: str
    base_url: RedactedURL | None = None
    n_valid: int = 0
    n_ife: int = 0
    n_error: int = 0
    n_unscored: int = 0
    by_type: dict[str, int] = Field(default_factory=dict)
    suspected_tasks: list[str] = Field(default_factory=list)
    tries_total: int = 0
    cost_usd: float | None = None
    n_skipped_cost: int | None = None


class AuditJury(_Open):
    """``audit.jury``: several judges audited each failed result; the majority classifies."""

    rule: str = Field("majority", description="The jury's score of a result: the majority "
                                              "of the judges' valid scores (a tie is 0).")
    judges: list[str] = Field(default_factory=list)
    members: dict[str, AuditJuryMember] = Field(default_factory=dict)
    effective_judges: EffectiveJudges | None = Field(
        None, description="How many independent judges the jury amounts to, from the "
                          "correlation of their scores.")
    n_disagreements: int = 0
    disagreements: list[str] = Field(
        default_factory=list, description="Results whose judges gave different scores: "
                                          "task / arm / attempt: each judge's score (type).")


class AuditStats(_Open, OmitIfNone):
    """``summary["audit"]``: counts of the audit of failed results, per task and category.
    With an audit jury the counts, tasks and suspected tasks are the jury's."""

    omit_if_none: ClassVar[tuple[str, ...]] = ("jury", "rubric_categories")

    audited: Literal["results", "items"] = Field(
        "results", description="What was audited: results that did not pass, or benchmark "
                               "items with no run (an item audit: one record per item, "
                               "its counts of items).")
    rubric: str | None = None
    rubric_version: int | str | None = None
    rubric_categories: list[str] | None = Field(
        None, description="The rubric's category names, in its order (what a reviewer may "
                          "pick from, also when the rubric file is not at hand).")
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
    n_contradicted: int = Field(0, description="Verdicts of score 1 on a task that another "
                                               "result passed with verified tests.")
    contradicted: list[str] = Field(
        default_factory=list, description="Those verdicts, apart from the suspected tasks: "
                                          "task / arm / attempt (category): the passes "
                                          "that contradict it.")
    tasks: list[TaskAudit] = Field(default_factory=list)
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
    jury: AuditJury | None = Field(None, description="With several judges: each judge's "
                                   "counts, and the results they disagree on.")


class AuditStepSummary(BaseModel):
    """The entry the audit step adds to ``summary.json``; unset when it did not run."""

    audit: AuditStats | None = None


__all__ = ["AuditJury", "AuditJuryMember", "AuditStepSummary", "AuditStats", "SuspectRun",
           "TaskAudit"]
