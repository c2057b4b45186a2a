"""Pairwise results as a terminal table (rich)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from judgekit.pairwise.report import PairwiseReport


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.0f}%"


def print_pairwise(report: PairwiseReport, console: Console | None = None) -> None:
    """One row per arm pair and dimension: wins, draws, win rate, position behaviour."""
    console = console or Console()
    entries = report.summary_entries()
    table = Table(title=f"Pairwise (flip-and-draw, judge {report.judge})", title_justify="left")
    for col in ("pair", "dimension", "wins a", "wins b", "draws", "win rate a [95% CI]",
                "position consistency", "first-slot pref.", "unscored/error"):
        table.add_column(col, justify="left" if col in ("pair", "dimension") else "right")
    for pair, dims in entries["pairwise"].items():
        for dim, s in dims.items():
            ci = s["win_rate_a_ci"]
            rate = "–" if s["win_rate_a"] is None else (
                f"{_pct(s['win_rate_a'])} [{_pct(ci[0])}, {_pct(ci[1])}]")
            table.add_row(pair, dim, str(s["wins_a"]), str(s["wins_b"]), str(s["draws"]), rate,
                          _pct(s["position_consistency"]), _pct(s["first_slot_preference"]),
                          f"{s['unscored']}/{s['error']}")
    console.print(table)
    for dim, r in entries.get("pairwise_ranking", {}).items():
        if isinstance(r, dict):
            console.print(f"[bold]{dim}[/] ranking (Bradley–Terry): "
                          + " > ".join(f"{a} ({r['strength'][a]:.2f})" for a in r["ranking"]))
    for note in report.notes:
        console.print(note, highlight=False)
