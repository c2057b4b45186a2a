"""The Markdown report: the HTML report's content as text and tables.

Rendered from :class:`~judgekit.report.load.ReportInputs` (or from a bare summary, which
gives every section that needs no per-item records). This module lays out the page and the
scores; each step's sections are its part of the reports
(:func:`judgekit.report.step_parts.report_parts`: for the judging steps,
:mod:`judgekit.report.markdown_judged`'s), the results :mod:`judgekit.report.markdown_tasks`'s.

Example:
    >>> text = render_markdown({"results": [], "arms": {}, "comparisons": [], "seed": 0})
    >>> text.splitlines()[0]
    '# judgekit report'
"""

from __future__ import annotations

from typing import Any

from judgekit.corrected import CorrectedShare
from judgekit.report import calibration_view as cv
from judgekit.report.judged import effective_text
from judgekit.report import clustering as k
from judgekit.report import content as c
from judgekit.report.format import interval, money, num, seconds
from judgekit.report.load import ReportInputs
from judgekit.report.markdown_blocks import md, table
from judgekit.report.markdown_tasks import results_lines
from judgekit.report.judged import item_audit, item_audit_line
from judgekit.report.step_parts import parts_that_ran, report_parts
from judgekit.report.svg import quantile
from judgekit.summary import EvalSummary


def _warnings(inputs: ReportInputs) -> list[str]:
    groups = c.warning_groups(inputs)
    if not groups:
        return []
    lines = ["## Warnings", ""]
    for g in groups:
        lines += [f"**{g.title}: {g.n}.** {g.why}".rstrip(), ""]
        lines += [f"- {md(w)}" for w in [*g.notes, *g.items]] + [""]
    return lines


def _arms(summary: EvalSummary) -> list[str]:
    arms = summary.arms
    if not arms:
        return ["## Arms", "", "_No results were scored._", ""]
    clustered = summary.clusters is not None and summary.clusters.clustered
    rows = []
    for name, a in arms.items():
        statuses = ", ".join(f"{key} {v}" for key, v in sorted(a.status_counts.items()))
        rows.append([name, a.n, c.pass_rate_text(a),
                     *([k.clustered_pass_rate(a)] if clustered else []),
                     num(a.precision), num(a.recall), f"{num(a.f1)} {interval(a.f1_ci)}",
                     *([k.clustered_f1(a)] if clustered else []),
                     f"{num(a.f1_source)} {interval(a.f1_source_ci)}", seconds(a.duration_median_s),
                     seconds(a.duration_p90_s), money(a.cost_total_usd), statuses])
    lines = ["## Arms", ""] + table(
        ["arm", "n", "pass rate [95% CI]",
         *(["pass rate, clustered [95% CI]"] if clustered else []), "precision", "recall",
         "F1 [95% CI]", *(["F1, clustered [95% CI]"] if clustered else []),
         "source F1 [95% CI]", "median duration", "p90 duration", "cost", "test statuses"],
        rows) + [c.SOURCE_F1_SENTENCE, ""]
    cluster_text = (k.clusters_sentence(summary.clusters) if clustered
                    else k.clusters_note(summary.clusters))
    lines += [md(cluster_text), ""] if cluster_text else []
    if any(c.unknown_range(a)[0] for a in arms.values()):
        lines += ["Unknown: the harness claimed a result without keeping the test output that "
                  "would show it; the pass rate then lies in the range shown.", ""]
    results = summary.results
    dist = []
    for name in arms:
        for label, get, fmt in (("F1", lambda r: r.f1, num),
                                ("duration", lambda r: r.duration_s, seconds)):
            vals = sorted(c.values(results, name, get))
            qs = [fmt(quantile(vals, q)) for q in (0, .25, .5, .75, 1)] if vals else ["–"] * 5
            dist.append([name, label, len(vals), *qs])
    lines += ["Distribution per arm:", ""] + table(
        ["arm", "measure", "n", "min", "q1", "median", "q3", "max"], dist)
    return lines


def _comparisons(summary: EvalSummary) -> list[str]:
    lines = ["## Paired comparison", ""]
    comps = summary.comparisons
    if not comps:
        return lines + ["_Only one arm: there is nothing to compare._", ""]
    for comp in comps:
        pairing = c.pairing_sentence(comp)
        clustered = k.clustered_comparison_sentence(comp)
        lines += [f"**{md(comp.arm_a)} vs {md(comp.arm_b)}**: " + md(
            f"{c.pass_sentence(comp)} " + (f"{pairing} " if pairing else "")
            + c.f1_sentence(comp) + (f" {clustered}" if clustered else ""), block=False), ""]
    return lines


def _corrected(shares: dict[str, CorrectedShare]) -> list[str]:
    if not shares:
        return []
    return ([md(cv.CORRECTED_SENTENCE), ""]
            + table(cv.CORRECTED_HEADER, cv.corrected_rows(shares)))


def _calibration(inputs: ReportInputs) -> list[str]:
    cal = inputs.calibration
    if cal is None or (cal.pairwise is None and cal.audit is None
                       and cal.audit_scales is None):
        return []
    lines = ["## Judge calibration against labels", ""]
    if cal.pairwise is not None:
        p = cal.pairwise
        lines += [md(cv.pairwise_sentence(p)), ""] + table(cv.PAIRWISE_HEADER, cv.pairwise_rows(p))
        who = cv.labellers_sentence(p)
        if who is not None:
            lines += [md(who), ""] + table(["labeller: judge", *cv.PAIRWISE_HEADER[1:]],
                                           cv.labeller_rows(p))
        for name, a in [*p.judges.items(), *([("jury", p.jury)] if p.jury else [])]:
            lines += [f"Confusion of {md(name)} (verdicts by rows, gold labels by columns):",
                      ""]
            lines += table(cv.CONFUSION_HEADER, cv.confusion_rows(a))
            if a.kappa_note:
                lines += [f"_{md(a.kappa_note, block=False)}_", ""]
        if p.effective_judges_errors is not None:
            lines += [md(effective_text(p.effective_judges_errors)), ""]
        lines += _corrected(cv.pairwise_corrected(p))
    if cal.audit is not None:
        lines += [md(cv.audit_sentence(cal.audit)), ""]
        labellers = cv.audit_labeller_lines(cal.audit)
        lines += [f"- {md(x, block=False)}" for x in labellers] + ([""] if labellers else [])
        lines += _corrected(cal.audit.corrected)
    if cal.audit_scales is not None:
        lines += [f"- {md(x, block=False)}" for x in cv.scales_lines(cal.audit_scales)] + [""]
    return lines


def render_markdown(inputs: ReportInputs | EvalSummary | dict[str, Any]) -> str:
    """Render the report; judged sections say "not run" when their data is absent."""
    if not isinstance(inputs, ReportInputs):
        inputs = ReportInputs.of(inputs)
    s = inputs.summary
    if item_audit(s):
        return "\n".join(_item_audit_lines(inputs))
    lines = ["# judgekit report", "",
             f"{len(s.results)} results, {len({r.task_id for r in s.results})} tasks, "
             f"{len(s.arms)} arms.", ""]
    for note in s.notes:
        lines += [f"> {md(note, block=False)}", ""]
    parts = report_parts()
    for part in parts:
        lines += part.top_markdown(inputs) if part.top_markdown is not None else []
    lines += _warnings(inputs) + _arms(s) + _comparisons(s)
    for part in parts:
        lines += part.markdown(inputs)
    lines += _calibration(inputs) + results_lines(inputs)
    return "\n".join(lines)


def _item_audit_lines(inputs: ReportInputs) -> list[str]:
    """The report of an audit of benchmark items (an item audit): no result was scored,
    so no arm, comparison or result section; the steps that ran, then calibration."""
    s = inputs.summary
    lines = ["# judgekit report", "", md(item_audit_line(s)), ""]
    for note in s.notes:
        lines += [f"> {md(note, block=False)}", ""]
    parts = parts_that_ran(s)
    for part in parts:
        lines += part.top_markdown(inputs) if part.top_markdown is not None else []
    lines += _warnings(inputs)
    for part in parts:
        lines += part.markdown(inputs)
    return lines + _calibration(inputs)
