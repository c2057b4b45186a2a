"""Audit settings.

Whoever calls the audit (a program, or the command line) fills them; this module neither
parses nor prints.

Example:
    >>> AuditOptions(rubric="swe-bench", samples=3).samples
    3
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_RUBRIC = "commit-revert"
DEFAULT_MAX_INPUT_TOKENS = 60_000
MIN_MAX_INPUT_TOKENS = 2_000


class AuditOptions(BaseModel):
    """How failed results are audited.

    Attributes:
        rubric: a rubric name (from the rubrics directory) or a rubric file path.
        samples: judgements asked per result; the majority score is kept with its agreement.
        max_input_tokens: budget of one request (rubric included); long materials are condensed.
        min_runs: independent results that must blame the same defect for a suspected task.
        fix_passes: tasks whose fix is recorded as passing its tests, with how.
    """

    model_config = ConfigDict(extra="forbid")

    rubric: str = DEFAULT_RUBRIC
    samples: int = Field(1, ge=1)
    max_input_tokens: int = Field(DEFAULT_MAX_INPUT_TOKENS, ge=MIN_MAX_INPUT_TOKENS)
    min_runs: int = Field(2, ge=1)
    #: task id -> how its fix is recorded as passing its tests (``suite verify``): like
    #: another result's verified pass, it contradicts a verdict that success is impossible.
    fix_passes: dict[str, str] = Field(default_factory=dict)


__all__ = ["DEFAULT_MAX_INPUT_TOKENS", "DEFAULT_RUBRIC", "AuditOptions"]
