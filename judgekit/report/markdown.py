"""The Markdown report: the HTML report's content as text and tables.

Rendered from :class:`~judgekit.report.load.ReportInputs` (or from a bare summary, which
gives every section that needs no per-item records).

Example:
    >>> text = render_markdown({"results": [], "arms": {}, "comparisons": [], "seed": 0})
    >>> text.splitlines()[0]
    '# judgekit report'
"""

from __future__ import annotations

import re
from typing import Any

from judgekit.audit.aggregate import AuditRecord
from judgekit.report import calibration_view as cv
from judgekit.report import clustering as k
from judgekit.report import content as c
from judgekit.report import judged as j
from judgekit.report.format import interval, money, num, pct, seconds
from judgekit.report.judges import markdown_lines
from judgekit.report.load import ReportInputs
from judgekit.report.svg import quantile
from judgekit.runs.models import RunResult
from judgekit.scoring.models import ScoredResult
from judgekit.summary import EvalSummary

#: Lines of a diff (and of test output, from its end) kept in each result's details.
DIFF_LINES = 150
OUTPUT_LINES = 60
_BACKTICKS = re.compile(r"`+")


def cell(value: object) -> str:
    """A table cell: pipes escaped, newlines flattened."""
    return str(value).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _table(header: list[str], rows: list[list[Any]]) -> list[str]:
    lines = ["| " + " | ".join(cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(v) for v in r) + " |" for r in rows]
    return lines + [""]


def fence(text: str, lang: str = "") -> list[str]:
    """A fenced block whose fence is longer than any backtick run inside ``text``."""
    longest = max(map(len, _BACKTICKS.findall(text)), default=0)
    f = "`" * max(3, longest + 1)
    return [f + lang, text.rstrip("\n"), f]


def _warnings(inputs: ReportInputs) -> list[str]:
    groups = c.warning_groups(inputs)
    if not groups:
        return []
    lines = ["## Warnings", ""]
    for g in groups:
        lines += [f"**{g.title}: {len(g.items)}.** {g.why}".rstrip(), ""]
        lines += [f"- {w}" for w in g.items] + [""]
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
    lines = ["## Arms", ""] + _table(
        ["arm", "n", "pass rate [95% CI]",
         *(["pass rate, clustered [95% CI]"] if clustered else []), "precision", "recall",
         "F1 [95% CI]", *(["F1, clustered [95% CI]"] if clustered else []),
         "source F1 [95% CI]", "median duration", "p90 duration", "cost", "test statuses"],
        rows) + [c.SOURCE_F1_SENTENCE, ""]
    cluster_text = (k.clusters_sentence(summary.clusters) if clustered
                    else k.clusters_note(summary.clusters))
    lines += [cluster_text, ""] if cluster_text else []
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
    lines += ["Distribution per arm:", ""] + _table(
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
        lines += [f"**{comp.arm_a} vs {comp.arm_b}**: {c.pass_sentence(comp)} "
                  + (f"{pairing} " if pairing else "") + c.f1_sentence(comp)
                  + (f" {clustered}" if clustered else ""), ""]
    return lines


def _reliability(summary: EvalSummary) -> list[str]:
    rel = summary.pairwise.judge_reliability if summary.pairwise is not None else None
    if rel is None:
        return []
    lines = ["## Judge reliability", "", j.reliability_headline(rel), ""]
    lines += [f"- {f}" for f in j.reliability_facts(rel)] + [""]
    if rel.by_dimension:
        lines += _table(
            ["dimension", "position consistency", "preference fairness [95% CI]", "n"],
            [[dim, pct(d.position_consistency),
              ("–" if d.preference_fairness is None else f"{d.preference_fairness:+.2f}")
              + (f" [{d.preference_fairness_ci[0]:+.2f}, {d.preference_fairness_ci[1]:+.2f}]"
                 if d.preference_fairness_ci else ""), d.n]
             for dim, d in j.by_dimension(rel)])
    return lines


def _pairwise(summary: EvalSummary) -> list[str]:
    lines = ["## Pairwise judging", ""]
    views = j.pairwise_views(summary)
    if not views:
        return lines + ["_Pairwise judging was not run (use `judgekit judge` with "
                        "`--judge MODEL`)._", ""]
    run_line = j.pairwise_run_line(summary)
    lines += [run_line, ""] if run_line else []
    for note in summary.pairwise_run.notes if summary.pairwise_run is not None else []:
        lines += [f"> {note}", ""]
    for v in views:
        rows = [[dim, s.wins_a, s.draws, s.wins_b, j.win_rate(s), pct(s.position_consistency),
                 pct(s.first_slot_preference), j.unscored_count(s)] for dim, s in v.dimensions]
        lines += [f"### {v.name}", ""] + _table(
            ["dimension", f"{v.arm_a} wins", "draws", f"{v.arm_b} wins",
             f"{v.arm_a} win rate [95% CI]", "position-consistency", "first-slot preference",
             "no verdict"], rows)
    ranked = j.rankings(summary)
    if ranked:
        dims = list(ranked)
        rows = []
        for arm, _ in ranked[dims[0]]:
            rows.append([arm] + [j.ranking_cell(summary, d, arm) for d in dims])
        lines += ["### Ranking (Bradley–Terry, strength in brackets)", ""] + _table(
            ["arm", *dims], rows)
    return lines


def _verdict(rec: AuditRecord, suspected: set[str], with_run: bool = False) -> list[str]:
    v = j.verdict_of(rec)
    head = "#### " + j.record_title(rec, with_run, " / ")
    if rec.task_id in suspected:
        head += " (suspected defective task)"
    state = rec.state
    calls = f"0 ({j.answers_of(rec)} from the cache)" if rec.cached else rec.tries
    lines = [head, "", f"- state: {state}; judge calls: {calls}"]
    if rec.samples > 1:
        lines.append(f"- samples: {rec.samples}, {pct(rec.agreement)} agree with "
                     "the majority")
    if rec.reason:
        lines.append(f"- reason: {rec.reason}")
    if state == "valid" and rec.verdict:
        ife = v.score == 1
        kind = rec.deficiency_type or v.deficiency_type
        found = ("quotes found in the materials" if rec.evidence_verified
                 else "quotes NOT found in the materials")
        lines += [f"- score: {v.score} "
                  f"({'task defect caused the failure' if ife else 'agent failure'}); "
                  f"defect exists: {v.deficiency_exists}; caused the failure: "
                  f"{v.deficiency_caused_failure}; category: {kind}",
                  f"- evidence check: {found}"]
    lines.append("")
    for text, label in ((v.existence_reasoning, "Does a defect exist?"),
                        (v.causation_reasoning, "Did it cause the failure?")):
        if text:
            lines += [f"*{label}* {text}", ""]
    quotes = j.evidence_list(v)
    for q in quotes:
        lines += ["> " + line for line in q.splitlines() or [""]]
        lines += ([">", "> _(not found in the materials)_"]
                  if j.missing_in(q, rec.quotes_not_found) else []) + [""]
    placed = {m for q in quotes for m in j.missing_in(q, rec.quotes_not_found)}
    for q in (m for m in rec.quotes_not_found if m not in placed):
        lines += ["> " + line for line in q.splitlines() or [""]]
        lines += [">", "> _(not found in the materials)_", ""]
    return lines


def _audit(inputs: ReportInputs) -> list[str]:
    lines = ["## Audit of failed results", ""]
    audit = inputs.summary.audit
    if audit is None:
        return lines + ["_The audit of failed results was not run (use `judgekit audit` or "
                        "`judgekit judge` with `--judge MODEL`)._", ""]
    suspected, kinds = audit.suspected_tasks, j.suspected_types(audit)
    skipped = (f", {audit.n_skipped_cost} not audited (cost cap)" if audit.n_skipped_cost
               else "")
    lines += [f"{audit.n_failed} failed results audited: {audit.n_valid} valid verdicts, "
              f"{audit.n_ife} blame a task defect, {audit.n_unscored} unscored, "
              f"{audit.n_error} errors{skipped}.", ""]
    records = j.sorted_audit(inputs)
    run_line = j.audit_run_line(audit, records)
    lines += [run_line, ""] if run_line else []
    jury, disagreements = j.audit_jury_lines(audit)
    if jury:
        lines += [jury, ""] + [f"- {d}" for d in disagreements] + ([""] if disagreements
                                                                  else [])
    if suspected:
        named = [f"{t} ({kinds[t]})" if t in kinds else t for t in suspected]
        lines += [f"**Suspected defective tasks:** {', '.join(named)}", ""]
    else:
        lines += ["No task is suspected of being defective.", ""]
    by_type = audit.by_type
    if by_type:
        lines += _table(["category", "verdicts"],
                        [[k, n] for k, n in sorted(by_type.items(), key=lambda kv: -kv[1])])
    if records:
        lines += ["### Verdicts", ""]
        repeated = j.repeated_keys(records)
        for rec in records:
            lines += _verdict(rec, set(suspected), j.record_key(rec) in repeated)
    return lines


def result_details(s: ScoredResult, run: RunResult | None) -> list[str]:
    """One result's diff, test output and materials, folded (no verdict changes them)."""
    if run is None:
        return []
    title = f"{s.task_id} / {s.arm} / attempt {s.attempt}: diff and test output"
    lines = ["<details>", f"<summary>{title.replace('<', '&lt;')}</summary>", ""]
    diff = (run.agent_diff or "").splitlines()
    if diff:
        more = f" (first {DIFF_LINES} of {len(diff)} lines)" if len(diff) > DIFF_LINES else ""
        lines += [f"Agent diff{more}:", ""] + fence("\n".join(diff[:DIFF_LINES]), "diff") + [""]
    out = ((run.test.output if run.test else None) or "").splitlines()
    if out:
        more = f" (last {OUTPUT_LINES} of {len(out)} lines)" if len(out) > OUTPUT_LINES else ""
        lines += [f"Test output{more}:", ""] + fence("\n".join(out[-OUTPUT_LINES:])) + [""]
    for name, text in sorted(run.materials.items()):
        body = text.splitlines()
        more = f" (last {OUTPUT_LINES} of {len(body)} lines)" if len(body) > OUTPUT_LINES else ""
        lines += [f"{name[:1].upper()}{name[1:]}{more}:", ""] \
            + fence("\n".join(body[-OUTPUT_LINES:])) + [""]
    if not diff and not out and not run.materials:
        lines += ["No diff or test output was kept.", ""]
    return lines + ["</details>", ""]


def _results(inputs: ReportInputs) -> list[str]:
    views = c.task_views(inputs)
    prepared = inputs.prepared
    rows, details = [], []
    for v in views:
        for en in v.entries:
            r = en.scored
            verdicts = ", ".join(
                x.state if x.state != "valid" else
                f"defect: {j.verdict_of(x).deficiency_type}"
                if j.verdict_of(x).score == 1 else "agent failure"
                for x in en.verdicts) or "–"
            rows.append([r.task_id, r.arm, r.attempt, r.test_status, num(r.precision),
                         num(r.recall), num(r.f1), seconds(r.duration_s), r.run_id or "–",
                         verdicts])
            ready = prepared.markdown(r, en.run) if prepared is not None else None
            details += ready if ready is not None else result_details(r, en.run)
    lines = ["## Results by task", ""] + _table(
        ["task", "arm", "attempt", "test", "precision", "recall", "F1", "duration", "run",
         "verdicts"], rows)
    return lines + (["### Diffs and test output", ""] + details if details else [])


def _calibration(inputs: ReportInputs) -> list[str]:
    cal = inputs.calibration
    if cal is None or (cal.pairwise is None and cal.audit is None):
        return []
    lines = ["## Judge calibration against labels", ""]
    if cal.pairwise is not None:
        p = cal.pairwise
        lines += [cv.pairwise_sentence(p), ""] + _table(cv.PAIRWISE_HEADER, cv.pairwise_rows(p))
        for name, a in [*p.judges.items(), *([("jury", p.jury)] if p.jury else [])]:
            lines += [f"Confusion of {name} (verdicts by rows, gold labels by columns):", ""]
            lines += _table(cv.CONFUSION_HEADER, cv.confusion_rows(a))
            if a.kappa_note:
                lines += [f"_{a.kappa_note}_", ""]
    if cal.audit is not None:
        lines += [cv.audit_sentence(cal.audit), ""]
    return lines


def render_markdown(inputs: ReportInputs | EvalSummary | dict[str, Any]) -> str:
    """Render the report; judged sections say "not run" when their data is absent."""
    if not isinstance(inputs, ReportInputs):
        inputs = ReportInputs.of(inputs)
    s = inputs.summary
    lines = ["# judgekit report", "",
             f"{len(s.results)} results, {len({r.task_id for r in s.results})} tasks, "
             f"{len(s.arms)} arms.", ""]
    for note in s.notes:
        lines += [f"> {note}", ""]
    lines += _reliability(s) + _warnings(inputs) + _arms(s) + _comparisons(s) + _pairwise(s)
    lines += markdown_lines(s)
    lines += _audit(inputs)
    lines += _calibration(inputs)
    lines += _results(inputs)
    return "\n".join(lines)
