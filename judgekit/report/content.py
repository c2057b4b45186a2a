"""What the HTML and Markdown reports say, computed once so both say the same thing.

Every function here reads the ``summary.json`` dictionary (and the JSONL records) and
tolerates absent parts: a summary without ``pairwise`` or ``audit`` simply yields nothing
for those sections.

Example:
    >>> c = {"arm_a": "a", "arm_b": "b", "n_paired": 20, "only_a_passed": 1,
    ...      "only_b_passed": 4, "mcnemar_p": 0.375}
    >>> pass_sentence(c).split(";")[0]
    'b passed 3 more of 20 paired results than a'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from judgekit.report.format import num
from judgekit.report.load import ReportInputs
from judgekit.runs.models import RunResult

@dataclass
class WarningGroup:
    """Warnings of one kind, with a sentence on why they matter."""

    title: str
    why: str
    items: list[str] = field(default_factory=list)


_KINDS: tuple[tuple[str, str, str], ...] = (
    ("vacuous pass", "Vacuous passes",
     "The test command exited 0 but ran no test; these results are not counted as passed."),
    ("mixes serving models", "Mixed serving models",
     "An arm was served by more than one model; comparisons pair results of the same model."),
    ("harness failure", "Harness failures",
     "The harness itself failed; these results count as errors, not as agent failures."),
)


def warning_groups(inputs: ReportInputs) -> list[WarningGroup]:
    """Group ``summary["warnings"]`` by kind and add one group for unscored verdicts."""
    groups = {title: WarningGroup(title, why) for _, title, why in _KINDS}
    other = WarningGroup("Other warnings", "")
    for w in inputs.summary.get("warnings") or []:
        for marker, title, _ in _KINDS:
            if marker in w:
                groups[title].items.append(w)
                break
        else:
            other.items.append(w)
    unscored = unscored_verdicts(inputs)
    result = [g for g in groups.values() if g.items]
    if unscored:
        result.append(WarningGroup(
            "Unscored verdicts",
            "The judge's answer could not be used (invalid after re-asking, or the call failed); "
            "these items have no verdict and are left out of the counts.", unscored))
    return result + ([other] if other.items else [])


def unscored_verdicts(inputs: ReportInputs) -> list[str]:
    """One line per pairwise dimension or audit record whose state is not ``valid``."""
    lines = []
    for rec in inputs.pairwise:
        bad = {dim: d.get("state") for dim, d in (rec.get("dimensions") or {}).items()
               if isinstance(d, dict) and d.get("state", "valid") != "valid"}
        if bad:
            states = "/".join(sorted(set(map(str, bad.values()))))
            lines.append(f"pairwise {rec.get('task_id')} / {rec.get('arm_a')} vs "
                         f"{rec.get('arm_b')}: {states} ({', '.join(bad)})")
    for rec in inputs.audit:
        if rec.get("state", "valid") != "valid":
            lines.append(f"audit {rec.get('task_id')} / {rec.get('arm')} / attempt "
                         f"{rec.get('attempt')}: {rec.get('state')}")
    if not lines:
        audit = inputs.summary.get("audit") or {}
        n = int(audit.get("n_unscored") or 0) + int(audit.get("n_error") or 0)
        if n:
            lines.append(f"audit: {n} verdict(s) unscored or failed")
    return lines


def _p_words(p: float | None) -> str:
    if p is None:
        return "no p-value could be computed"
    verdict = ("unlikely to be chance alone (p < 0.05)" if p < 0.05
               else "not good evidence of a real difference")
    return (f"a difference at least this large would arise by chance with p = {num(p)} "
            f"(exact McNemar test), {verdict}")


def pass_sentence(c: dict[str, Any]) -> str:
    """The pass-rate part of a paired comparison, in plain words."""
    a, b, n = c["arm_a"], c["arm_b"], c.get("n_paired") or 0
    if not n:
        return f"No task ran on both {a} and {b}, so they cannot be compared."
    only_a, only_b = int(c.get("only_a_passed") or 0), int(c.get("only_b_passed") or 0)
    if only_a == only_b:
        if only_a == 0:
            return (f"Over {n} paired results, neither {a} nor {b} passed a task the other "
                    f"failed; their pass rates do not differ.")
        head = f"{a} and {b} each passed {only_a} of {n} paired results the other failed"
    else:
        more, less = (a, b) if only_a > only_b else (b, a)
        head = (f"{more} passed {abs(only_a - only_b)} more of {n} paired results than {less} "
                f"({max(only_a, only_b)} passed only by {more}, {min(only_a, only_b)} only "
                f"by {less})")
    return f"{head}; {_p_words(c.get('mcnemar_p'))}."


def f1_sentence(c: dict[str, Any]) -> str:
    """The F1 part of a paired comparison, in plain words."""
    a, b = c["arm_a"], c["arm_b"]
    d, ci, n = c.get("delta_f1"), c.get("delta_f1_ci"), c.get("n_paired_f1") or 0
    if d is None or not n:
        return f"No paired result of {a} and {b} has file metrics on both sides."
    direction = "higher" if d > 0 else "lower" if d < 0 else "the same as"
    amount = f"{abs(d):.3f} {direction} than" if d else "the same as"
    text = f"Mean file-level F1 of {a} is {amount} {b}'s over {n} pairs"
    if not ci:
        return text + "."
    lo, hi = ci
    text += f" (95% interval of the difference: {lo:+.3f} to {hi:+.3f})"
    if lo <= 0 <= hi:
        return text + "; the interval includes zero, so the data do not tell which arm " \
                      "touches the right files more often."
    better = a if lo > 0 else b
    return text + f"; the interval excludes zero: {better} touches the right files more often."


@dataclass
class ResultEntry:
    """One scored result with its run (diff, test output) and the verdicts about it."""

    scored: dict[str, Any]
    run: RunResult | None
    verdicts: list[dict[str, Any]]


@dataclass
class TaskView:
    task_id: str
    entries: list[ResultEntry]
    pairwise: list[dict[str, Any]]


def _key(d: dict[str, Any]) -> tuple[str, str, int]:
    return (str(d.get("task_id")), str(d.get("arm")), int(d.get("attempt") or 0))


def task_views(inputs: ReportInputs) -> list[TaskView]:
    """Scored results grouped by task, each joined to its run and its audit verdicts."""
    runs: dict[tuple[str, str, int], list[RunResult]] = {}
    for r in inputs.runs:
        runs.setdefault((r.task_id, r.arm, r.attempt), []).append(r)
    tasks: dict[str, TaskView] = {}
    for s in inputs.summary.get("results") or []:
        k = _key(s)
        candidates = runs.get(k, [])
        run = next((r for r in candidates if r.run_id == s.get("run_id")),
                   candidates[0] if candidates else None)
        if run is not None:
            candidates.remove(run)
        verdicts = [v for v in inputs.audit if _key(v) == k
                    and (v.get("run_id") is None or v.get("run_id") == s.get("run_id"))]
        view = tasks.setdefault(k[0], TaskView(k[0], [], []))
        view.entries.append(ResultEntry(s, run, verdicts))
    for rec in inputs.pairwise:
        tid = str(rec.get("task_id"))
        if tid in tasks:
            tasks[tid].pairwise.append(rec)
    return list(tasks.values())


def values(results: Sequence[dict[str, Any]], arm: str, key: str) -> list[float]:
    """The non-missing values of ``key`` over one arm's results."""
    return [float(r[key]) for r in results if r.get("arm") == arm and r.get(key) is not None]


def clip(text: str, limit: int) -> tuple[str, bool]:
    """``text`` cut to ``limit`` characters, and whether it was cut."""
    return (text, False) if len(text) <= limit else (text[:limit], True)
