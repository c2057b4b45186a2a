"""The records of pairwise judging: one line of ``pairwise.jsonl`` per compared pair.

:class:`PairRecord` is the pairwise step's Record; ``judgekit schema pairwise-record``
publishes its JSON Schema.

Example:
    >>> d = DimensionRecord(winner="draw", order1="A", order2="B", position_bias=True,
    ...                     state="valid")
    >>> d.position_bias
    True
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, Field

from judgekit.engine.accounting import SkipReason
from judgekit.engine.types import State
from judgekit.omit import OmitIfNone


class DimensionRecord(BaseModel):
    """One dimension of one compared pair after flip-and-draw."""

    winner: str = Field(description="arm_a's or arm_b's name, or 'draw'. When state is not "
                                     "'valid' this is 'draw' and counts nowhere.")
    order1: Literal["A", "B", "tie"] | None = Field(
        description="The judge's answer with arm_a shown first (null: not asked or failed).")
    order2: Literal["A", "B", "tie"] | None = Field(
        description="The judge's answer with arm_b shown first (null: not asked or failed).")
    position_bias: bool = Field(description="The same slot won in both orders.")
    state: State
    reasoning1: str | None = None
    reasoning2: str | None = None


class OrderRecord(BaseModel):
    """What became of one of the two calls of a pair."""

    order: int
    shown_first: str
    state: State
    reason: str | None = None
    tries: int = 0
    cached: bool = False
    cost_usd: float = 0.0
    model: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    skipped_cost: bool = Field(False, description="Not asked: the cost cap would not admit "
                                                  "the call.")
    skipped: SkipReason | None = Field(None, description="Not asked for another reason: "
                                                         "too_long_for_context.")
    fitted: bool = Field(False, description="The diffs were cut by whole hunks to fit the "
                                            "judge model's context window.")


class PairRecord(OmitIfNone):
    """One line of ``pairwise.jsonl``: two solutions of one task, compared both ways."""

    omit_if_none: ClassVar[tuple[str, ...]] = ("judges",)

    task_id: str
    arm_a: str
    arm_b: str
    attempt_a: int
    attempt_b: int
    run_id_a: str | None = None
    run_id_b: str | None = None
    identical: bool = Field(False, description="Same change up to whitespace and file order: "
                                               "a draw decided without a call.")
    reference_shown: bool = False
    context_shown: bool = False
    dimensions: dict[str, DimensionRecord]
    orders: list[OrderRecord] = Field(default_factory=list)
    judges: dict[str, JurorRecord] | None = Field(
        None, description="With several judges (a jury): each judge's own flip-and-draw "
                          "result, by judge; ``dimensions`` then holds the jury's verdicts "
                          "(no orders of their own). Absent with one judge.")

    def label(self) -> str:
        """``task / arm_a vs arm_b``: the pair as messages and ``summary.json`` name it."""
        return f"{self.task_id} / {self.arm_a} vs {self.arm_b}"



class JurorRecord(BaseModel):
    """One judge's flip-and-draw result on one pair, beside the jury's verdict."""

    dimensions: dict[str, DimensionRecord]
    orders: list[OrderRecord] = Field(default_factory=list)


__all__ = ["DimensionRecord", "JurorRecord", "OrderRecord", "PairRecord"]
