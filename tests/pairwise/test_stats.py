from __future__ import annotations

import pytest

from judgekit.pairwise.stats import PairStats, bradley_terry
from judgekit.stats import wilson_interval


def test_pair_stats_counts_draws_as_half_and_leaves_out_failed_items() -> None:
    s = PairStats()
    for winner, answers in [("a", ("A", "B")), ("a", ("A", "B")), ("a", ("A", "B")),
                            ("b", ("B", "A")), ("draw", ("A", "A"))]:
        s.add(winner, agree=winner != "draw", answers=answers, bias=answers == ("A", "A"))
    s.add("draw", agree=None)                 # identical diffs: no answers
    s.add("draw", agree=None, state="unscored")
    s.add("draw", agree=None, state="error")
    d = s.dimension_stats().model_dump(mode="json")
    assert (d["wins_a"], d["wins_b"], d["draws"], d["n"]) == (3, 1, 2, 6)
    assert (d["unscored"], d["error"], d["identical"]) == (1, 1, 1)
    assert d["win_rate_a"] == pytest.approx(4 / 6)
    assert d["win_rate_a_ci"] == pytest.approx(list(wilson_interval(4, 6)))
    assert d["position_consistency"] == pytest.approx(4 / 5)
    assert d["position_bias"] == 1
    # decisive answers: 10, of which slot A: A,A,A,A(second of B,A),A,A -> 6
    assert d["first_slot_preference"] == pytest.approx(6 / 10)


def test_pair_stats_without_valid_items_reports_none_rates() -> None:
    s = PairStats()
    s.add("draw", agree=None, state="unscored")
    d = s.dimension_stats().model_dump(mode="json")
    assert d["n"] == 0 and d["win_rate_a"] is None and d["position_consistency"] is None


def test_bradley_terry_two_arms_matches_the_win_ratio() -> None:
    p = bradley_terry({("x", "y"): (6.0, 2.0)}, prior=0.0)
    assert p["x"] / p["y"] == pytest.approx(3.0, rel=1e-6)
    assert sum(p.values()) == pytest.approx(1.0)


def test_bradley_terry_recovers_a_transitive_order() -> None:
    scores = {("a", "b"): (8.0, 2.0), ("b", "c"): (8.0, 2.0), ("a", "c"): (9.5, 0.5)}
    p = bradley_terry(scores)
    assert sorted(p, key=p.get, reverse=True) == ["a", "b", "c"]


def test_bradley_terry_satisfies_the_mm_fixed_point() -> None:
    scores = {("a", "b"): (5.0, 3.0), ("b", "c"): (4.0, 4.0), ("c", "a"): (2.5, 3.5)}
    p = bradley_terry(scores, prior=0.0)
    wins = {"a": 5 + 3.5, "b": 3 + 4, "c": 4 + 2.5}
    games = {("a", "b"): 8, ("b", "c"): 8, ("a", "c"): 6}
    for arm in p:  # at the maximum-likelihood point: wins_i = sum_j n_ij p_i / (p_i + p_j)
        expected = sum(n * p[arm] / (p[i] + p[j]) for (i, j), n in games.items() if arm in (i, j))
        assert expected == pytest.approx(wins[arm], rel=1e-6)


def test_bradley_terry_keeps_an_arm_that_never_won_positive() -> None:
    p = bradley_terry({("a", "b"): (4.0, 0.0)})
    assert 0 < p["b"] < p["a"]
