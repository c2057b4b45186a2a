"""Verdicts held against ground truth nobody had to write: the tests and the fix.

Some pairs carry an answer of their own:

* *tests*: one side's tests passed and the other's failed, both decided from the recorded
  evidence (test status ``passed`` and ``failed``; ``vacuous``, ``timeout``, ``error`` and
  ``unknown`` anchor nothing). A judge that calls the failing side more complete is very
  likely wrong: the anchored-right side on ``completeness`` is the passing one;
* *fix*: one side touches only files the fix touches (from the fix's diff, else the
  run's list of the fix's files) and the other touches source files (tests, docs and
  changelogs left out) outside them. The anchored-right side on
  ``minimality`` is the one that stays inside the fix.

For each anchor the verdicts of the anchored pairs (identical pairs left out: no verdict
of the judge's) are counted as favouring the right side, a draw, or favouring the wrong
side, each share with its 95% Wilson interval. A judge is *flagged* on an anchor when at
least :data:`ANCHOR_MIN_N` of those verdicts are decisive and the wrong side won more of
them than the right side with the Wilson interval of its share of decisive verdicts lying
wholly above 0.5 (:data:`ANCHOR_RULE`). A judge that favours the right side is never
flagged.

Example:
    >>> checks = anchor_checks([("wrong", "valid")] * 6, [])
    >>> checks.tests.n_pairs, checks.tests.share_wrong, checks.tests.flagged
    (6, 1.0, True)
    >>> anchor_checks([("right", "valid")] * 6, []).flagged
    False
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from judgekit.diffs import files_touched
from judgekit.pairwise.models import AnchorCheck, AnchorChecks
from judgekit.pairwise.pairs import PlannedPair
from judgekit.scoring.files import source_files
from judgekit.stats import wilson_interval

#: decisive verdicts on anchored pairs an anchor needs to flag the judge.
ANCHOR_MIN_N = 5
ANCHOR_RULE = (f"flagged when at least {ANCHOR_MIN_N} verdicts on anchored pairs are decisive "
               "and the anchored-wrong side won more of them than the anchored-right side, "
               "the 95% Wilson interval of its share of decisive verdicts lying above 0.5")

Side = Literal["a", "b"]
#: how one verdict on an anchored pair stands: "right", "draw" or "wrong".
Standing = Literal["right", "draw", "wrong"]
VERIFIED = ("passed", "failed")


@dataclass(frozen=True)
class Anchor:
    """Which side of one pair ground truth says should win, per anchored dimension
    (None: the pair is not anchored there)."""

    tests: Side | None = None
    fix: Side | None = None


def _tests_side(pair: PlannedPair) -> Side | None:
    a, b = pair.a.test_status, pair.b.test_status
    if a in VERIFIED and b in VERIFIED and a != b:
        return "a" if a == "passed" else "b"
    return None


def _fix_side(pair: PlannedPair) -> Side | None:
    fix = set(files_touched(pair.ground_truth_diff) if pair.ground_truth_diff
              else pair.a.fix_files or pair.b.fix_files)
    if not fix:
        return None
    a, b = files_touched(pair.a.diff), files_touched(pair.b.diff)

    def inside(files: list[str]) -> bool:
        return bool(files) and set(files) <= fix

    def outside(files: list[str]) -> bool:
        return any(f not in fix for f in source_files(files))

    if inside(a) and outside(b):
        return "a"
    if inside(b) and outside(a):
        return "b"
    return None


def anchor_of(pair: PlannedPair) -> Anchor:
    """The anchors of one planned pair, from its sides' test outcomes and the fix."""
    return Anchor(tests=_tests_side(pair), fix=_fix_side(pair))


def standing(winner: str, right: Side) -> Standing:
    """A verdict's standing: ``winner`` (``"a"``, ``"b"`` or ``"draw"``) against the
    anchored-right side."""
    if winner == "draw":
        return "draw"
    return "right" if winner == right else "wrong"


def _share(k: int, n: int) -> tuple[float | None, tuple[float, float] | None]:
    if not n:
        return None, None
    lo, hi = wilson_interval(k, n)
    return round(k / n, 4), (round(lo, 4), round(hi, 4))


def anchor_check(verdicts: Sequence[tuple[Standing | None, str]], *, dimension: str,
                 right_side: str, min_n: int = ANCHOR_MIN_N) -> AnchorCheck:
    """The check of one anchor from ``(standing, state)`` per anchored pair (standing None
    when the pair has no verdict)."""
    given = [s for s, state in verdicts if state == "valid" and s is not None]
    right, draw, wrong = (given.count("right"), given.count("draw"), given.count("wrong"))
    n = len(given)
    out = AnchorCheck(dimension=dimension, right_side=right_side, n_pairs=len(verdicts),
                      n=n, n_unscored=len(verdicts) - n, right=right, draw=draw,
                      wrong=wrong, n_decisive=right + wrong)
    out.share_right, out.share_right_ci = _share(right, n)
    out.share_draw, out.share_draw_ci = _share(draw, n)
    out.share_wrong, out.share_wrong_ci = _share(wrong, n)
    decisive = right + wrong
    if decisive:
        lo, _ = wilson_interval(wrong, decisive)
        out.flagged = decisive >= min_n and wrong > right and lo > 0.5
    return out


def anchor_checks(tests: Sequence[tuple[Standing | None, str]],
                  fix: Sequence[tuple[Standing | None, str]], *,
                  min_n: int = ANCHOR_MIN_N) -> AnchorChecks:
    """``judge_reliability.anchors``: completeness against the tests, minimality against
    the fix, and whether either flags the judge."""
    t = anchor_check(tests, dimension="completeness", right_side="the side whose tests "
                     "passed (the other's failed)", min_n=min_n)
    f = anchor_check(fix, dimension="minimality", right_side="the side that touches only "
                     "files of the fix (the other touches source files outside it)",
                     min_n=min_n)
    return AnchorChecks(tests=t, fix=f, flagged=t.flagged or f.flagged, min_n=min_n,
                        rule=ANCHOR_RULE)


def anchor_reasons(checks: AnchorChecks) -> list[str]:
    """The plain-words reasons the anchors flag a judge (none when they do not)."""
    out = []
    for what, check in (("tests", checks.tests), ("fix", checks.fix)):
        if not check.flagged:
            continue
        assert check.share_wrong is not None
        wrong_side = ("the side whose tests failed" if what == "tests"
                      else "the side touching source files outside the fix")
        out.append(f"on {check.dimension} it favoured {wrong_side} in {check.wrong} of "
                   f"{check.n} anchored pairs with a verdict ({100 * check.share_wrong:.0f}%), "
                   f"the right side in {check.right}")
    return out


__all__ = ["ANCHOR_MIN_N", "ANCHOR_RULE", "Anchor", "anchor_check", "anchor_checks",
           "anchor_of", "anchor_reasons", "standing"]
