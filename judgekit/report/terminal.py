"""The terminal summary, printed with rich."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from judgekit.evaluate import EvalResult
from judgekit.report.format import interval, num, pct, seconds


def print_summary(result: EvalResult, console: Console | None = None,
                  max_warnings: int = 8) -> None:
    console = console or Console(width=None if Console().is_terminal else 150)
    s = result.summary
    table = Table(title="Arms", title_justify="left")
    for col in ("arm", "n", "pass rate [95% CI]", "F1 [95% CI]", "precision", "recall",
                "median duration", "statuses"):
        table.add_column(col, justify="left" if col in ("arm", "statuses") else "right")
    for name, a in s.arms.items():
        table.add_row(name, str(a.n), f"{pct(a.pass_rate)} {interval(a.pass_rate_ci, True)}",
                      f"{num(a.f1)} {interval(a.f1_ci)}", num(a.precision), num(a.recall),
                      seconds(a.duration_median_s),
                      ", ".join(f"{k} {v}" for k, v in sorted(a.status_counts.items())))
    console.print(table)
    for c in s.comparisons:
        console.print(f"[bold]{c.arm_a} vs {c.arm_b}[/]: {c.n_paired} pairs; pass rate diff "
                      f"{pct(c.delta_pass_rate)} (McNemar p={num(c.mcnemar_p)}); F1 diff "
                      f"{num(c.delta_f1)} {interval(c.delta_f1_ci)}")
    if s.warnings:
        console.print(f"[yellow]{len(s.warnings)} warning(s)[/]:")
        for w in s.warnings[:max_warnings]:
            console.print(f"  [yellow]•[/] {w}", highlight=False)
        if len(s.warnings) > max_warnings:
            console.print(f"  … and {len(s.warnings) - max_warnings} more (all of them are in "
                          "--json output and report.md)")
    for note in result.notes:
        console.print(note, highlight=False)
