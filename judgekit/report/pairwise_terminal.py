"""Pairwise results as a terminal table (rich), read from the typed summary; every value
from data goes through :mod:`judgekit.report.terminal`'s sanitisers."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from judgekit.report.judged import anchor_facts, effective_text
from judgekit.report.terminal import cells, marked, plain
from judgekit.summary import EvalSummary


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.0f}%"


def print_pairwise(summary: EvalSummary, console: Console | None = None) -> None:
    """One row per arm pair and dimension: wins, draws, win rate, position behaviour; then
    the ranking and the verdict on the judge's reliability."""
    if summary.pairwise is None:
        return
    console = console or Console(width=None if Console().is_terminal else 150)
    judge = summary.pairwise_run.judge if summary.pairwise_run is not None else None
    table = Table(title=f"Pairwise (flip-and-draw, judge {marked(judge)})", title_justify="left")
    for col in ("pair", "dimension", "wins a", "wins b", "draws", "win rate a [95% CI]",
                "position consistency", "first-slot pref.", "unscored/error"):
        table.add_column(col, justify="left" if col in ("pair", "dimension") else "right")
    for pair, dims in summary.pairwise.pairs().items():
        for dim, s in dims.items():
            ci = s.win_rate_a_ci
            rate = "–" if s.win_rate_a is None else (
                f"{_pct(s.win_rate_a)}" + (f" [{_pct(ci[0])}, {_pct(ci[1])}]" if ci else ""))
            table.add_row(*cells(pair, dim, str(s.wins_a), str(s.wins_b), str(s.draws), rate,
                                 _pct(s.position_consistency), _pct(s.first_slot_preference),
                                 f"{s.unscored}/{s.error}"))
    console.print(table)
    if summary.pairwise_ranking is not None:
        for dim, r in summary.pairwise_ranking.dimensions().items():
            console.print(f"[bold]{marked(dim)}[/] ranking (Bradley–Terry): "
                          + " > ".join(f"{marked(a)} ({r.strength.get(a, 0.0):.2f})"
                                       for a in r.ranking), highlight=False)
    rel = summary.pairwise.judge_reliability
    if rel is not None:
        style = "bold red" if rel.flagged else "green"
        verdict = "judge flagged" if rel.flagged else "judge reliable"
        console.print(f"[{style}]{verdict}[/]: "
                      + marked(rel.message or "; ".join(rel.reasons)), highlight=False)
        for fact in anchor_facts(rel):
            plain(console, fact)
    jury = summary.pairwise.jury
    if jury is not None:
        a = jury.agreement
        interval = f" [{a.ci[0]:.2f}, {a.ci[1]:.2f}]" if a.ci else ""
        alpha = "undefined" if a.alpha is None else f"{a.alpha:.2f}{interval}"
        plain(console, f"jury ({jury.rule}) of {len(jury.judges)} judges; agreement "
                       f"(Krippendorff's alpha) {alpha}")
        if jury.effective_judges is not None:
            plain(console, effective_text(jury.effective_judges))
        for label, m in jury.members.items():
            rel, run = m.judge_reliability, m.run
            state = ("flagged: " + "; ".join(rel.reasons) if rel is not None and rel.flagged
                     else "passed its checks")
            cost = f"; {run.n_calls} calls, ${run.cost_usd:.4f}" if run is not None else ""
            plain(console, f"  judge {label}: {state}{cost}")
    if summary.pairwise_run is not None:
        for note in summary.pairwise_run.notes:
            plain(console, note)
