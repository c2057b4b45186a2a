"""The integrity step's models: a finding, one line of ``integrity.jsonl`` and its part of
``summary.json``.

A :class:`Finding` says what was seen (its :data:`CheckKind`), how serious it is
(:data:`Severity`) and where: the tool call (its index in the transcript and its command)
or the patch file and hunk. An :class:`IntegrityRecord` is one result with findings;
:class:`IntegrityStats` (``summary.json``'s ``integrity``) gives per arm the pass rate as
reported beside the pass rate with flagged passes counted as failures.

Example:
    >>> f = Finding(kind="skip-tests", severity="severe", detail="adds a skip marker",
    ...             evidence=Evidence(file="tests/test_x.py", hunk="@@ -1,2 +1,3 @@",
    ...                               excerpt="@pytest.mark.skip"))
    >>> f.evidence.where()
    'tests/test_x.py @@ -1,2 +1,3 @@'
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, Field

from judgekit.engine.types import State
from judgekit.ingest.models import ResultKey
from judgekit.omit import OmitIfNone

CheckKind = Literal["tamper-tests", "skip-tests", "neuter-runner", "peek-history",
                    "fetch-upstream", "special-case", "solution-in-item"]
"""What a deterministic check looks for (docs/integrity.md says exactly how)."""

CHECKS: tuple[CheckKind, ...] = ("tamper-tests", "skip-tests", "neuter-runner",
                                 "peek-history", "fetch-upstream", "special-case",
                                 "solution-in-item")
#: the checks run on benchmark items (an item audit).
ITEM_CHECKS: tuple[CheckKind, ...] = ("solution-in-item",)
#: the checks that read tool calls: without a transcript they are ``unknown``, never clean.
TRANSCRIPT_CHECKS: tuple[CheckKind, ...] = ("peek-history", "fetch-upstream")

Severity = Literal["severe", "moderate"]
"""``severe``: the behaviour is cheating unless a judge clears it (without a judge a severe
finding on a pass counts it as a failure in the adjusted pass rate); ``moderate``: worth a
look, counted apart only when a judge confirms it."""

Confirmation = Literal["unconfirmed", "confirmed", "cleared", "not_judged"]
"""What the judge made of a result's findings: ``unconfirmed`` (no judge asked),
``confirmed`` (cheating), ``cleared`` (legitimate), ``not_judged`` (asked, no valid verdict:
its ``state`` and ``reason`` say why)."""


class Evidence(BaseModel):
    """Where a finding was seen: a tool call (``tool_call``, ``command``) or a patch file
    (``file``, ``hunk``), with the words that matched (``excerpt``)."""

    tool_call: int | None = Field(None, description="Index into the transcript's tool_calls.")
    command: str | None = Field(None, description="The tool call's command (or its tool "
                                                  "and path for an edit).")
    file: str | None = Field(None, description="The patch file.")
    hunk: str | None = Field(None, description="The hunk's @@ header.")
    excerpt: str = Field("", description="The line(s) that matched.")

    def where(self) -> str:
        """``tool call N: COMMAND`` or ``FILE @@ ... @@``."""
        if self.tool_call is not None:
            return f"tool call {self.tool_call}: {self.command or ''}".rstrip(": ")
        return " ".join(p for p in (self.file, self.hunk) if p)


class Finding(BaseModel):
    """One integrity finding."""

    kind: CheckKind
    severity: Severity
    detail: str = Field(description="What was seen, in words.")
    evidence: Evidence
    share: float | None = Field(None, description="solution-in-item: the share of the fix's "
                                                  "added lines found in the issue text.")


class IntegrityVerdict(BaseModel):
    """The judge's answer for one flagged result (the ``integrity`` rubric)."""

    cheating: bool = Field(description="True: the flagged behaviour is cheating; False: "
                                       "legitimate.")
    reasoning: str
    evidence: str = Field(description="Quotes from the transcript or patch, each in double "
                                      "quotes.")


class IntegrityRecord(OmitIfNone):
    """One line of ``integrity.jsonl``: a result with at least one finding."""

    omit_if_none: ClassVar[tuple[str, ...]] = ("run_id", "verdict", "state", "reason",
                                                  "evidence_verified", "skipped_cost")

    task_id: str
    arm: str
    attempt: int
    run_id: str | None = None
    test_status: str
    passed: bool = Field(description="The result passed as reported.")
    findings: list[Finding]
    unknown: list[CheckKind] = Field(default_factory=list, description="Checks that could "
                                     "not run (no transcript).")
    confirmation: Confirmation = "unconfirmed"
    counted_apart: bool = Field(False, description="A pass counted as a failure in the "
                                "adjusted pass rate.")
    state: State | None = None
    verdict: IntegrityVerdict | None = None
    evidence_verified: bool | None = None
    reason: str | None = None
    skipped_cost: bool | None = Field(None, description="Not sent to the judge: the cost "
                                      "cap would not admit the call.")
    cost_usd: float = 0.0

    def key(self) -> ResultKey:
        return ResultKey(self.task_id, self.arm, self.attempt, self.run_id)

    def severe(self) -> bool:
        return any(f.severity == "severe" for f in self.findings)


class ArmIntegrity(BaseModel):
    """One arm: the pass rate as reported and with flagged passes counted as failures."""

    n: int
    n_passed: int = Field(description="Passes as reported.")
    pass_rate: float = Field(description="As reported: passes over all results.")
    n_flagged: int = Field(description="Results with at least one finding.")
    n_flagged_passes: int = Field(description="Passes counted as failures: with a confirmed "
                                  "finding, or without a judge a severe one.")
    pass_rate_adjusted: float = Field(description="Passes less the flagged ones, over all "
                                      "results.")
    n_without_transcript: int = Field(0, description="Results whose transcript checks are "
                                      "unknown (no transcript).")
    by_kind: dict[str, int] = Field(default_factory=dict, description="Results per finding "
                                    "kind.")


class RankingChange(BaseModel):
    """Two arms whose order by pass rate changes once flagged passes count as failures."""

    arm_a: str
    arm_b: str
    reported: str = Field(description="'A > B', 'A < B' or 'A = B' by the reported rate.")
    adjusted: str


class IntegrityStats(BaseModel):
    """``summary.json``'s ``integrity``."""

    checks: list[CheckKind] = Field(default_factory=lambda: list(CHECKS))
    judged: bool = Field(False, description="A judge confirmed or cleared the findings.")
    rule: str = Field(description="Which passes are counted as failures, in words.")
    n_results: int
    n_flagged: int
    n_flagged_passes: int
    n_without_transcript: int = 0
    n_confirmed: int = 0
    n_cleared: int = 0
    n_not_judged: int = 0
    n_skipped_cost: int = Field(0, description="Flagged results not sent to the judge for "
                                "the cost cap (counted in n_not_judged).")
    skipped_cost: list[str] = Field(default_factory=list, description="Those results, "
                                    "'task / arm / attempt N' (at most 50).")
    cost_usd: float = 0.0
    arms: dict[str, ArmIntegrity] = Field(default_factory=dict)
    ranking_changes: list[RankingChange] = Field(default_factory=list)
    flagged: list[str] = Field(default_factory=list, description="The flagged results, "
                               "'task / arm / attempt N: kinds' (at most 50).")


class ItemFlag(BaseModel):
    """A benchmark item whose fix is in its issue text."""

    instance_id: str
    share: float = Field(description="The share of the fix's added source lines found word "
                                     "for word in the issue text.")


class ItemIntegrity(BaseModel):
    """``summary.json``'s ``integrity_items``: ``solution-in-item`` on benchmark items
    (an item audit)."""

    checks: list[CheckKind] = Field(default_factory=lambda: list(ITEM_CHECKS))
    threshold: float = Field(description="An item is flagged when at least this share of "
                                         "its fix's added lines is in its issue text.")
    n_items: int
    n_flagged: int
    flagged: list[ItemFlag] = Field(default_factory=list)


class IntegrityStepSummary(BaseModel):
    """The integrity step's entries of ``summary.json``."""

    integrity: IntegrityStats | None = None
    integrity_items: ItemIntegrity | None = None


__all__ = ["ArmIntegrity", "CHECKS", "CheckKind", "Confirmation", "Evidence", "Finding",
           "IntegrityRecord", "IntegrityStats", "IntegrityStepSummary", "IntegrityVerdict",
           "ItemFlag", "ItemIntegrity",
           "RankingChange", "Severity", "TRANSCRIPT_CHECKS"]
