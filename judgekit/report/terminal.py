"""The terminal summary, printed with rich.

A line that refers to one of the caller's options writes it as ``{option:NAME}``
(:mod:`judgekit.errors`); ``spell`` (the command line's) turns it into the flag.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console
from rich.table import Table

from judgekit.errors import render_options
from judgekit.report.clustering import (
    clustered_comparison_sentence,
    clustered_f1,
    clustered_pass_rate,
    clusters_note,
    clusters_sentence,
)
from judgekit.report.content import p_value, pairing_sentence, test_name, unknown_range
from judgekit.report.format import interval, num, pct, seconds
from judgekit.scoring import Comparison
from judgekit.summary import EvalSummary


def default_console() -> Console:
    return Console(width=None if Console().is_terminal else 150)


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
        table.add_row(name, str(a.n), rate, f"{num(a.f1)} {interval(a.f1_ci)}",
                      num(a.precision), num(a.recall), seconds(a.duration_median_s),
                      ", ".join(f"{k} {v}" for k, v in sorted(a.status_counts.items())))
    console.print(table)
    for line in ranges:
        console.print(line, highlight=False)


def _clusters(s: EvalSummary, console: Console) -> None:
    info = s.clusters
    if info is not None and info.clustered:
        console.print(clusters_sentence(info), highlight=False)
        for name, a in s.arms.items():
            n = a.clustered.n_clusters if a.clustered else 0
            console.print(f"  {name}: pass rate {clustered_pass_rate(a)}, F1 {clustered_f1(a)} "
                          f"({n} cluster{'s' if n != 1 else ''})", highlight=False)
    elif clusters_note(info):
        console.print(clusters_note(info), highlight=False)


def _comparison(c: Comparison, console: Console) -> None:
    ci = c.delta_pass_rate_ci
    console.print(f"[bold]{c.arm_a} vs {c.arm_b}[/]: {c.n_paired} pairs; pass rate diff "
                  f"{pct(c.delta_pass_rate)}"
                  + (f" {interval(ci, True)}" if ci else "")
                  + f" ({test_name(c)} p={num(p_value(c))}); F1 diff "
                  f"{num(c.delta_f1)} {interval(c.delta_f1_ci)}", highlight=False)
    pairing = pairing_sentence(c)
    if pairing:
        console.print(f"  {pairing}", highlight=False)
    clustered = clustered_comparison_sentence(c)
    if clustered:
        console.print(f"  {clustered}", highlight=False)


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
    if s.warnings:
        console.print(f"[yellow]{len(s.warnings)} warning(s)[/]:")
        for w in s.warnings[:max_warnings]:
            console.print(f"  [yellow]•[/] {w}", highlight=False)
        if len(s.warnings) > max_warnings:
            console.print(render_options(
                f"  … and {len(s.warnings) - max_warnings} more (all of them are in "
                "{option:json} output and report.md)", spell))
    for note in s.notes:
        console.print(note, highlight=False)
