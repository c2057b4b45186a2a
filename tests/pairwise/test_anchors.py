"""Verdicts held against the tests and the fix: a scripted judge that always prefers the
failing side (or the side outside the fix) is flagged, one that prefers the passing side
is not, and the anchored pair counts are exact."""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from judgekit.pairwise.anchors import ANCHOR_MIN_N, anchor_check
from judgekit.testing import FakeAPIServer
from tests.clirun import judgekit
from tests.pairwise.helpers import pairwise_only, prefers, result, write_runs

N_ANCHORED = 7  # one verified pass and one verified fail, one inside the fix, one outside
N_BOTH = 3      # both sides pass: anchored on neither


def _diff(marker: str, path: str) -> str:
    return (f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
            f"@@ -1,2 +1,3 @@\n def div(a, b):\n+    # {marker}\n     return a / b\n")


def _runs(tmp_path: Path) -> Path:
    """In the anchored tasks the passing side changes the fix's file and the failing side
    another source file; the markers say which is which."""
    runs = []
    for t in range(N_ANCHORED):
        good, bad = ("base", "ctx") if t % 2 else ("ctx", "base")
        runs.append(result(f"t{t}", good, _diff(f"PASSES {t}", "src/calc.py"), passed=True))
        runs.append(result(f"t{t}", bad, _diff(f"FAILS {t}", "src/other.py"), passed=False))
    for t in range(N_BOTH):
        runs.append(result(f"both{t}", "base", _diff(f"FAILS b{t}", "src/calc.py")))
        runs.append(result(f"both{t}", "ctx", _diff(f"PASSES b{t}", "src/calc.py")))
    return write_runs(tmp_path / "runs.json", runs)


def _judge(tmp_path: Path, runs: Path, judges: list[str]) -> dict[str, Any]:
    env = {"OPENAI_API_KEY": "test-key-123", "JUDGEKIT_CACHE": str(tmp_path / "cache.sqlite")}
    flags = [x for j in judges for x in ("--judge", j)]
    out = tmp_path / "out"
    proc = judgekit("judge", runs, "--no-similarity", "--no-audit", *flags, "--out", out,
                    "--force", env=env)
    assert proc.returncode == 0, proc.stderr
    return {"summary": json.loads((out / "summary.json").read_text()),
            "md": (out / "report.md").read_text(), "stdout": proc.stdout + proc.stderr}


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp_path = tmp_path_factory.mktemp("anchors")
    runs = _runs(tmp_path)
    with ExitStack() as stack:
        wrong = stack.enter_context(FakeAPIServer(pairwise_only(prefers("FAILS"))))
        right = stack.enter_context(FakeAPIServer(pairwise_only(prefers("PASSES"))))
        judges = {"wrong": f"openai:wrong-judge@{wrong.openai_base_url}",
                  "right": f"openai:right-judge@{right.openai_base_url}"}
        out = {k: _judge(tmp_path / k, runs, [j]) for k, j in judges.items()
               if not (tmp_path / k).mkdir()}
        (tmp_path / "jury").mkdir()
        out["jury"] = _judge(tmp_path / "jury", runs, list(judges.values()))
    return out


def test_a_judge_favouring_the_failing_side_is_flagged_with_exact_counts(judged) -> None:
    rel = judged["wrong"]["summary"]["pairwise"]["judge_reliability"]
    tests, fix = rel["anchors"]["tests"], rel["anchors"]["fix"]
    assert tests["dimension"] == "completeness" and fix["dimension"] == "minimality"
    assert tests["n_pairs"] == tests["n"] == N_ANCHORED
    assert (tests["wrong"], tests["right"], tests["draw"]) == (N_ANCHORED, 0, 0)
    assert tests["share_wrong"] == 1.0 and tests["share_right"] == 0.0
    assert tests["flagged"] and fix["flagged"] and rel["anchors"]["flagged"]
    assert fix["n_pairs"] == N_ANCHORED and fix["share_wrong"] == 1.0
    assert rel["flagged"]
    assert any("side whose tests failed" in r for r in rel["reasons"])
    assert any("outside the fix" in r for r in rel["reasons"])
    assert "side whose tests failed" in judged["wrong"]["md"]


def test_a_judge_favouring_the_passing_side_is_not_flagged(judged) -> None:
    rel = judged["right"]["summary"]["pairwise"]["judge_reliability"]
    tests, fix = rel["anchors"]["tests"], rel["anchors"]["fix"]
    assert tests["n_pairs"] == N_ANCHORED and tests["share_right"] == 1.0
    assert tests["share_wrong"] == 0.0 and not tests["flagged"]
    assert fix["share_right"] == 1.0 and not fix["flagged"]
    assert not rel["anchors"]["flagged"]


def test_the_jury_and_each_member_report_their_anchors(judged) -> None:
    pairwise = judged["jury"]["summary"]["pairwise"]
    members = pairwise["jury"]["members"]
    by_model = {m["model"].split(":", 1)[-1]: m["judge_reliability"] for m in members.values()}
    assert by_model["wrong-judge"]["anchors"]["tests"]["flagged"]
    assert not by_model["right-judge"]["anchors"]["tests"]["flagged"]
    jury = pairwise["judge_reliability"]["anchors"]["tests"]
    # two judges, opposite: the majority rule makes every anchored pair a draw
    assert jury["n_pairs"] == N_ANCHORED and jury["share_draw"] == 1.0
    assert not jury["flagged"]


def test_the_flag_needs_the_minimum_of_decisive_verdicts() -> None:
    few = anchor_check([("wrong", "valid")] * (ANCHOR_MIN_N - 1), dimension="completeness",
                       right_side="passing")
    enough = anchor_check([("wrong", "valid")] * ANCHOR_MIN_N, dimension="completeness",
                          right_side="passing")
    assert not few.flagged and enough.flagged
    split = anchor_check([("wrong", "valid")] * 6 + [("right", "valid")] * 4,
                         dimension="completeness", right_side="passing")
    assert split.share_wrong == 0.6 and not split.flagged  # the interval reaches below 0.5
    unscored = anchor_check([(None, "error")] * 3 + [("right", "valid")],
                            dimension="completeness", right_side="passing")
    assert (unscored.n_pairs, unscored.n, unscored.n_unscored) == (4, 1, 3)


def test_the_anchors_are_shown_in_the_closing_lines_and_the_report(judged) -> None:
    assert (f"anchors (tests): {N_ANCHORED} anchored pairs, {N_ANCHORED} with a verdict; "
            "completeness favoured the failing side in 100%; flagged" in judged["wrong"]["stdout"])
    for where in (judged["wrong"]["md"],):
        assert f"Tests anchor on completeness: {N_ANCHORED} anchored pairs" in where
        assert f"Fix anchor on minimality: {N_ANCHORED} anchored pairs" in where


def test_the_fix_anchor_reads_the_fix_files_when_no_fix_diff_is_kept() -> None:
    from judgekit.pairwise.anchors import anchor_of
    from judgekit.pairwise.pairs import collect, plan_pairs
    from judgekit.scoring.score import score_result

    runs = [result("t", "base", _diff("x", "src/calc.py")),
            result("t", "ctx", _diff("y", "src/other.py"))]
    runs = [r.model_copy(update={"ground_truth_diff": None,
                                 "ground_truth_files": ["src/calc.py"]}) for r in runs]
    tasks, _ = collect(runs, [score_result(r) for r in runs])
    (pair,) = plan_pairs(tasks)
    assert anchor_of(pair).fix == "a" and anchor_of(pair).tests is None
