from __future__ import annotations

import pytest

from judgekit.errors import ConfigError
from judgekit.pairwise.pairs import GOLD, collect, parse_pair, plan_pairs, same_change
from judgekit.scoring import score
from tests.pairwise.helpers import diff, result


def _plan(runs, **kw):
    summary = score(runs)
    tasks, notes = collect(runs, summary.results)
    return plan_pairs(tasks, **kw), notes


def test_identical_up_to_whitespace_and_file_order() -> None:
    one = diff("x", path="a.py") + diff("y", path="b.py")
    other = diff("y", path="b.py") + diff("x", path="a.py").replace("# x", "#   x  ")
    assert same_change(one, other)
    assert not same_change(diff("x"), diff("z"))


def test_default_pairs_every_two_arms_of_a_task_sorted() -> None:
    runs = [result("t1", arm, diff(arm)) for arm in ("c", "a", "b")]
    pairs, _ = _plan(runs)
    assert [(p.a.arm, p.b.arm) for p in pairs] == [("a", "b"), ("a", "c"), ("b", "c")]


def test_gold_is_a_pseudo_arm_only_when_named() -> None:
    runs = [result("t1", "a", diff("a")), result("t1", "b", diff("b"))]
    default, _ = _plan(runs)
    assert all(GOLD not in (p.a.arm, p.b.arm) for p in default)
    pairs, _ = _plan(runs, pairs=[("b", GOLD)])
    assert [(p.a.arm, p.b.arm) for p in pairs] == [("b", GOLD)]
    assert "if b == 0" in pairs[0].b.diff


def test_named_pairs_keep_their_orientation_and_skip_tasks_missing_an_arm() -> None:
    runs = [result("t1", "a", diff("a")), result("t1", "b", diff("b")),
            result("t2", "a", diff("a2"))]
    pairs, _ = _plan(runs, pairs=[("b", "a")])
    assert [(p.task.id, p.a.arm, p.b.arm) for p in pairs] == [("t1", "b", "a")]


def test_select_best_prefers_passing_then_higher_f1() -> None:
    runs = [
        result("t1", "a", diff("a0"), attempt=0, passed=False),
        result("t1", "a", diff("a1", path="other.py"), attempt=1),  # passes, F1 0
        result("t1", "a", diff("a2"), attempt=2),                   # passes, F1 1
        result("t1", "b", diff("b0"), attempt=0),
    ]
    pairs, _ = _plan(runs, select="best")
    assert [(p.a.attempt, p.b.attempt) for p in pairs] == [(2, 0)]


def test_select_all_pairs_every_attempt() -> None:
    runs = [result("t1", "a", diff(f"a{i}"), attempt=i) for i in range(3)]
    runs += [result("t1", "b", diff(f"b{i}"), attempt=i) for i in range(2)]
    pairs, _ = _plan(runs, select="all")
    assert sorted((p.a.attempt, p.b.attempt) for p in pairs) == [
        (i, j) for i in range(3) for j in range(2)]


def test_results_without_a_diff_are_left_out_and_named() -> None:
    runs = [result("t1", "a", None), result("t1", "b", diff("b"))]
    pairs, notes = _plan(runs)
    assert pairs == []
    assert len(notes) == 1 and "t1 / a / attempt 0" in notes[0]


def test_infra_paths_are_stripped_from_candidate_diffs() -> None:
    runs = [result("t1", "a", diff("a", infra=True)), result("t1", "b", diff("b"))]
    pairs, _ = _plan(runs)
    assert ".bobbin/" not in pairs[0].a.diff and "# a" in pairs[0].a.diff


@pytest.mark.parametrize("bad", ["a", "a:", ":b", "a:a"])
def test_bad_pair_spec_is_a_config_error(bad: str) -> None:
    with pytest.raises(ConfigError):
        parse_pair(bad)


def test_bad_select_is_a_config_error() -> None:
    with pytest.raises(ConfigError):
        plan_pairs([], select="worst")  # type: ignore[arg-type]


def _normalise_line_by_line(diff: str) -> str:
    """The definition ``normalise_diff`` follows, written plainly line by line (an oracle)."""
    blocks: list[list[str]] = []
    for line in diff.splitlines():
        if line.startswith("diff --git ") or not blocks:
            blocks.append([])
        blocks[-1].append(line)
    out = []
    for block in blocks:
        kept = []
        for line in block:
            if line.startswith(("index ", "similarity index ", "dissimilarity index ")):
                continue
            squashed = " ".join(("@@" if line.startswith("@@") else line).split())
            if squashed:
                kept.append(squashed)
        if kept:
            out.append("\n".join(kept))
    return "\n\n".join(sorted(out))


def test_normalised_diffs_match_the_line_by_line_definition() -> None:
    import random

    from judgekit.pairwise.pairs import normalise_diff

    pieces = ["diff --git a/x.py b/x.py", "index 1a2b..3c4d 100644", "similarity index 90%",
              "--- a/x.py", "+++ b/x.py", "@@ -1,3 +1,4 @@ def f():", "+    return  1",
              "-\treturn 2", " context", "", "   ", "diff --git a/y.py b/y.py", "+a\u00a0 b",
              "+tail\x1f", "index", "@@"]
    breaks = ["\n", "\r\n", "\r", "\x0b", "\x0c", "\x1c", "\x85", "\u2028"]
    rng = random.Random(3)
    for _ in range(3000):
        lines = [rng.choice(pieces) for _ in range(rng.randint(0, 12))]
        text = "".join(line + rng.choice(breaks if rng.random() < 0.2 else ["\n"])
                       for line in lines)
        assert normalise_diff(text) == _normalise_line_by_line(text), repr(text)
