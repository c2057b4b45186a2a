"""What the reports show of ``calibration.json``: the same rows in Markdown and HTML.

Example:
    >>> from judgekit.pairwise.calibrate import Item, PairwiseCalibration, agreement
    >>> cal = PairwiseCalibration(labels_file="gold.csv", n_labels=1, judges={
    ...     "m": agreement([Item("t", "x", "y", "minimality", "A", "A", 0)])})
    >>> pairwise_rows(cal)[0][:3]
    ['m', 1, '100.0%']
"""

from __future__ import annotations

from judgekit.audit import Calibration
from judgekit.audit.calibrate import labeller_name
from judgekit.audit.scales import ScaleCalibration
from judgekit.corrected import CorrectedShare, Estimate
from judgekit.pairwise.calibrate import LABELS, JudgeAgreement, PairwiseCalibration
from judgekit.report.format import interval, num, pct

PAIRWISE_HEADER = ["judge", "items", "accuracy", "Cohen's kappa [95% CI]",
                   "agreement excluding draws", *(f"{d}: accuracy" for d in
                                                  ("consistency", "completeness",
                                                   "minimality"))]
CONFUSION_HEADER = ["verdict / gold", *LABELS]


def _kappa(kappa: float | None, ci: tuple[float, float] | None) -> str:
    return f"{num(kappa)} {interval(ci)}" if ci else num(kappa)


def _row(name: str, a: JudgeAgreement) -> list[object]:
    dims = [pct(a.by_dimension[d].accuracy) if d in a.by_dimension else "–"
            for d in ("consistency", "completeness", "minimality")]
    return [name, a.n, pct(a.accuracy), _kappa(a.kappa, a.kappa_ci),
            f"{pct(a.agreement_excluding_draws)} of {a.n_decisive}", *dims]


def pairwise_rows(cal: PairwiseCalibration) -> list[list[object]]:
    """One row per judge, then the jury's when there is one."""
    rows = [_row(name, a) for name, a in cal.judges.items()]
    if cal.jury is not None:
        rows.append(_row("jury", cal.jury))
    return rows


def kappa_points(cal: PairwiseCalibration
                 ) -> list[tuple[str, float | None, float | None, float | None]]:
    """``(name, kappa, low, high)`` per judge, then the jury's, for an interval plot."""
    judges = [*cal.judges.items(), *([("jury", cal.jury)] if cal.jury is not None else [])]
    return [(name, a.kappa, *(a.kappa_ci or (None, None))) for name, a in judges]


def confusion_rows(a: JudgeAgreement) -> list[list[object]]:
    """The judge's verdicts by rows, the gold labels by columns."""
    return [[j, *(a.confusion.get(f"judge_{j}_gold_{g}", 0) for g in LABELS)] for j in LABELS]


def pairwise_sentence(cal: PairwiseCalibration) -> str:
    """Where the labels came from and what was left out."""
    left = ", ".join(f"{n} {why}" for why, n in cal.left_out.items())
    text = (f"Pairwise verdicts against {cal.n_labels} gold labels"
            + (f" of {cal.labels_file}" if cal.labels_file else "")
            + f" ({len(cal.labels_without_verdict)} without a verdict"
            + (f"; left out: {left}" if left else "")
            + (f"; {cal.stale_labels} stale labels, given to content that has changed since, "
               "left out" if cal.stale_labels else "") + "). Accuracy is the share of "
            "(pair, dimension) items where the verdict equals the label; kappa corrects it "
            "for chance over A, B and draw.")
    return text + ("" if cal.jury is not None else " No jury verdict in these records.")


def labellers_sentence(cal: PairwiseCalibration) -> str | None:
    """With two or more labellers: who labelled how much, how far they agree, and the ties
    left out of the pooled labels; None with one labeller."""
    if not cal.labellers:
        return None
    who = ", ".join(f"{labeller_name(n)} {c.n_labels}" for n, c in cal.labellers.items())
    a = cal.labeller_agreement
    agree = ("Krippendorff's alpha (nominal) between the labellers "
             + (f"{num(a.alpha)} {interval(a.ci)}".rstrip() if a.alpha is not None
                else "undefined")
             + f" over {a.n_units} comparisons of {a.n_pairs} pairs that two or more "
               "labelled" if a is not None else "no comparison labelled twice")
    return (f"Labels of {len(cal.labellers)} labellers ({who}); the figures above are against "
            f"the pooled labels: one per comparison, the label most of its labellers gave; "
            f"{cal.pooled_ties} comparisons whose labellers tied are left out. {agree}.")


def labeller_rows(cal: PairwiseCalibration) -> list[list[object]]:
    """One row per labeller and judge (and jury), named ``labeller: judge``."""
    rows = []
    for who, c in cal.labellers.items():
        for name, a in [*c.judges.items(), *([("jury", c.jury)] if c.jury else [])]:
            rows.append(_row(f"{labeller_name(who)}: {name}", a))
    return rows


def audit_sentence(cal: Calibration) -> str:
    """The audit calibration in one sentence."""
    return (f"Audit verdicts against human labels on {cal.n} tasks: agreement "
            f"{pct(cal.agreement)}, Cohen's kappa {_kappa(cal.kappa, cal.kappa_ci)}"
            + (f" ({cal.kappa_note})" if cal.kappa_note else "") + "."
            + (f" {cal.stale_labels} stale labels (given to content that has changed since) "
               "left out." if cal.stale_labels else ""))


def audit_labeller_lines(cal: Calibration) -> list[str]:
    """With labels of two or more labellers: each one's figures, then how far they agree
    with each other; with one, why there is no such figure; nothing for unnamed labels."""
    lines = []
    if cal.labellers:
        who = ", ".join(f"{labeller_name(n)} {c.n_labels}" for n, c in cal.labellers.items())
        lines.append(f"Audit labels of {len(cal.labellers)} labellers (results labelled: "
                     f"{who}); the figures above are against the pooled labels: per task the "
                     "label most of its labelled results were given.")
        lines += [f"{labeller_name(n)}: agreement {pct(c.agreement)}, Cohen's kappa "
                  f"{_kappa(c.kappa, c.kappa_ci)} over {c.n} tasks"
                  + (f" ({c.kappa_note})" if c.kappa_note else "") + "."
                  for n, c in cal.labellers.items()]
    a = cal.labeller_agreement
    if a is not None and a.n_items:
        lines.append(f"Between the labellers: Krippendorff's alpha ({a.metric}) "
                     f"{_kappa(a.alpha, a.alpha_ci)} over {a.n_items} results two or more "
                     "labelled.")
        lines += [f"{labeller_name(p.labellers[0])} vs {labeller_name(p.labellers[1])}: "
                  f"agreement {pct(p.agreement)}, Cohen's kappa {_kappa(p.kappa, p.kappa_ci)} "
                  f"over {p.n} results." for p in a.pairs]
    if cal.labeller_note:
        lines.append(f"No agreement between labellers: {cal.labeller_note}.")
    return lines


def scales_lines(cal: ScaleCalibration) -> list[str]:
    """The calibration against severity scales: overall, then one line per column, then
    the raters' own agreement."""
    lines = [f"Audit verdicts against the severity scales of {cal.labels_file} (columns "
             f"{', '.join(cal.label_columns)}; a score of at least {cal.label_threshold:g} is "
             f"a defect) on {cal.n} items: agreement {pct(cal.agreement)}, Cohen's kappa "
             f"{_kappa(cal.kappa, cal.kappa_ci)}, precision {pct(cal.judge_ife_precision)}, "
             f"recall {pct(cal.judge_ife_recall)}; {cal.n_labels_without_verdict} labels "
             f"without a verdict, {cal.n_verdicts_without_label} verdicts without a label, "
             f"{cal.n_items_without_label} items without a label."]
    for col, c in cal.categories.items():
        lines.append(f"{col} (category {cal.label_map.get(col, col)}): agreement "
                     f"{pct(c.agreement)}, Cohen's kappa {_kappa(c.kappa, c.kappa_ci)}, "
                     f"precision {pct(c.judge_ife_precision)}, recall "
                     f"{pct(c.judge_ife_recall)} over {c.n} items.")
    for name, own in cal.judges.items():
        lines.append(f"Judge {name}: agreement {pct(own.agreement)}, Cohen's kappa "
                     f"{_kappa(own.kappa, own.kappa_ci)} over {own.n} items.")
    if cal.inter_rater is not None:
        ir = cal.inter_rater
        lines.append(f"The {ir.n_raters} raters agree with each other: Krippendorff's alpha "
                     f"{num(ir.alpha)} {interval(ir.alpha_ci) if ir.alpha_ci else ''} over "
                     f"{ir.n_items} items (defect calls).")
    return lines


CORRECTED_HEADER = ["share", "judge only (uncorrected)", "labels only", "PPI",
                    "PPI++", "labels", "note"]


def _est(e: Estimate | None) -> str:
    """The estimate and its interval, the interval's ends shown within [0%, 100%] (kept as
    computed in calibration.json)."""
    if e is None:
        return "–"
    lo, hi = max(0.0, e.ci[0]), min(1.0, e.ci[1])
    return f"{pct(e.value)} {interval((lo, hi), as_pct=True)}"


def corrected_note(c: CorrectedShare) -> str:
    """What the reader must know of one corrected share: validity, clustering, budget."""
    parts = [c.note] if c.note else []
    if c.n_labels_not_random and c.random_sample:
        parts.append(f"{c.n_labels_not_random} labels of items not chosen at random left out")
    if c.clustered:
        parts.append("clustered by task")
    if c.target_half_width is not None and c.random_sample:
        w = f"±{100 * c.target_half_width:g} points"
        parts.append(f"{w} not reachable short of labelling every item"
                     if c.labels_needed is None else
                     f"{c.more_labels_needed} more random labels for {w} "
                     f"({c.labels_needed} in all)")
    return "; ".join(parts)


def corrected_rows(shares: dict[str, CorrectedShare]) -> list[list[object]]:
    """One row per share: its four estimates with their 95% intervals. The PPI figures of
    labels not chosen at random are shown struck as "not valid"."""
    rows: list[list[object]] = []
    for name, c in shares.items():
        ppi, plus = _est(c.ppi), _est(c.ppi_plus)
        if not c.random_sample and c.ppi is not None:
            ppi, plus = f"not valid ({ppi})", f"not valid ({plus})"
        if c.ppi_lambda is not None and c.random_sample:
            plus += f" λ {c.ppi_lambda:.2f}"
        labels = (f"{c.n_labelled} random of {c.n_items}" if c.random_sample
                  else f"{c.n_labels_not_random} not random of {c.n_items}")
        rows.append([name, _est(c.judge_only), _est(c.classical), ppi, plus, labels,
                     corrected_note(c) or "–"])
    return rows


def pairwise_corrected(cal: PairwiseCalibration) -> dict[str, CorrectedShare]:
    """The pairwise win rates corrected, named ``dimension: a vs b (a's win rate)``."""
    out = {}
    for pair, dims in cal.corrected.items():
        a, _, b = pair.partition(" vs ")
        out.update({f"{dim}: {a}'s win rate over {b}": c for dim, c in dims.items()})
    return out


CORRECTED_SENTENCE = (
    "Each share estimated four ways, with 95% intervals: the judge's verdicts taken as right "
    "(uncorrected: its interval ignores the judge's errors), the labels alone, and the "
    "judge corrected by the labels (prediction-powered inference: PPI, and PPI++ with its "
    "weight λ tuned). Only labels of items chosen uniformly at random (the review queue's "
    "order) make the corrected intervals valid; docs/calibration.md says which figure to "
    "trust when.")
