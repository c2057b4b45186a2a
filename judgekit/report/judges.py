"""What the reports say about patch size and juries, in Markdown and HTML.

* *Size*: each judge's lean to the larger patch (``judge_reliability.size_bias``) and, per
  arm pair and dimension, the win rate with and without patch size in the model
  (``pairwise_size``), with a plot of the win rate by size ratio.
* *Jury* (``pairwise.jury``, several judges): per dimension, each judge's verdicts and
  self-audit beside the jury's; the judges' agreement (Krippendorff's alpha); each
  judge's calls and cost.

Read from the typed summary only (:class:`~judgekit.summary.EvalSummary`).

Example:
    >>> coefficient(Coefficient(estimate=0.5, ci=(-0.1, 1.1)))
    '+0.50 [-0.10, +1.10]'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from judgekit.report import svg
from judgekit.report.format import pct, spend
from judgekit.report.judged import DIMENSION_ORDER, win_rate
from judgekit.report.markup import e, table
from judgekit.summary import (
    Coefficient,
    EvalSummary,
    JudgeReliability,
    JuryMember,
    PairDimensionStats,
    SizeBias,
    SizeControl,
)

SIZE_HELP = ("Patch size is the lines a solution adds plus the lines it removes. The "
             "size-controlled win rate comes from a logistic (Bradley–Terry) model of the "
             "verdicts with the log size ratio as a covariate: it is the win rate the "
             "verdicts imply for two patches of equal size. Coefficients are log-odds with "
             "95% intervals; a size effect above 0 means the larger patch tends to win.")

ALPHA_HELP = ("Krippendorff's alpha (nominal) over the judges' verdicts (A wins, B wins, "
              "draw) on every judged pair and dimension: 1 is perfect agreement, 0 no "
              "better than chance; the interval is a bootstrap over pairs.")


def coefficient(c: Coefficient | None) -> str:
    """``"+0.50 [-0.10, +1.10]"``: a log-odds coefficient and its interval."""
    if c is None:
        return "–"
    ci = f" [{c.ci[0]:+.2f}, {c.ci[1]:+.2f}]" if c.ci else ""
    return f"{c.estimate:+.2f}{ci}"


def _dims(keys: Sequence[str]) -> list[str]:
    return sorted(keys, key=lambda d: (DIMENSION_ORDER.index(d)
                                       if d in DIMENSION_ORDER else 99, d))


def size_fact(bias: SizeBias | None) -> str | None:
    """One sentence on a judge's lean to the larger patch (None when not measured)."""
    if bias is None:
        return None
    if bias.share_larger is None or not bias.n:
        return ("Size bias: no decisive verdict between patches of unequal size, so the "
                "lean to the larger patch could not be measured.")
    ci = bias.share_larger_ci
    span = f" (95% interval {pct(ci[0])}–{pct(ci[1])})" if ci else ""
    verdict = (f"flagged on {', '.join(bias.flagged_dimensions)}: the verdicts follow size"
               if bias.flagged else "not flagged")
    return (f"Size bias: the larger patch won {pct(bias.share_larger)} of {bias.n} decisive "
            f"verdicts between patches of unequal size{span}; 50% is blind to size. A "
            f"dimension is flagged at {pct(bias.threshold)} or more over at least "
            f"{bias.min_n} verdicts with the interval above 50%: {verdict}.")


@dataclass
class SizeView:
    """Size-controlled results of one arm pair, by dimension."""

    name: str
    arm_a: str
    arm_b: str
    dimensions: list[tuple[str, SizeControl]]


def size_views(size: dict[str, dict[str, SizeControl]] | None) -> list[SizeView]:
    out = []
    for name, dims in (size or {}).items():
        if " vs " not in name or not dims:
            continue
        arm_a, arm_b = name.split(" vs ", 1)
        out.append(SizeView(name, arm_a, arm_b, [(d, dims[d]) for d in _dims(list(dims))]))
    return out


_SIZE_HEADER = ["dimension", "win rate of {a}", "at equal size", "arm effect",
                "arm effect at equal size", "size effect", "n"]


def _size_rows(view: SizeView) -> list[list[Any]]:
    return [[dim, pct(c.win_rate_a), pct(c.win_rate_a_size_controlled),
             coefficient(c.arm_effect), coefficient(c.arm_effect_size_controlled),
             coefficient(c.size_effect), c.n] for dim, c in view.dimensions]


def _header(view: SizeView) -> list[str]:
    return [h.format(a=view.arm_a) for h in _SIZE_HEADER]


# --- the jury -----------------------------------------------------------------------------

@dataclass
class JudgeRow:
    """One judge's (or the jury's) results on one arm pair and dimension."""

    name: str
    dim: str
    stats: PairDimensionStats | None
    reliability: JudgeReliability | None
    flagged: bool


def jury_rows(summary: EvalSummary, pair: str, dim: str) -> list[JudgeRow]:
    """Each judge's row, then the jury's, for one arm pair and dimension."""
    pw = summary.pairwise
    if pw is None or pw.jury is None:
        return []
    rows = [JudgeRow(label, dim, m.pairs.get(pair, {}).get(dim), m.judge_reliability,
                     bool(m.judge_reliability and m.judge_reliability.flagged))
            for label, m in pw.jury.members.items()]
    rows.append(JudgeRow(f"jury ({pw.jury.rule})", dim, pw.pairs().get(pair, {}).get(dim),
                         pw.judge_reliability, False))
    return rows


def judge_state(rel: JudgeReliability) -> str:
    """``flagged: <reasons>`` or ``passed its checks``, with repetition stability when
    measured."""
    state = "flagged: " + "; ".join(rel.reasons) if rel.flagged else "passed its checks"
    if rel.repetition_stability is not None:
        state += (f" (repetition stability {pct(rel.repetition_stability)} over "
                  f"{rel.n_repeats} repeated answers)")
    return state


def _fairness(rel: JudgeReliability | None, dim: str) -> str:
    d = rel.by_dimension.get(dim) if rel is not None else None
    if d is None or d.preference_fairness is None:
        return "–"
    return f"{d.preference_fairness:+.2f}"


def _larger(rel: JudgeReliability | None, dim: str) -> str:
    bias = rel.size_bias if rel is not None else None
    d = bias.by_dimension.get(dim) if bias is not None else None
    if d is None or d.share_larger is None:
        return "–"
    ci = d.share_larger_ci
    return f"{pct(d.share_larger)} of {d.n}" + (f" [{pct(ci[0])}, {pct(ci[1])}]" if ci else "")


_JURY_HEADER = ["judge", "{a} wins", "draws", "{b} wins", "{a} win rate [95% CI]",
                "position consistency", "preference fairness", "larger patch won",
                "flagged"]


def _jury_cells(r: JudgeRow) -> list[Any]:
    s = r.stats
    return [r.name, s.wins_a if s else "–", s.draws if s else "–", s.wins_b if s else "–",
            win_rate(s) if s else "–", pct(s.position_consistency) if s else "–",
            _fairness(r.reliability, r.dim), _larger(r.reliability, r.dim),
            "yes" if r.flagged else "no"]


def _agreement_rows(summary: EvalSummary) -> list[tuple[str, float | None, float | None,
                                                         float | None]]:
    jury = summary.pairwise.jury if summary.pairwise is not None else None
    if jury is None:
        return []
    a = jury.agreement
    rows = [("all dimensions", a.alpha, *(a.ci or (None, None)))]
    for dim in _dims(list(a.by_dimension)):
        d = a.by_dimension[dim]
        rows.append((dim, d.alpha, *(d.ci or (None, None))))
    return rows


def _alpha_text(alpha: float | None, ci: Any) -> str:
    if alpha is None:
        return "– (undefined: no variation in the verdicts)"
    return f"{alpha:.2f}" + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else "")


def _cost_rows(members: dict[str, JuryMember]) -> list[list[Any]]:
    return [[label, m.model, m.base_url or "–", m.run.n_calls if m.run else "–",
             m.run.n_cached if m.run else "–", spend(m.run.cost_usd) if m.run else "–"]
            for label, m in members.items()]


_COST_HEADER = ["judge", "model", "server", "calls", "answers from the cache", "cost"]


def _pair_names(summary: EvalSummary) -> list[str]:
    pw = summary.pairwise
    return [n for n in (pw.pairs() if pw is not None else {}) if " vs " in n]


# --- Markdown -----------------------------------------------------------------------------

def _md_table(header: list[str], rows: list[list[Any]]) -> list[str]:
    def cell(v: object) -> str:
        return str(v).replace("|", "\\|").replace("\n", " ")

    return ["| " + " | ".join(map(cell, header)) + " |",
            "|" + "|".join("---" for _ in header) + "|",
            *("| " + " | ".join(map(cell, r)) + " |" for r in rows), ""]


def markdown_lines(summary: EvalSummary) -> list[str]:
    """The size and jury sections of the Markdown report (none when there is nothing)."""
    lines: list[str] = []
    jury = summary.pairwise.jury if summary.pairwise is not None else None
    if jury is not None:
        lines += ["## Jury", "", f"{len(jury.judges)} judges, each by flip-and-draw; the "
                  f"jury's verdict per dimension: {jury.rule}.", "",
                  f"Agreement between the judges (Krippendorff's alpha): "
                  f"{_alpha_text(jury.agreement.alpha, jury.agreement.ci)}. {ALPHA_HELP}", ""]
        lines += _md_table(["dimension", "alpha [95% CI]", "units"],
                           [[d, _alpha_text(a.alpha, a.ci), a.n_units]
                            for d, a in ((d, jury.agreement.by_dimension[d])
                                         for d in _dims(list(jury.agreement.by_dimension)))])
        for pair in _pair_names(summary):
            arm_a, arm_b = pair.split(" vs ", 1)
            for dim in _dims(list(summary.pairwise.pairs()[pair])):  # type: ignore[union-attr]
                rows = [_jury_cells(r) for r in jury_rows(summary, pair, dim)]
                lines += [f"### {pair}: {dim}", ""] + _md_table(
                    [h.format(a=arm_a, b=arm_b) for h in _JURY_HEADER], rows)
        for label, m in jury.members.items():
            if m.judge_reliability is not None:
                lines += [f"- **{label}** {judge_state(m.judge_reliability)}."]
        lines += ["", "### Cost per judge", ""] + _md_table(_COST_HEADER,
                                                           _cost_rows(jury.members))
    sources = size_sources(summary)
    if sources:
        lines += ["## Patch size", "", SIZE_HELP, ""]
    for who, views in sources:
        for v in views:
            lines += [f"### {v.name}{who}", ""] + _md_table(_header(v), _size_rows(v))
            for dim, c in v.dimensions:
                if c.by_ratio:
                    lines.append(f"- {dim}, win rate of {v.arm_a} by size ratio: " + "; ".join(
                        f"{b.bin} {pct(b.win_rate_a)} [{pct(b.ci[0]) if b.ci else '–'}, "
                        f"{pct(b.ci[1]) if b.ci else '–'}] (n={b.n})" for b in c.by_ratio))
            lines.append("")
    return lines


def size_sources(summary: EvalSummary) -> list[tuple[str, list[SizeView]]]:
    """``(" (judge X)", views)`` per judge of a jury then ``(" (jury)", ...)``; one judge:
    ``("", views)``. Sources without size-controlled results are left out."""
    jury = summary.pairwise.jury if summary.pairwise is not None else None
    out = [(f" (judge {label})", size_views(m.size_control))
           for label, m in (jury.members.items() if jury is not None else [])]
    out.append((" (jury)" if jury is not None else "", size_views(summary.pairwise_size)))
    return [(who, views) for who, views in out if views]


# --- HTML ---------------------------------------------------------------------------------

def size_plot(bias: SizeBias | None) -> str:
    """The share of decisive verdicts won by the larger patch, per dimension ('' without)."""
    if bias is None or not bias.by_dimension or not bias.n:
        return ""
    rows = [(dim, bias.by_dimension[dim].share_larger,
             *(bias.by_dimension[dim].share_larger_ci or (None, None)))
            for dim in _dims(list(bias.by_dimension))]
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
    parts = [f'<h3 id="patch-size">Patch size</h3><p class="muted">{e(SIZE_HELP)}</p>']
    for who, views in sources:
        for v in views:
            plots = "".join(_ratio_plot(v, dim, c) for dim, c in v.dimensions if c.by_ratio)
            parts.append(f"<h4>{e(v.name + who)}</h4>" + table(_header(v), _size_rows(v),
                                                                 numeric=range(1, 7))
                         + (f'<div class="plots">{plots}</div>' if plots else ""))
    return "".join(parts)


def jury_html(summary: EvalSummary) -> str:
    """Each judge beside the jury, their agreement and cost ('' with one judge)."""
    jury = summary.pairwise.jury if summary.pairwise is not None else None
    if jury is None:
        return ""
    a = jury.agreement
    parts = [f'<h3 id="jury">Jury</h3><p>{len(jury.judges)} judges, each by flip-and-draw; '
             f"the jury's verdict per dimension: {e(jury.rule)}. Agreement between the "
             f"judges (Krippendorff's alpha): <strong>{e(_alpha_text(a.alpha, a.ci))}"
             f'</strong>.</p><p class="muted">{e(ALPHA_HELP)}</p>']
    rows = _agreement_rows(summary)
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
    for pair in _pair_names(summary):
        arm_a, arm_b = pair.split(" vs ", 1)
        for dim in _dims(list(summary.pairwise.pairs()[pair])):  # type: ignore[union-attr]
            rows_ = []
            bars = []
            for r in jury_rows(summary, pair, dim):
                rows_.append(_jury_cells(r))
                s = r.stats
                if s is not None:
                    bars.append((r.name, [(float(s.wins_a), "win-a", f"{arm_a} wins: {s.wins_a}"),
                                          (float(s.draws), "draw", f"draws: {s.draws}"),
                                          (float(s.wins_b), "win-b", f"{arm_b} wins: "
                                                                     f"{s.wins_b}")]))
            plot = svg.stacked_bars(bars, title=f"{pair}, {dim}: each judge and the jury")
            parts.append(f"<h4>{e(pair)}: {e(dim)}</h4><figure>{plot}</figure>" + table(
                [h.format(a=arm_a, b=arm_b) for h in _JURY_HEADER], rows_,
                numeric=range(1, 4)))
    for label, m in jury.members.items():
        plot = size_plot(m.judge_reliability.size_bias) if m.judge_reliability else ""
        if plot:
            parts.append(f"<h4>{e(label)}: the larger patch won</h4>{plot}")
    parts.append("<h4>Cost per judge</h4>" + table(_COST_HEADER, _cost_rows(jury.members),
                                                   numeric=range(3, 6)))
    return "".join(parts)
