"""The HTML report: one self-contained file with inline styles, script and SVG plots.

Nothing in it loads from the network: the stylesheet and the script are package files
inlined at render time, plots are inline ``<svg>``, fonts are the reader's own.

Example:
    >>> from judgekit.report.load import ReportInputs
    >>> page = render_html(ReportInputs.of({"results": [], "arms": {}, "comparisons": [],
    ...                                     "seed": 0}))
    >>> page.startswith("<!DOCTYPE html>") and "Pairwise judging was not run" in page
    True
"""

from __future__ import annotations

from importlib import resources

from judgekit.corrected import CorrectedShare
from judgekit.report import calibration_view as cv
from judgekit.report.judged import effective_text
from judgekit.report import clustering as k
from judgekit.report import svg
from judgekit.report.content import (
    SOURCE_F1_SENTENCE,
    f1_sentence,
    pairing_sentence,
    pass_sentence,
    unknown_range,
    values,
    warning_groups,
)
from judgekit.report.format import interval, money, num, pct, seconds
from judgekit.report.html_tasks import tasks_section_parts
from judgekit.report.load import ReportInputs
from judgekit.report.markup import Raw, e, not_run, section, table
from judgekit.report.judged import item_audit, item_audit_line
from judgekit.report.step_parts import parts_that_ran, report_parts
from judgekit.summary import EvalSummary


def _asset(name: str) -> str:
    return resources.files(__package__ or "").joinpath("assets", name).read_text("utf-8")


def _warnings(inputs: ReportInputs) -> str:
    groups = warning_groups(inputs)
    if not groups:
        return ""
    parts = ['<aside class="warnings" id="warnings" role="alert"><h2>Warnings to read before '
             'the numbers</h2><ul class="wgroups">']
    for g in groups:
        items = "".join(f"<li>{e(w)}</li>" for w in [*g.notes, *g.items])
        why = f' <span class="why">{e(g.why)}</span>' if g.why else ""
        parts.append(f'<li><details><summary><strong>{e(g.title)}: {g.n}</strong>'
                     f"{why}</summary><ul>{items}</ul></details></li>")
    return "".join(parts) + "</ul></aside>"


def _arms(summary: EvalSummary) -> str:
    arms = summary.arms
    if not arms:
        return section("arms", "Arms", not_run("No results were scored."))
    results = summary.results
    names = list(arms)
    clustered = summary.clusters is not None and summary.clusters.clustered
    rows = []
    for name, a in arms.items():
        statuses = ", ".join(f"{key} {v}" for key, v in sorted(a.status_counts.items()))
        unknown, upper = unknown_range(a)
        rate = f"{pct(a.pass_rate)} {interval(a.pass_rate_ci, True)}"
        rate_cell = (Raw(f"{e(rate)}<br><span class=\"muted\">{e(pct(a.pass_rate))}–"
                         f"{e(pct(upper))} with {unknown} unknown</span>") if unknown else rate)
        extra = [k.clustered_pass_rate(a), k.clustered_f1(a)] if clustered else []
        rows.append([name, a.n, rate_cell, f"{num(a.f1)} {interval(a.f1_ci)}", *extra,
                     f"{num(a.f1_source)} {interval(a.f1_source_ci)}",
                     num(a.precision), num(a.recall), seconds(a.duration_median_s),
                     seconds(a.duration_p90_s), money(a.cost_total_usd), statuses])
    extra_head = ["pass rate, clustered [95% CI]", "F1, clustered [95% CI]"] if clustered else []
    tbl = table(["arm", "n", "pass rate [95% CI]", "F1 [95% CI]", *extra_head,
                 "source F1 [95% CI]", "precision", "recall", "median duration",
                 "p90 duration", "cost", "test statuses"], rows, cls="arms",
                numeric=range(1, 10 + len(extra_head)))
    cluster_text = (k.clusters_sentence(summary.clusters) if clustered
                    else k.clusters_note(summary.clusters))
    pass_plot = svg.interval_plot(
        [(n, arms[n].pass_rate, *arms[n].pass_rate_ci) for n in names],
        title="Pass rate per arm, with 95% Wilson interval")
    f1_plot = svg.box_strip_plot([(n, values(results, n, lambda r: r.f1)) for n in names],
                                 title="F1 per result, by arm")
    cluster_plot = (f"<figure><figcaption>Pass rate and F1: the usual 95% interval beside the "
                    f"one clustered by repository</figcaption>{_clustered_plot(summary)}"
                    "</figure>" if clustered else "")
    durations = {n: values(results, n, lambda r: r.duration_s) for n in names}
    top = max((max(v) for v in durations.values() if v), default=0.0)
    dur_plot = (svg.box_strip_plot([(n, durations[n]) for n in names], lo=0.0, hi=top,
                                   title="Duration per result (seconds), by arm",
                                   fmt=lambda v: f"{v:.0f}s")
                if top > 0 else not_run("No duration was recorded for any result."))
    costs = [(n, arms[n].cost_total_usd) for n in names]
    cost_plot = (svg.bar_chart(costs, title="Total cost per arm (USD)", fmt=lambda v: f"${v:.2f}")
                 if any(c is not None for _, c in costs)
                 else not_run("No cost was recorded for any arm."))
    unknown_notes = [f"{n}: {k} result{'s' if k != 1 else ''} with unknown outcome, so the "
                     f"pass rate lies between {pct(arms[n].pass_rate)} and {pct(up)}"
                     for n in names for k, up in [unknown_range(arms[n])] if k]
    note = (f'<p class="note">{e("; ".join(unknown_notes))}. Unknown: the harness claimed a '
            "result without keeping the test output that would show it.</p>"
            if unknown_notes else "")
    cluster_p = f'<p class="note" id="clusters">{e(cluster_text)}</p>' if cluster_text else ""
    body = (f"{tbl}<p class=\"muted\">{e(SOURCE_F1_SENTENCE)}</p>{note}{cluster_p}"
            f"<div class=\"plots\">"
            f"<figure><figcaption>Pass rate, with its 95% interval</figcaption>{pass_plot}"
            f"</figure><figure><figcaption>File-level F1: box from first to third quartile, "
            f"line at the median, one dot per result</figcaption>{f1_plot}</figure>"
            f"{cluster_plot}<figure><figcaption>Duration</figcaption>{dur_plot}</figure>"
            f"<figure><figcaption>Cost</figcaption>{cost_plot}</figure></div>")
    return section("arms", "Arms", body)


def _clustered_plot(summary: EvalSummary) -> str:
    """Each arm's pass rate and F1 with the naive interval above the clustered one."""
    rows: list[tuple[str, float | None, float | None, float | None]] = []
    for name, a in sorted(summary.arms.items()):
        c = a.clustered
        for metric, value, naive, wide in (
                ("pass rate", a.pass_rate, a.pass_rate_ci, c.pass_rate_ci if c else None),
                ("F1", a.f1, a.f1_ci, c.f1_ci if c else None)):
            rows.append((f"{name} {metric}", value, *(naive or (None, None))))
            if c is not None:
                rows.append((f"{name} {metric}, clustered ({c.n_clusters})", value,
                             *(wide or (None, None))))
    return svg.interval_plot(rows, title="Naive and clustered 95% intervals per arm")


def _comparisons(summary: EvalSummary) -> str:
    comps = summary.comparisons
    if not comps:
        return section("comparisons", "Paired comparison",
                       not_run("Only one arm: there is nothing to compare."))
    parts = []
    for c in comps:
        facts = (f"pass rate {pct(c.pass_rate_a)} vs {pct(c.pass_rate_b)}, "
                 f"paired by {c.paired_by}")
        pairing = pairing_sentence(c)
        clustered = k.clustered_comparison_sentence(c)
        parts.append(f'<div class="comparison"><h3>{e(c.arm_a)} vs {e(c.arm_b)}</h3>'
                     f"<p>{e(pass_sentence(c))}</p>"
                     + (f"<p>{e(pairing)}</p>" if pairing else "")
                     + f"<p>{e(f1_sentence(c))}</p>"
                     + (f"<p>{e(clustered)}</p>" if clustered else "")
                     + f'<p class="muted">{e(facts)}</p></div>')
    return section("comparisons", "Paired comparison", "".join(parts))


def _corrected(shares: dict[str, CorrectedShare]) -> str:
    if not shares:
        return ""
    return (f"<p>{e(cv.CORRECTED_SENTENCE)}</p>"
            + table(cv.CORRECTED_HEADER, cv.corrected_rows(shares)))


def _calibration(inputs: ReportInputs) -> str:
    cal = inputs.calibration
    if cal is None or (cal.pairwise is None and cal.audit is None
                       and cal.audit_scales is None):
        return ""
    parts = []
    if cal.pairwise is not None:
        p = cal.pairwise
        parts.append(f"<p>{e(cv.pairwise_sentence(p))}</p>"
                     + table(cv.PAIRWISE_HEADER, cv.pairwise_rows(p), numeric=range(1, 8))
                     + "<figure><figcaption>Cohen's kappa against the gold labels, with its "
                       "95% interval (0: chance agreement, 1: perfect)</figcaption>"
                     + svg.interval_plot(cv.kappa_points(p), title="Cohen's kappa per judge",
                                         lo=-1.0, hi=1.0, fmt=lambda v: f"{v:.2f}",
                                         marks=[(0.0, "chance agreement")])
                     + "</figure>")
        who = cv.labellers_sentence(p)
        if who is not None:
            parts.append(f"<p>{e(who)}</p>"
                         + table(["labeller: judge", *cv.PAIRWISE_HEADER[1:]],
                                 cv.labeller_rows(p), numeric=range(1, 8)))
        for name, a in [*p.judges.items(), *([("jury", p.jury)] if p.jury else [])]:
            parts.append(f"<figure><figcaption>Confusion of {e(name)}: verdicts by rows, gold "
                         f"labels by columns</figcaption>"
                         + table(cv.CONFUSION_HEADER, cv.confusion_rows(a), numeric=(1, 2, 3))
                         + (f'<p class="muted">{e(a.kappa_note)}</p>' if a.kappa_note else "")
                         + "</figure>")
        if p.effective_judges_errors is not None:
            parts.append(f"<p>{e(effective_text(p.effective_judges_errors))}</p>")
        parts.append(_corrected(cv.pairwise_corrected(p)))
    if cal.audit is not None:
        parts.append(f"<p>{e(cv.audit_sentence(cal.audit))}</p>")
        labellers = cv.audit_labeller_lines(cal.audit)
        if labellers:
            parts.append("<ul>" + "".join(f"<li>{e(x)}</li>" for x in labellers) + "</ul>")
        parts.append(_corrected(cal.audit.corrected))
    if cal.audit_scales is not None:
        parts.append("<ul>" + "".join(f"<li>{e(x)}</li>"
                                      for x in cv.scales_lines(cal.audit_scales)) + "</ul>")
    return section("calibration", "Judge calibration against labels", "".join(parts))


def _header(inputs: ReportInputs, title: str) -> str:
    s = inputs.summary
    facts = [f"{len(s.results)} results", f"{len({r.task_id for r in s.results})} tasks",
             f"{len(s.arms)} arms", f"bootstrap seed {s.seed}"]
    notes = "".join(f'<p class="note">{e(n)}</p>' for n in s.notes)
    links = [("arms", "Arms"), ("comparisons", "Comparison"),
             *((p.anchor, p.title) for p in report_parts()), ("tasks", "Tasks")]
    nav = "".join(f'<a href="#{a}">{e(t)}</a>' for a, t in links)
    return (f"<header><h1>{e(title)}</h1><p class=\"muted\">{e(' · '.join(facts))}</p>"
            f"<nav>{nav}</nav>{notes}</header>")


def _item_audit_header(inputs: ReportInputs, title: str) -> str:
    s = inputs.summary
    notes = "".join(f'<p class="note">{e(n)}</p>' for n in s.notes)
    nav = "".join(f'<a href="#{a}">{e(t)}</a>'
                  for a, t in ((p.anchor, p.title) for p in parts_that_ran(s)))
    return (f"<header><h1>{e(title)}</h1><p class=\"muted\">{e(item_audit_line(s))}</p>"
            f"<nav>{nav}</nav>{notes}</header>")


def _item_audit_body(inputs: ReportInputs, title: str) -> list[str]:
    """An audit of benchmark items (an item audit): no result was scored, so no arm,
    comparison or result section; the steps that ran, then calibration."""
    parts = parts_that_ran(inputs.summary)
    return [_item_audit_header(inputs, title),
            *(p.top_html(inputs) for p in parts if p.top_html is not None),
            _warnings(inputs), *(p.html(inputs) for p in parts), _calibration(inputs)]


def html_parts(inputs: ReportInputs, title: str = "judgekit report") -> list[str]:
    """The whole page as pieces in order (written one by one: the page is never one string)."""
    s = inputs.summary
    parts = report_parts()
    if item_audit(s):
        body = _item_audit_body(inputs, title)
    else:
        body = [_header(inputs, title),
                *(p.top_html(inputs) for p in parts if p.top_html is not None),
                _warnings(inputs), _arms(s), _comparisons(s),
                *(p.html(inputs) for p in parts), _calibration(inputs),
                *tasks_section_parts(inputs)]
    return [
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        "<meta name=\"color-scheme\" content=\"light\">"
        f"<title>{e(title)}</title><style>{_asset('report.css')}</style></head><body><main>",
        *body,
        "</main><footer class=\"muted\">Written by judgekit. "
        "Rebuild with <code>judgekit report DIR</code>.</footer>"
        f"<script>{_asset('report.js')}</script></body></html>\n"]


def render_html(inputs: ReportInputs, title: str = "judgekit report") -> str:
    """Render the whole page as one string."""
    return "".join(html_parts(inputs, title))
