"""Flip-and-draw: combine the two orders of a pair into one result per dimension.

Order 1 shows arm ``a`` as Solution A and arm ``b`` as Solution B; order 2 swaps them.
Each order's answer is mapped back to arms. Per dimension, the arm that wins in *both*
orders wins; anything else (a split, a tie in either order) is a draw. When the same
*slot* won in both orders the judge showed position bias on that dimension.

Example:
    >>> combine("A", "B")      # a shown first won, then a shown second won
    DimensionOutcome(winner='a', order1='A', order2='B', position_bias=False, state='valid')
    >>> combine("A", "A").winner, combine("A", "A").position_bias
    ('draw', True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from judgekit.engine.types import State as OrderState

Side = Literal["a", "b", "tie"]
Slot = Literal["A", "B", "tie"]
Winner = Literal["a", "b", "draw"]


def to_side(answer: str, order: int) -> Side:
    """Map a slot answer of ``order`` (1 or 2) back to the arm side ``a``/``b``/``tie``."""
    if answer == "tie":
        return "tie"
    if answer not in ("A", "B") or order not in (1, 2):
        raise ValueError(f"bad answer {answer!r} for order {order}")
    first = "a" if order == 1 else "b"
    second = "b" if order == 1 else "a"
    return first if answer == "A" else second  # type: ignore[return-value]


@dataclass(frozen=True)
class DimensionOutcome:
    """One dimension of one compared pair.

    ``winner`` is ``"draw"`` (not counted anywhere) when ``state`` is not ``valid``;
    ``order1``/``order2`` are the judge's raw slot answers, ``None`` when that order failed
    or was never asked (identical diffs).
    """

    winner: Winner
    order1: Slot | None
    order2: Slot | None
    position_bias: bool
    state: OrderState

    @property
    def orders_agree(self) -> bool | None:
        """True when both orders name the same arm (or both tie); None without two answers."""
        if self.state != "valid" or self.order1 is None or self.order2 is None:
            return None
        return to_side(self.order1, 1) == to_side(self.order2, 2)


def combine(order1: Slot | None, order2: Slot | None,
            state1: OrderState = "valid", state2: OrderState = "valid") -> DimensionOutcome:
    """Combine one dimension's answers of the two orders (flip-and-draw)."""
    if state1 != "valid" or state2 != "valid":
        state: OrderState = "error" if "error" in (state1, state2) else "unscored"
        return DimensionOutcome("draw", order1 if state1 == "valid" else None,
                                order2 if state2 == "valid" else None, False, state)
    if order1 is None or order2 is None:
        raise ValueError("a valid order needs an answer")
    s1, s2 = to_side(order1, 1), to_side(order2, 2)
    winner: Winner = s1 if s1 == s2 and s1 != "tie" else "draw"
    bias = order1 == order2 and order1 in ("A", "B")
    return DimensionOutcome(winner, order1, order2, bias, "valid")


def identical_outcome() -> DimensionOutcome:
    """The outcome of two identical diffs: a draw decided without asking the judge."""
    return DimensionOutcome("draw", None, None, False, "valid")
