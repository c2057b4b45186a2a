"""Which solutions are compared: candidates per task and arm, selection, pairs.

A *candidate* is one solution of a task: an arm's attempt, or the ground-truth fix as the
pseudo-arm ``gold``. By default every two arms of a task are compared (``gold`` only when
named in the ``pairs`` option). With several attempts per arm, ``select="best"`` keeps one per
arm (passing first, then highest F1, then the lowest attempt number) and ``select="all"``
compares every attempt of one arm with every attempt of the other.

Example:
    >>> parse_pair("with-ctx:gold")
    ('with-ctx', 'gold')
    >>> same_change("diff --git a/x b/x\\n+a  = 1\\n", "diff --git a/x b/x\\n+a = 1  \\n")
    True
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import combinations, product
from typing import Literal

from judgekit.diffs import DEFAULT_INFRA_PATHS, strip_paths
from judgekit.errors import ConfigError
from judgekit.ingest.models import ResultKey, RunResult, Task
from judgekit.scoring.models import ScoredResult

GOLD = "gold"
Select = Literal["best", "all"]


@dataclass(frozen=True)
class Candidate:
    """One solution of one task, with its diff already stripped of infrastructure paths."""

    task: Task
    arm: str
    attempt: int
    diff: str
    test_status: str
    test_reason: str = ""
    tests_run: int | None = None
    f1: float | None = None
    run_id: str | None = None
    #: the fix's files as scoring found them (from the fix diff or the run's file list).
    fix_files: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.arm}#{self.attempt}"


@dataclass(frozen=True)
class PlannedPair:
    """Two candidates of one task to compare, ``a`` first in order 1."""

    task: Task
    a: Candidate
    b: Candidate
    ground_truth_diff: str | None

    @cached_property
    def identical(self) -> bool:
        """Same change up to whitespace and file order (worked out once)."""
        return same_change(self.a.diff, self.b.diff)


def parse_pair(text: str) -> tuple[str, str]:
    """Parse ``X:Y`` (arm names, or ``gold``)."""
    left, sep, right = text.partition(":")
    if not sep or not left.strip() or not right.strip() or left.strip() == right.strip():
        raise ConfigError(f"{{option:pairs}} {text!r}: expected two different arm names as "
                          "X:Y")
    return left.strip(), right.strip()


#: Lines a diff carries that say nothing about the change (blob ids, rename scores).
_DROPPED = ("index ", "similarity index ", "dissimilarity index ")


def normalise_diff(diff: str) -> str:
    """``diff`` with whitespace runs squashed, blank lines, hunk offsets and index lines
    dropped, and file sections sorted, so reordered or re-spaced diffs compare equal.

    One pass over the lines (``str.splitlines``, so every line break Python knows ends a
    line); hunk headers become ``@@``, since line numbers shift with unrelated context.
    """
    blocks: list[list[str]] = []
    kept: list[str] | None = None
    for line in diff.splitlines():
        if kept is None or line.startswith("diff --git "):
            kept = []
            blocks.append(kept)
        if line.startswith(_DROPPED):
            continue
        squashed = "@@" if line.startswith("@@") else " ".join(line.split())
        if squashed:
            kept.append(squashed)
    return "\n\n".join(sorted("\n".join(block) for block in blocks if block))


def same_change(diff_a: str, diff_b: str) -> bool:
    """True when two diffs make the same change up to whitespace and file order."""
    return diff_a == diff_b or normalise_diff(diff_a) == normalise_diff(diff_b)


def _candidate(run: RunResult, row: ScoredResult | None, exclude: Sequence[str]) -> Candidate:
    return Candidate(
        task=run.task, arm=run.arm, attempt=run.attempt,
        diff=strip_paths(run.agent_diff or "", exclude),
        test_status=row.test_status if row else "unknown",
        test_reason=row.test_reason if row else "",
        tests_run=row.tests_run if row else None,
        f1=row.f1 if row else None, run_id=run.run_id,
        fix_files=tuple(row.ground_truth_files) if row else ())


def _gold(task: Task, diff: str, exclude: Sequence[str]) -> Candidate:
    return Candidate(task=task, arm=GOLD, attempt=0, diff=strip_paths(diff, exclude),
                     test_status="not run", test_reason="no test result recorded")


def _best_key(c: Candidate) -> tuple[int, float, int]:
    return (0 if c.test_status == "passed" else 1, -(c.f1 if c.f1 is not None else -1.0),
            c.attempt)


@dataclass
class TaskCandidates:
    """Candidates of one task, per arm; ``skipped`` says which results cannot be judged."""

    task: Task
    arms: dict[str, list[Candidate]]
    ground_truth_diff: str | None


def collect(runs: Sequence[RunResult], scored: Sequence[ScoredResult | None], *,
            exclude: Sequence[str] = DEFAULT_INFRA_PATHS) -> tuple[list[TaskCandidates], list[str]]:
    """Group judgeable results per task and arm (with ``gold`` when the fix diff is known).

    Results whose agent diff was not kept cannot be judged; they are left out and named
    in the returned notes.
    """
    tasks: dict[str, TaskCandidates] = {}
    notes: list[str] = []
    for run, row in zip(runs, scored):
        tc = tasks.setdefault(run.task_id, TaskCandidates(run.task, defaultdict(list), None))
        if tc.ground_truth_diff is None and run.ground_truth_diff:
            tc.ground_truth_diff = run.ground_truth_diff
        if run.agent_diff is None:
            notes.append(f"{ResultKey.of(run)}: no agent diff kept, left out of pairwise "
                         "judging")
            continue
        tc.arms[run.arm].append(_candidate(run, row, exclude))
    for tc in tasks.values():
        if tc.ground_truth_diff is not None:
            tc.arms[GOLD] = [_gold(tc.task, tc.ground_truth_diff, exclude)]
        for cands in tc.arms.values():
            cands.sort(key=lambda c: c.attempt)
    return list(tasks.values()), notes


def _chosen(cands: list[Candidate], select: Select) -> list[Candidate]:
    return list(cands) if select == "all" else [min(cands, key=_best_key)]


def plan_pairs(tasks: Sequence[TaskCandidates], *, pairs: Sequence[tuple[str, str]] | None = None,
               select: Select = "best") -> list[PlannedPair]:
    """The pairs to compare, task by task.

    Without ``pairs`` every two real arms of a task are compared (names sorted, the first
    is ``a``); with ``pairs`` exactly those, in the given orientation, on the tasks that
    have both.
    """
    if select not in ("best", "all"):
        raise ConfigError(f"{{option:select}} {select!r}: expected best or all")
    out: list[PlannedPair] = []
    for tc in tasks:
        if pairs:
            wanted = [(x, y) for x, y in pairs if tc.arms.get(x) and tc.arms.get(y)]
        else:
            real = sorted(a for a, c in tc.arms.items() if a != GOLD and c)
            wanted = list(combinations(real, 2))
        for x, y in wanted:
            for ca, cb in product(_chosen(tc.arms[x], select), _chosen(tc.arms[y], select)):
                out.append(PlannedPair(tc.task, ca, cb, tc.ground_truth_diff))
    return out


_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def changed_ranges(diff: str) -> list[tuple[str, tuple[int, int]]]:
    """``(path, (start, end))`` of each hunk, in the pre-change file's line numbers."""
    out: list[tuple[str, tuple[int, int]]] = []
    path: str | None = None
    for line in diff.splitlines():
        if line.startswith("--- "):
            name = line[4:].split("\t")[0].strip()
            path = name[2:] if name.startswith("a/") else (None if name == "/dev/null" else name)
        m = _HUNK.match(line)
        if m and path:
            start, length = int(m.group(1)), int(m.group(2) or 1)
            out.append((path, (max(1, start), max(start, start + length - 1))))
    return out
