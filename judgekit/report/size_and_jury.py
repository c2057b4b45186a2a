"""What the reports say about patch size and juries: the rows and words both renderers show.

* *Size*: per arm pair and dimension, the win rate with and without patch size in the model
  (``pairwise_size``, and each judge's ``size_control`` in a jury).
* *Jury* (``pairwise.jury``, several judges): per dimension, each judge's verdicts and
  self-audit beside the jury's; the judges' agreement (Krippendorff's alpha); each
  judge's calls and cost.

Read from the typed summary only (:class:`~judgekit.summary.EvalSummary`); the Markdown
and HTML sections are :mod:`judgekit.report.markdown_judged` and
:mod:`judgekit.report.html_jury`.

Example:
    >>> coefficient(Coefficient(estimate=0.5, ci=(-0.1, 1.1)))
    '+0.50 [-0.10, +1.10]'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from judgekit.report.format import pct, spend
from judgekit.report.judged import in_dimension_order, win_rate
from judgekit.summary import (
    Coefficient,
    EvalSummary,
    JudgeReliability,
    JuryMember,
    PairDimensionStats,
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


# --- patch size ---------------------------------------------------------------------------

@dataclass
class SizeView:
    """Size-controlled results of one arm pair, by dimension."""

    name: str
    arm_a: str
    arm_b: str
    dimensions: list[tuple[str, SizeControl]]


def size_views(size: dict[str, dict[str, SizeControl]] | None) -> list[SizeView]:
    """One view per arm pair with size-controlled results, dimensions in their usual order."""
    out = []
    for name, dims in (size or {}).items():
        if " vs " not in name or not dims:
            continue
        arm_a, arm_b = name.split(" vs ", 1)
        out.append(SizeView(name, arm_a, arm_b,
                            [(d, dims[d]) for d in in_dimension_order(dims)]))
    return out


def size_sources(summary: EvalSummary) -> list[tuple[str, list[SizeView]]]:
    """``(" (judge X)", views)`` per judge of a jury then ``(" (jury)", ...)``; one judge:
    ``("", views)``. Sources without size-controlled results are left out."""
    jury = summary.pairwise.jury if summary.pairwise is not None else None
    out = [(f" (judge {label})", size_views(m.size_control))
           for label, m in (jury.members.items() if jury is not None else [])]
    out.append((" (jury)" if jury is not None else "", size_views(summary.pairwise_size)))
    return [(who, views) for who, views in out if views]


_SIZE_HEADER = ["dimension", "win rate of {a}", "at equal size", "arm effect",
                "arm effect at equal size", "size effect", "n"]


def size_header(view: SizeView) -> list[str]:
    """The column names of a size table."""
    return [h.format(a=view.arm_a) for h in _SIZE_HEADER]


def size_rows(view: SizeView) -> list[list[Any]]:
    """One row per dimension: win rates with and without size, and the coefficients."""
    return [[dim, pct(c.win_rate_a), pct(c.win_rate_a_size_controlled),
             coefficient(c.arm_effect), coefficient(c.arm_effect_size_controlled),
             coefficient(c.size_effect), c.n] for dim, c in view.dimensions]


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


def jury_header(arm_a: str, arm_b: str) -> list[str]:
    """The column names of a jury table for one arm pair."""
    return [h.format(a=arm_a, b=arm_b) for h in _JURY_HEADER]


def jury_cells(r: JudgeRow) -> list[Any]:
    """The cells of one row of a jury table."""
    s = r.stats
    return [r.name, s.wins_a if s else "–", s.draws if s else "–", s.wins_b if s else "–",
            win_rate(s) if s else "–", pct(s.position_consistency) if s else "–",
            _fairness(r.reliability, r.dim), _larger(r.reliability, r.dim),
            "yes" if r.flagged else "no"]


def agreement_rows(summary: EvalSummary) -> list[tuple[str, float | None, float | None,
                                                        float | None]]:
    """``(dimension, alpha, low, high)``: all dimensions first, then each one."""
    jury = summary.pairwise.jury if summary.pairwise is not None else None
    if jury is None:
        return []
    a = jury.agreement
    rows = [("all dimensions", a.alpha, *(a.ci or (None, None)))]
    for dim in in_dimension_order(a.by_dimension):
        d = a.by_dimension[dim]
        rows.append((dim, d.alpha, *(d.ci or (None, None))))
    return rows


def alpha_text(alpha: float | None, ci: Any) -> str:
    """Krippendorff's alpha with its interval, or why there is none."""
    if alpha is None:
        return "– (undefined: no variation in the verdicts)"
    return f"{alpha:.2f}" + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else "")


COST_HEADER = ["judge", "model", "server", "calls", "answers from the cache", "cost"]


def cost_rows(members: dict[str, JuryMember]) -> list[list[Any]]:
    """One row per judge: its model, server, calls, cached answers and cost."""
    return [[label, m.model, m.base_url or "–", m.run.n_calls if m.run else "–",
             m.run.n_cached if m.run else "–", spend(m.run.cost_usd) if m.run else "–"]
            for label, m in members.items()]


def pair_names(summary: EvalSummary) -> list[str]:
    """The ``"a vs b"`` arm pairs of the pairwise summary."""
    pw = summary.pairwise
    return [n for n in (pw.pairs() if pw is not None else {}) if " vs " in n]


def pair_dimensions(summary: EvalSummary, pair: str) -> list[str]:
    """The dimensions judged on ``pair``, in their usual order."""
    pw = summary.pairwise
    return in_dimension_order(pw.pairs()[pair]) if pw is not None else []
