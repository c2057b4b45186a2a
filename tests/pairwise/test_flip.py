from __future__ import annotations

import pytest

from judgekit.pairwise.flip import combine, identical_outcome, to_side

# (order1 answer, order2 answer) -> (winner side, position bias). Order 1 shows a as A;
# order 2 shows b as A.
TRUTH_TABLE = {
    ("A", "A"): ("draw", True),
    ("A", "B"): ("a", False),
    ("A", "tie"): ("draw", False),
    ("B", "A"): ("b", False),
    ("B", "B"): ("draw", True),
    ("B", "tie"): ("draw", False),
    ("tie", "A"): ("draw", False),
    ("tie", "B"): ("draw", False),
    ("tie", "tie"): ("draw", False),
}


@pytest.mark.parametrize(("o1", "o2"), sorted(TRUTH_TABLE))
def test_flip_and_draw_truth_table(o1: str, o2: str) -> None:
    out = combine(o1, o2)
    assert (out.winner, out.position_bias) == TRUTH_TABLE[(o1, o2)]
    assert (out.order1, out.order2, out.state) == (o1, o2, "valid")


def test_truth_table_covers_all_nine_combinations() -> None:
    assert len(TRUTH_TABLE) == 9


def test_orders_agree_only_when_both_orders_name_the_same_arm_or_both_tie() -> None:
    assert combine("A", "B").orders_agree is True
    assert combine("tie", "tie").orders_agree is True
    assert combine("A", "A").orders_agree is False
    assert combine("A", "tie").orders_agree is False


def test_order_two_maps_slots_back_to_swapped_arms() -> None:
    assert [to_side(s, 1) for s in ("A", "B", "tie")] == ["a", "b", "tie"]
    assert [to_side(s, 2) for s in ("A", "B", "tie")] == ["b", "a", "tie"]


@pytest.mark.parametrize(("s1", "s2", "state"), [
    ("unscored", "valid", "unscored"), ("valid", "error", "error"),
    ("unscored", "error", "error"), ("unscored", "unscored", "unscored")])
def test_a_failed_order_gives_its_state_and_no_answer(s1: str, s2: str, state: str) -> None:
    a1 = "A" if s1 == "valid" else None
    a2 = "B" if s2 == "valid" else None
    out = combine(a1, a2, s1, s2)  # type: ignore[arg-type]
    assert out.state == state
    assert out.winner == "draw" and out.position_bias is False
    assert (out.order1 is None) == (s1 != "valid") and (out.order2 is None) == (s2 != "valid")


def test_identical_outcome_is_a_valid_draw_without_answers() -> None:
    out = identical_outcome()
    assert (out.winner, out.order1, out.order2, out.state) == ("draw", None, None, "valid")
