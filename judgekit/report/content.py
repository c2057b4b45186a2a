"""What the HTML and Markdown reports say, computed once so both say the same thing.

Every function here reads the typed summary (:class:`~judgekit.summary.EvalSummary`) and the
typed records; absent parts (no ``pairwise``, no ``audit``) simply yield nothing.

Example:
    >>> from judgekit.scoring import Comparison
    >>> c = Comparison(arm_a="a", arm_b="b", n_paired=20, only_a_passed=1, only_b_passed=4,
    ...                mcnemar_p=0.375)
    >>> pass_sentence(c).split(";")[0]
    'b passed 3 more of 20 paired results than a (4 passed only by b, 1 only by a)'
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from judgekit.audit import AuditRecord
from judgekit.outputs import RESULTS_FILE, RUNS_FILE
from judgekit.pairwise import PairRecord
from judgekit.pairwise.models import PairDimensionStats
from judgekit.report.format import num, pct
from judgekit.report.load import ReportInputs
from judgekit.ingest import RunResult
from judgekit.scoring import ArmStats, Comparison, ScoredResult
from judgekit.summary import EvalSummary


@dataclass
class WarningGroup:
    """Warnings of one kind, with a sentence on why they matter.

    ``count`` is how many there are (the results of the kind, from the summary's results,
    where the summary lists only the first few); ``notes`` are the summary's lines about
    the kind that are not one item each (an arm's total, a comparison's exclusions), shown
    with the group but not counted.
    """

    title: str
    why: str
    items: list[str] = field(default_factory=list)
    count: int | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def n(self) -> int:
        return len(self.items) if self.count is None else self.count


_VACUOUS = ("The test command ran no test, whatever its exit code; these results count as "
            "non-passes of their arm and stay in the paired comparison.")
#: (marker of an item line, marker of a line about the kind, title, why). An item line
#: starts with its marker; any other line holding either marker is a note of the group.
_KINDS: tuple[tuple[str, str, str, str], ...] = (
    ("unknown test outcome:", "unknown outcomes", "Unknown test outcomes",
     "The harness claimed an outcome but kept no test output to verify it; these results "
     "are not counted as passed, and the pass rate is shown as a range."),
    ("vacuous (zero tests executed)", "vacuous results", "Vacuous passes", _VACUOUS),
    ("vacuous pass", "vacuous results", "Vacuous passes", _VACUOUS),  # summaries before
    ("arm ", "mixes serving models", "Mixed serving models",
     "An arm was served by more than one model; comparisons pair results of the same model."),
    ("harness failure (", "harness failures", "Harness failures",
     "The harness itself failed; these results count as errors, not as agent failures."),
)
#: The markers (as :data:`_KINDS` spells them) of the groups whose lines name results.
_RESULT_KINDS = {"Unknown test outcomes", "Vacuous passes", "Harness failures"}


def _kind_of(line: str) -> tuple[str, bool] | None:
    """The group ``line`` belongs to, and whether it is one item (not a note)."""
    for item, about, title, _ in _KINDS:
        if title == "Mixed serving models":
            if about in line:
                return title, True
        elif line.startswith(item):
            return title, True
    lowered = line.lower()
    for item, about, title, _ in _KINDS:
        if title in _RESULT_KINDS and (about in lowered or item.rstrip(":(") in lowered):
            return title, False
    return None


def _result_counts(inputs: ReportInputs) -> dict[str, int]:
    """How many results each result kind holds, counted as scoring counts them."""
    results = inputs.summary.results
    return {
        "Vacuous passes": sum(r.test_status == "vacuous" for r in results),
        "Harness failures": sum(r.test_status != "vacuous" and r.harness_status != "completed"
                                for r in results),
        "Unknown test outcomes": sum(r.test_status == "unknown" and r.harness_status
                                     == "completed" for r in results),
    }


def warning_groups(inputs: ReportInputs) -> list[WarningGroup]:
    """Group the summary's warnings by kind and add one group for unscored verdicts.

    A group that names results counts the results of its kind (the summary lists the first
    few); its other lines are notes.
    """
    groups = {title: WarningGroup(title, why) for _, _, title, why in _KINDS}
    other = WarningGroup("Other warnings", "")
    for w in inputs.summary.warnings:
        kind = _kind_of(w)
        if kind is None:
            other.items.append(w)
        elif kind[1]:
            groups[kind[0]].items.append(w)
        else:
            groups[kind[0]].notes.append(w)
    for title, n in _result_counts(inputs).items():
        if groups[title].items or groups[title].notes:
            groups[title].count = n
    unscored = unscored_verdicts(inputs)
    result = [g for g in groups.values() if g.items or g.notes]
    if unscored:
        result.append(WarningGroup(
            "Unscored verdicts",
            "The judge's answer could not be used (invalid after re-asking, or the call failed); "
            "these items have no verdict and are left out of the counts.", unscored))
    return result + ([other] if other.items else [])


def drawn_line(name: str, dims: Sequence[tuple[str, PairDimensionStats]]) -> str | None:
    """One line for an arm pair whose every verdict was a draw (no win in any dimension),
    said instead of its tables and charts; ``None`` when a dimension has a win.

    Example:
        >>> drawn_line("a vs b", [("minimality", PairDimensionStats(draws=3, n=3))])
        'a vs b: every verdict was a draw (3 draws in minimality); neither arm won a comparison.'
    """
    if not dims or any(s.wins_a or s.wins_b for _, s in dims):
        return None
    draws = sum(s.draws for _, s in dims)
    if not draws:
        return None
    missing = sum(s.n_unscored or s.unscored + s.error for _, s in dims)
    return (f"{name}: every verdict was a draw ({draws} draws in "
            f"{', '.join(d for d, _ in dims)})"
            + (f", {missing} without a verdict" if missing else "")
            + "; neither arm won a comparison.")


def size_drawn(summary: EvalSummary, who: str, name: str) -> bool:
    """Whether the judge ``who`` names (``" (judge X)"``; else the main or the jury's
    verdicts) drew every verdict of the arm pair ``name``: patch size has no win to explain."""
    pw = summary.pairwise
    if pw is None:
        return False
    stats = pw.pairs().get(name, {})
    if who.startswith(" (judge ") and pw.jury is not None:
        member = pw.jury.members.get(who[len(" (judge "):-1])
        stats = member.pairs.get(name, {}) if member is not None else {}
    return drawn_line(name, list(stats.items())) is not None


#: The patch-size section when no arm pair has a decisive verdict.
SIZE_ALL_DRAWN = ("Patch size: every pairwise verdict was a draw, so there is no win for "
                  "patch size to explain.")


def unscored_verdicts(inputs: ReportInputs) -> list[str]:
    """One line per pairwise dimension or audit record whose state is not ``valid``."""
    lines = []
    for rec in inputs.pairwise:
        bad = {dim: d.state for dim, d in rec.dimensions.items() if d.state != "valid"}
        if bad:
            states = "/".join(sorted(set(bad.values())))
            lines.append(f"pairwise {rec.task_id} / {rec.arm_a} vs {rec.arm_b}: {states} "
                         f"({', '.join(bad)})")
    for a in inputs.audit:
        if a.state != "valid":
            lines.append(f"audit {a.subject()}: {a.state}")
    audit = inputs.summary.audit
    if not lines and audit is not None and audit.n_unscored + audit.n_error:
        lines.append(f"audit: {audit.n_unscored + audit.n_error} verdict(s) unscored or failed")
    return lines


def pass_rate_text(arm: ArmStats) -> str:
    """``"0.0% [0.0%, 16.1%]"``, and the range unknown outcomes leave open when any exist.

    Example:
        >>> a = ArmStats(n=4, n_tasks=4, n_passed=1, pass_rate=0.25, pass_rate_ci=(0.05, 0.7),
        ...              status_counts={}, n_scored_files=4)
        >>> pass_rate_text(a)
        '25.0% [5.0%, 70.0%]'
    """
    text = f"{pct(arm.pass_rate)} [{pct(arm.pass_rate_ci[0])}, {pct(arm.pass_rate_ci[1])}]"
    unknown, upper = unknown_range(arm)
    if unknown:
        text += (f"; {unknown} unknown, so between {pct(arm.pass_rate)} and "
                 f"{pct(upper)}")
    return text


def unknown_range(arm: ArmStats) -> tuple[int, float | None]:
    """``(n_unknown, pass_rate_upper)``: results whose outcome is unknown, and the pass rate
    if every one of them had passed. ``(0, None)`` when the scoring has no unknowns."""
    if not arm.n_unknown:
        return 0, None
    return arm.n_unknown, arm.pass_rate_upper


SOURCE_F1_SENTENCE = (
    "F1 counts every file of the fix, as the harness defines it; source F1 leaves out test "
    "files, documentation and changelogs, which the agent was not asked to change.")


def _p_words(p: float | None, test: str) -> str:
    if p is None:
        return "no p-value could be computed"
    verdict = ("unlikely to be chance alone (p < 0.05)" if p < 0.05
               else "not good evidence of a real difference")
    return (f"a difference at least this large would arise by chance with p = {num(p)} "
            f"({test}), {verdict}")


def test_name(c: Comparison) -> str:
    """The paired test the comparison used, in words."""
    return c.test or "exact McNemar test"


def p_value(c: Comparison) -> float | None:
    """The p-value of the paired test of pass rates."""
    return c.p_value if c.p_value is not None else c.mcnemar_p


def pass_sentence(c: Comparison) -> str:
    """The pass-rate part of a paired comparison, in plain words."""
    a, b, n = c.arm_a, c.arm_b, c.n_paired
    if not n:
        return f"No task ran on both {a} and {b}, so they cannot be compared."
    only_a, only_b = c.only_a_passed, c.only_b_passed
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
    return f"{head}; {_p_words(p_value(c), test_name(c))}."


def pairing_sentence(c: Comparison) -> str:
    """How the pairs were formed: what was left out, what crossed batches, the interval.

    Example:
        >>> pairing_sentence(Comparison(arm_a="a", arm_b="b", n_paired=3))
        ''
    """
    bits = []
    ci = c.delta_pass_rate_ci
    if c.delta_pass_rate is not None and ci:
        lo, hi = ci
        bits.append(f"the pass rate of {c.arm_a} minus {c.arm_b} is "
                    f"{100 * c.delta_pass_rate:+.1f} points (95% interval "
                    f"{100 * lo:+.1f} to {100 * hi:+.1f})")
    excluded = c.n_excluded_error
    if excluded:
        bits.append(f"{excluded} result{'s' if excluded != 1 else ''} where the harness "
                    f"failed (status error) {'were' if excluded != 1 else 'was'} left out "
                    "of the pairing")
    if c.n_vacuous:
        bits.append(f"{c.n_vacuous} paired result{'s' if c.n_vacuous != 1 else ''} executed no "
                    "test (vacuous) and count as non-passes")
    crossed = c.n_cross_batch
    if crossed:
        bits.append(f"{crossed} pair{'s' if crossed != 1 else ''} joined results from "
                    "different run batches (no same-batch partner was found)")
    if not bits:
        return ""
    text = "; ".join(bits)
    return text[0].upper() + text[1:] + "."


def f1_sentence(c: Comparison) -> str:
    """The F1 part of a paired comparison, in plain words."""
    a, b = c.arm_a, c.arm_b
    d, ci, n = c.delta_f1, c.delta_f1_ci, c.n_paired_f1
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

    scored: ScoredResult
    run: RunResult | None
    verdicts: list[AuditRecord]


@dataclass
class TaskView:
    task_id: str
    entries: list[ResultEntry]
    pairwise: list[PairRecord]


def joined_runs(runs: Sequence[RunResult], results: Sequence[ScoredResult]
                ) -> Iterator[tuple[ScoredResult, RunResult | None]]:
    """Each scored result with its run: same task, arm and attempt, the same run id first;
    each run is joined once."""
    by_key: dict[tuple[str, str, int], list[RunResult]] = {}
    for r in runs:
        by_key.setdefault((r.task_id, r.arm, r.attempt), []).append(r)
    for s in results:
        candidates = by_key.get((s.task_id, s.arm, s.attempt), [])
        run = next((r for r in candidates if r.run_id == s.run_id),
                   candidates[0] if candidates else None)
        if run is not None:
            candidates.remove(run)
        yield s, run


MAX_REPORT_RESULTS = 2000
"""Results a report shows one by one (a row, its diff and test output), the first ones in
the order they were read; the scores and plots cover every result, and ``results.jsonl`` and
``runs.jsonl`` hold them all."""


def shown_results(results: Sequence[ScoredResult]) -> Sequence[ScoredResult]:
    """The results a report shows one by one (:data:`MAX_REPORT_RESULTS`)."""
    return results[:MAX_REPORT_RESULTS]


def results_cut_sentence(inputs: ReportInputs) -> str | None:
    """What the report says when it shows only the first results one by one."""
    n = len(inputs.summary.results)
    if n <= MAX_REPORT_RESULTS:
        return None
    return (f"The first {MAX_REPORT_RESULTS:,} of {n:,} results are shown one by one, in the "
            f"order they were read; the {n - MAX_REPORT_RESULTS:,} others count in every "
            f"score and plot above, and each is in {RESULTS_FILE} and {RUNS_FILE}.")


def task_views(inputs: ReportInputs) -> list[TaskView]:
    """Scored results grouped by task (the ones shown: :func:`shown_results`), each joined
    to its run and its audit verdicts."""
    audit: dict[tuple[str, str, int], list[AuditRecord]] = {}
    for v in inputs.audit:
        audit.setdefault((v.task_id, v.arm, v.attempt), []).append(v)
    tasks: dict[str, TaskView] = {}
    for s, run in joined_runs(inputs.runs, shown_results(inputs.summary.results)):
        verdicts = [v for v in audit.get((s.task_id, s.arm, s.attempt), ())
                    if v.run_id is None or v.run_id == s.run_id]
        view = tasks.setdefault(s.task_id, TaskView(s.task_id, [], []))
        view.entries.append(ResultEntry(s, run, verdicts))
    for rec in inputs.pairwise:
        if rec.task_id in tasks:
            tasks[rec.task_id].pairwise.append(rec)
    return list(tasks.values())


def values(results: Sequence[ScoredResult], arm: str,
           get: Callable[[ScoredResult], float | None]) -> list[float]:
    """The non-missing values ``get`` reads from one arm's results."""
    return [float(v) for r in results if r.arm == arm and (v := get(r)) is not None]


def clip(text: str, limit: int) -> tuple[str, bool]:
    """``text`` cut to ``limit`` characters, and whether it was cut."""
    return (text, False) if len(text) <= limit else (text[:limit], True)
