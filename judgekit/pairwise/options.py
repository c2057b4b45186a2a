"""Options of pairwise judging.

Whoever calls pairwise judging (a program, or the command line) fills them; this module
neither parses nor prints.

Example:
    >>> opts = PairwiseOptions(pairs=[("a", "gold")], stability_sample=20)
    >>> opts.stability_repeats
    3
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from judgekit.pairwise.pairs import Select


class PairwiseOptions(BaseModel):
    """How pairs are chosen, what the judge is shown, and how its stability is measured.

    Attributes:
        pairs: ``(X, Y)`` arm pairs to compare (``gold`` = the ground-truth fix);
            ``None`` compares every two arms of each task.
        select: ``best`` (one attempt per arm: passing first, then highest F1) or ``all``.
        reference: show the ground-truth diff to the judge as a reference.
        repo_root: a checkout of the task repositories, for code around the changed lines;
            ``None`` shows no code context.
        max_context_chars: bound on the code context per prompt.
        max_diff_chars: bound on each diff shown; longer diffs keep their start and end.
        stability_sample: (pair, order) requests chosen at random to be asked again.
        stability_repeats: extra times each of them is asked (exactly sample × repeats calls).
        seed: seed of that random choice and of the bootstrap intervals.
        reliability_threshold: position consistency below which the judge is flagged.
        jury_rule: with several judges, how their verdicts make the jury's: ``majority``
            (more than half of the judges with a verdict) or ``unanimous``.
    """

    model_config = ConfigDict(extra="forbid")

    pairs: list[tuple[str, str]] | None = None
    select: Select = "best"
    reference: bool = False
    repo_root: Path | None = None
    max_context_chars: int = 12000
    max_diff_chars: int = 40_000
    stability_sample: int = Field(0, ge=0)
    stability_repeats: int = Field(3, ge=1)
    seed: int = 0
    reliability_threshold: float = Field(0.6, ge=0, le=1)
    jury_rule: Literal["majority", "unanimous"] = "majority"

