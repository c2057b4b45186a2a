"""HTML sections on patch size and juries, with their plots.

The rows and words are :mod:`judgekit.report.size_and_jury`'s; this module lays them out
as tables and inline SVG.
"""

from __future__ import annotations

from judgekit.report import svg
from judgekit.report.content import SIZE_ALL_DRAWN, size_drawn
from judgekit.report.format import pct
from judgekit.report.judged import effective_text, in_dimension_order
from judgekit.report.markup import e, table
from judgekit.report.size_and_jury import (
    ALPHA_HELP,
    COST_HEADER,
    SIZE_HELP,
    SizeView,
    agreement_rows,
    alpha_text,
    cost_rows,
    judge_state,
    jury_cells,
    jury_header,
    jury_rows,
    pair_dimensions,
    pair_names,
    size_header,
    size_rows,
    size_sources,
)
from judgekit.summary import EvalSummary, PairwiseJury, SizeBias, SizeControl


def size_plot(bias: SizeBias | None) -> str:
    """The share of decisive verdicts won by the larger patch, per dimension ('' without)."""
    if bias is None or not bias.by_dimension or not bias.n:
        return ""
    rows = [(dim, bias.by_dimension[dim].share_larger,
             *(bias.by_dimension[dim].share_larger_ci or (None, None)))
            for dim in in_dimension_order(bias.by_dimension)]
    plot = svg.interval_plot(rows, title="Share of decisive verdicts won by the larger patch, "
                             "with 95% Wilson interval",
                             marks=[(0.5, "blind to size"),
                                    (bias.threshold, f"threshold {pct(bias.threshold)}")])
    return (f"<figure><figcaption>Larger patch won (dashed: 50% blind to size, and the "
            f"threshold {pct(bias.threshold)})</figcaption>{plot}</figure>")


def _ratio_plot(view: SizeView, dim: str, c: SizeControl) -> str:
    rows = [(b.bin, b.win_rate_a, *(b.ci or (None, None))) for b in c.by_ratio]
    plot = svg.interval_plot(rows, title=f"{view.name}, {dim}: win rate of {view.arm_a} by "
                             "size ratio", marks=[(0.5, "even")])
    return (f"<figure><figcaption>{e(dim)}: win rate of {e(view.arm_a)} by the size of its "
            f"patch against {e(view.arm_b)}'s</figcaption>{plot}</figure>")


def size_html(summary: EvalSummary) -> str:
    """Size-controlled win rates and the win-rate-versus-size plots ('' without them)."""
    sources = size_sources(summary)
    if not sources:
        return ""
    if all(size_drawn(summary, who, v.name) for who, views in sources for v in views):
        return f'<p class="collapsed" id="patch-size">{e(SIZE_ALL_DRAWN)}</p>'
    parts = [f'<h3 id="patch-size">Patch size</h3><p class="muted">{e(SIZE_HELP)}</p>']
    for who, views in sources:
        for v in views:
            if size_drawn(summary, who, v.name):
                parts.append(f'<p class="collapsed">{e(v.name + who)}: every verdict was a '
                             "draw; no win for patch size to explain.</p>")
                continue
            plots = "".join(_ratio_plot(v, dim, c) for dim, c in v.dimensions if c.by_ratio)
            parts.append(f"<h4>{e(v.name + who)}</h4>" + table(size_header(v), size_rows(v),
                                                                 numeric=range(1, 7))
                         + (f'<div class="plots">{plots}</div>' if plots else ""))
    return "".join(parts)


def _jury_head(summary: EvalSummary, jury: PairwiseJury) -> list[str]:
    """The jury's rule, the judges' agreement (and its plot) and each judge's state."""
    a = jury.agreement
    parts = [f'<h3 id="jury">Jury</h3><p>{len(jury.judges)} judges, each by flip-and-draw; '
             f"the jury's verdict per dimension: {e(jury.rule)}. Agreement between the "
             f"judges (Krippendorff's alpha): <strong>{e(alpha_text(a.alpha, a.ci))}"
             f'</strong>.</p><p class="muted">{e(ALPHA_HELP)}</p>']
    if jury.effective_judges is not None:
        parts.append(f"<p>{e(effective_text(jury.effective_judges))}</p>")
    rows = agreement_rows(summary)
    if any(r[1] is not None for r in rows):
        plot = svg.interval_plot(rows, title="Agreement between the judges (Krippendorff's "
                                 "alpha), with 95% bootstrap interval", lo=-1.0, hi=1.0,
                                 fmt=lambda v: f"{v:+.2f}", marks=[(0.0, "chance")], ticks=4)
        parts.append(f"<figure><figcaption>Krippendorff's alpha (dashed: chance)"
                     f"</figcaption>{plot}</figure>")
    items = []
    for label, m in jury.members.items():
        if m.judge_reliability is not None:
            items.append(f"<li><strong>{e(label)}</strong> "
                         f"{e(judge_state(m.judge_reliability))}</li>")
    if items:
        parts.append(f"<ul>{''.join(items)}</ul>")
    return parts


def _jury_pair(summary: EvalSummary, pair: str, dim: str) -> str:
    """Each judge beside the jury on one arm pair and dimension: bars and a table."""
    arm_a, arm_b = pair.split(" vs ", 1)
    cells = []
    bars = []
    for r in jury_rows(summary, pair, dim):
        cells.append(jury_cells(r))
        s = r.stats
        if s is not None:
            bars.append((r.name, [(float(s.wins_a), "win-a", f"{arm_a} wins: {s.wins_a}"),
                                  (float(s.draws), "draw", f"draws: {s.draws}"),
                                  (float(s.wins_b), "win-b", f"{arm_b} wins: {s.wins_b}")]))
    plot = svg.stacked_bars(bars, title=f"{pair}, {dim}: each judge and the jury")
    return (f"<h4>{e(pair)}: {e(dim)}</h4><figure>{plot}</figure>"
            + table(jury_header(arm_a, arm_b), cells, numeric=range(1, 4)))


def jury_html(summary: EvalSummary) -> str:
    """Each judge beside the jury, their agreement and cost ('' with one judge)."""
    jury = summary.pairwise.jury if summary.pairwise is not None else None
    if jury is None:
        return ""
    parts = _jury_head(summary, jury)
    for pair in pair_names(summary):
        for dim in pair_dimensions(summary, pair):
            parts.append(_jury_pair(summary, pair, dim))
    for label, m in jury.members.items():
        plot = size_plot(m.judge_reliability.size_bias) if m.judge_reliability else ""
        if plot:
            parts.append(f"<h4>{e(label)}: the larger patch won</h4>{plot}")
    parts.append("<h4>Cost per judge</h4>" + table(COST_HEADER, cost_rows(jury.members),
                                                   numeric=range(3, 6)))
    return "".join(parts)
