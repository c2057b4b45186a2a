"""The terminal summary, printed with rich.

A line that refers to one of the caller's options writes it as ``{option:NAME}``
(:mod:`judgekit.errors`); ``spell`` (the command line's) turns it into the flag. Every value
from data is printed through :func:`plain` or :func:`cells` (control sequences removed, never
read as rich markup).
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from judgekit.errors import render_options
from judgekit.report.clustering import (
    clustered_comparison_sentence,
    clustered_f1,
    clustered_pass_rate,
    clusters_note,
    clusters_sentence,
)
from judgekit.report.content import p_value, pairing_sentence, test_name, unknown_range
from judgekit.report.format import interval, num, pct, printable, seconds
from judgekit.scoring import Comparison
from judgekit.step_registry import STEPS
from judgekit.summary import EvalSummary


def default_console() -> Console:
    return Console(width=None if Console().is_terminal else 150)


def marked(text: object) -> str:
    """Data to place inside a line that carries rich markup: sanitised, markup escaped."""
    return escape(printable(text))


def plain(console: Console, text: object) -> None:
    """Print one line of data as it is: control sequences removed, no markup, no colours."""
    console.print(printable(text), highlight=False, markup=False)


def cells(*values: object) -> list[Text]:
    """A table row's cells from data: sanitised, never read as markup."""
    return [Text(printable(v)) for v in values]


def _arms(s: EvalSummary, console: Console) -> None:
    """The arms table, then a line per arm whose unknown outcomes leave a range open."""
    table = Table(title="Arms", title_justify="left")
    for col in ("arm", "n", "pass rate [95% CI]", "F1 [95% CI]", "precision", "recall",
                "median duration", "statuses"):
        table.add_column(col, justify="left" if col in ("arm", "statuses") else "right")
    ranges = []
    for name, a in s.arms.items():
        rate = f"{pct(a.pass_rate)} {interval(a.pass_rate_ci, True)}"
        unknown, upper = unknown_range(a)
        if unknown:
            rate += f"\n{pct(a.pass_rate)}–{pct(upper)} with {unknown} unknown"
            ranges.append(f"{name}: {unknown} result(s) with unknown outcome, so its pass rate "
                          f"lies between {pct(a.pass_rate)} and {pct(upper)}")
        table.add_row(*cells(name, str(a.n), rate, f"{num(a.f1)} {interval(a.f1_ci)}",
                      num(a.precision), num(a.recall), seconds(a.duration_median_s),
                            ", ".join(f"{k} {v}" for k, v in sorted(a.status_counts.items()))))
    console.print(table)
    for line in ranges:
        plain(console, line)


def _clusters(s: EvalSummary, console: Console) -> None:
    info = s.clusters
    if info is not None and info.clustered:
        plain(console, clusters_sentence(info))
        for name, a in s.arms.items():
            n = a.clustered.n_clusters if a.clustered else 0
            plain(console, f"  {name}: pass rate {clustered_pass_rate(a)}, F1 "
                           f"{clustered_f1(a)} ({n} cluster{'s' if n != 1 else ''})")
    elif clusters_note(info):
        plain(console, clusters_note(info))


def _comparison(c: Comparison, console: Console) -> None:
    ci = c.delta_pass_rate_ci
    console.print(f"[bold]{marked(c.arm_a)} vs {marked(c.arm_b)}[/]: {c.n_paired} pairs; "
                  f"pass rate diff {pct(c.delta_pass_rate)}"
                  + (f" {interval(ci, True)}" if ci else "")
                  + f" ({test_name(c)} p={num(p_value(c))}); F1 diff "
                  f"{num(c.delta_f1)} {interval(c.delta_f1_ci)}", highlight=False)
    pairing = pairing_sentence(c)
    if pairing:
        plain(console, f"  {pairing}")
    clustered = clustered_comparison_sentence(c)
    if clustered:
        plain(console, f"  {clustered}")


def print_summary(summary: EvalSummary, console: Console | None = None,
                  max_warnings: int = 8,
                  spell: Callable[[str], str | None] | None = None) -> None:
    """Arms (with the range unknown outcomes leave open), comparisons, warnings, notes;
    ``spell`` writes an option's name as the caller's flag."""
    console = console or default_console()
    s = summary
    _arms(s, console)
    _clusters(s, console)
    for c in s.comparisons:
        _comparison(c, console)
    for kind in STEPS:  # what the registered steps add to the scores (integrity)
        if kind.ran(s):
            for line in kind.headline_lines(s):
                plain(console, line)
    if s.warnings:
        console.print(f"[yellow]{len(s.warnings)} warning(s)[/]:")
        for w in s.warnings[:max_warnings]:
            console.print(f"  [yellow]•[/] {marked(w)}", highlight=False)
        if len(s.warnings) > max_warnings:
            console.print(render_options(
                f"  … and {len(s.warnings) - max_warnings} more (all of them are in "
                "{option:json} output and report.md)", spell))
    for note in s.notes:
        plain(console, note)
