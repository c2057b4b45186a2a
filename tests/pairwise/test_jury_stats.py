"""The jury's arithmetic: verdicts by majority or unanimity, Krippendorff's alpha, size bias
and the size-controlled logistic model."""

from __future__ import annotations

import argparse
import math

import numpy as np
import pytest

from judgekit.cli._engine_flags import add_engine_arguments, configs_from_args
from judgekit.engine.config import split_judge
from judgekit.errors import ConfigError
from judgekit.pairwise.agreement import agreement, krippendorff_alpha
from judgekit.pairwise.jury import jury_verdict, juror_labels
from judgekit.pairwise.size import (
    SizedVerdict,
    fit_logistic,
    patch_size,
    size_bias,
    size_controlled,
    size_lean,
)


@pytest.mark.parametrize(("votes", "majority", "unanimous"), [
    (["a", "a", "b"], "a", "draw"),
    (["a", "b", "draw"], "draw", "draw"),
    (["b", "b", "b"], "b", "b"),
    (["a", "draw", "draw"], "draw", "draw"),
    (["a", "a", None], "a", "draw"),        # majority of the judges with a verdict
    (["a", "b"], "draw", "draw"),           # a tie
    (["a", None, None], "a", "draw"),
    ([None, None, None], None, None),
])
def test_jury_verdict(votes, majority, unanimous) -> None:
    assert jury_verdict(votes, "majority") == majority
    assert jury_verdict(votes, "unanimous") == unanimous


def test_juror_labels_tell_apart_one_model_on_two_servers() -> None:
    assert juror_labels([("openai:m", None), ("anthropic:x", None)]) == ["openai:m",
                                                                         "anthropic:x"]
    assert juror_labels([("openai:m", "http://h1/v1"), ("openai:m", "http://h2/v1")]) == [
        "openai:m@http://h1/v1", "openai:m@http://h2/v1"]
    with pytest.raises(ConfigError):
        juror_labels([("openai:m", None), ("openai:m", None)])


def _reference_alpha(units: list[list[str | None]]) -> float:
    """Krippendorff's nominal alpha by its textbook coincidence-matrix definition."""
    values = sorted({v for u in units for v in u if v is not None})
    o = {(c, k): 0.0 for c in values for k in values}
    for u in units:
        given = [v for v in u if v is not None]
        m = len(given)
        if m < 2:
            continue
        for i, c in enumerate(given):
            for j, k in enumerate(given):
                if i != j:
                    o[(c, k)] += 1 / (m - 1)
    n_c = {c: sum(o[(c, k)] for k in values) for c in values}
    n = sum(n_c.values())
    d_o = sum(o[(c, k)] for c in values for k in values if c != k)
    d_e = sum(n_c[c] * n_c[k] for c in values for k in values if c != k) / (n - 1)
    return 1 - d_o / d_e


def test_alpha_matches_the_textbook_definition_with_missing_values() -> None:
    rng = np.random.default_rng(3)
    for _ in range(20):
        units = [[rng.choice(["a", "b", "draw", None]) for _ in range(3)] for _ in range(15)]
        units = [[None if v is None else str(v) for v in u] for u in units]
        assert krippendorff_alpha(units) == pytest.approx(_reference_alpha(units))


def test_alpha_is_one_for_agreement_and_has_an_interval() -> None:
    units = [(f"p{i}", [v, v, v]) for i, v in enumerate("ab" * 10)]
    out = agreement(units).model_dump(mode="json")
    assert out["alpha"] == 1.0 and out["ci"] == [1.0, 1.0] and out["n_units"] == 20
    noisy = [(f"p{i}", [v, v, "draw" if i % 3 else v]) for i, v in enumerate("ab" * 10)]
    out = agreement(noisy).model_dump(mode="json")
    assert out["ci"][0] <= out["alpha"] <= out["ci"][1] < 1


def test_patch_size_counts_added_and_removed_lines_not_headers() -> None:
    diff = ("diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n-a\n+b\n c\n"
            "diff --git a/y.py b/y.py\nnew file mode 100644\n--- /dev/null\n+++ b/y.py\n"
            "@@ -0,0 +1,2 @@\n+1\n+2\n")
    assert patch_size(diff) == 4
    assert patch_size("") == 0 and patch_size(None) == 0


def test_size_lean_and_flag() -> None:
    follows = [SizedVerdict("a", 10, 2)] * 6 + [SizedVerdict("b", 2, 10)] * 6
    assert size_lean(follows).share_larger == 1.0
    flagged = size_bias({"minimality": follows}).model_dump()
    assert flagged["flagged"] and flagged["flagged_dimensions"] == ["minimality"]
    few = size_bias({"minimality": follows[:5]}).model_dump()  # too few verdicts to flag
    assert not few["flagged"] and few["share_larger"] == 1.0
    blind = [SizedVerdict("a", 10, 2), SizedVerdict("b", 10, 2)] * 10
    assert size_bias({"minimality": blind}).share_larger == 0.5
    assert not size_bias({"minimality": blind}).flagged
    ignored = [SizedVerdict("a", 3, 3), SizedVerdict("draw", 10, 2)] * 10
    assert size_lean(ignored).n == 0  # equal sizes and draws do not count


def test_logistic_fit_recovers_known_coefficients() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=4000)
    design = np.column_stack([np.ones_like(x), x])
    p = 1 / (1 + np.exp(-(0.7 + 1.5 * x)))
    y = (rng.random(4000) < p).astype(float)
    beta, se = fit_logistic(design, y, ridge=0.0)
    assert beta == pytest.approx([0.7, 1.5], abs=0.15)
    assert all(0 < s < 0.1 for s in se)


def test_size_controlled_separates_arm_from_size() -> None:
    # arm a wins whenever it is larger and loses whenever it is smaller: all size, no arm
    verdicts = ([SizedVerdict("a", 10, 2)] * 8 + [SizedVerdict("b", 2, 10)] * 8
                + [SizedVerdict("a", 10, 2)] * 8)
    fitted = size_controlled(verdicts)
    assert fitted is not None
    out = fitted.model_dump(mode="json")
    assert out["win_rate_a"] > 0.6  # a wins 2 of 3 ...
    assert out["size_effect"]["ci"][0] > 0  # ... because it is larger
    assert abs(out["arm_effect_size_controlled"]["estimate"]) < abs(
        out["arm_effect"]["estimate"])
    assert [b["bin"] for b in out["by_ratio"]] == ["a at most half b's size",
                                                  "a at least twice b's size"]
    fitted = size_controlled([SizedVerdict("a", 4, 4)] * 3)
    assert fitted is not None
    same = fitted.model_dump(mode="json")
    assert same["size_effect"] is None  # no variation in size
    assert math.isclose(same["win_rate_a"], 1 / (1 + math.exp(-same["arm_effect"]["estimate"])),
                        abs_tol=1e-3)


def test_judge_flag_parses_a_url_per_judge() -> None:
    assert split_judge("openai:m@http://127.0.0.1:8080/v1") == ("openai:m",
                                                                "http://127.0.0.1:8080/v1")
    assert split_judge("vertex:claude@20250514") == ("vertex:claude@20250514", None)
    parser = argparse.ArgumentParser()
    add_engine_arguments(parser, jury=True)
    args = parser.parse_args(["--judge", "openai:m1@http://127.0.0.1:1/v1",
                              "--judge", "anthropic:claude-haiku-4-5", "--base-url",
                              "http://127.0.0.1:2", "--concurrency", "2"])
    one, two = configs_from_args(args) or []
    assert (one.model, one.base_url, one.cache_scope) == (
        "openai:m1", "http://127.0.0.1:1/v1", "http://127.0.0.1:1/v1")
    assert (two.base_url, two.cache_scope, two.concurrency) == ("http://127.0.0.1:2", None, 2)
    twice = parser.parse_args(["--judge", "openai:m1", "--judge", "openai:m1"])
    with pytest.raises(ConfigError):
        configs_from_args(twice)
    with pytest.raises(ConfigError):
        configs_from_args(parser.parse_args(["--judge", "openai:m1@http://", "--judge", "x"]))
