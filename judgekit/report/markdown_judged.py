"""Markdown sections of the judged parts: the judge's reliability, pairwise judging, the
jury and patch size, and the audit.

All are optional: without ``pairwise`` / ``audit`` in the summary the section says the step
was not run; without ``pairwise.judge_reliability`` there is no reliability section.

Example:
    >>> from judgekit.summary import EvalSummary
    >>> empty = EvalSummary.model_validate({"results": [], "arms": {}, "comparisons": [],
    ...                                     "seed": 0})
    >>> pairwise_section(empty)[2]
    '_Pairwise judging was not run (use `judgekit judge` with a judge model)._'
"""

from __future__ import annotations

from judgekit.audit import AuditRecord
from judgekit.report import judged as j
from judgekit.report.content import SIZE_ALL_DRAWN, drawn_line, size_drawn
from judgekit.report.format import pct
from judgekit.report.load import ReportInputs
from judgekit.report.markdown_blocks import md, table
from judgekit.report.size_and_jury import (
    ALPHA_HELP,
    COST_HEADER,
    SIZE_HELP,
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
from judgekit.summary import EvalSummary, PairwiseJury


def reliability_section(summary: EvalSummary) -> list[str]:
    """The verdict on the pairwise judge and its measures per dimension (none unmeasured)."""
    rel = summary.pairwise.judge_reliability if summary.pairwise is not None else None
    if rel is None:
        return []
    lines = ["## Judge reliability", "", md(j.reliability_headline(rel)), ""]
    lines += [f"- {md(f, block=False)}" for f in j.reliability_facts(rel)] + [""]
    if rel.by_dimension:
        lines += table(
            ["dimension", "position consistency", "preference fairness [95% CI]", "n"],
            [[dim, pct(d.position_consistency),
              ("–" if d.preference_fairness is None else f"{d.preference_fairness:+.2f}")
              + (f" [{d.preference_fairness_ci[0]:+.2f}, {d.preference_fairness_ci[1]:+.2f}]"
                 if d.preference_fairness_ci else ""), d.n]
             for dim, d in j.by_dimension(rel)])
    return lines


def _ranking(summary: EvalSummary) -> list[str]:
    ranked = j.rankings(summary)
    if not ranked:
        return []
    dims = list(ranked)
    rows = [[arm] + [j.ranking_cell(summary, d, arm) for d in dims] for arm, _ in ranked[dims[0]]]
    return ["### Ranking (Bradley–Terry, strength in brackets)", ""] + table(["arm", *dims], rows)


def pairwise_section(summary: EvalSummary) -> list[str]:
    """Wins, draws and position behaviour per arm pair and dimension, then the ranking."""
    lines = ["## Pairwise judging", ""]
    views = j.pairwise_views(summary)
    if not views:
        return lines + ["_Pairwise judging was not run (use `judgekit judge` with a judge "
                        "model)._", ""]
    run_line = j.pairwise_run_line(summary)
    lines += [md(run_line), ""] if run_line else []
    for note in summary.pairwise_run.notes if summary.pairwise_run is not None else []:
        lines += [f"> {md(note, block=False)}", ""]
    for v in views:
        drawn = drawn_line(v.name, v.dimensions)
        if drawn is not None:  # one line, not a table of draws
            lines += [md(drawn), ""]
            continue
        rows = [[dim, s.wins_a, s.draws, s.wins_b, j.win_rate(s), pct(s.position_consistency),
                 pct(s.first_slot_preference), j.unscored_count(s)] for dim, s in v.dimensions]
        lines += [f"### {md(v.name, block=False)}", ""] + table(
            ["dimension", f"{v.arm_a} wins", "draws", f"{v.arm_b} wins",
             f"{v.arm_a} win rate [95% CI]", "position-consistency", "first-slot preference",
             "no verdict"], rows)
    return lines + _ranking(summary)


def _jury(summary: EvalSummary, jury: PairwiseJury) -> list[str]:
    agreement = jury.agreement
    lines = ["## Jury", "", f"{len(jury.judges)} judges, each by flip-and-draw; the "
             f"jury's verdict per dimension: {md(jury.rule, block=False)}.", "",
             f"Agreement between the judges (Krippendorff's alpha): "
             f"{alpha_text(agreement.alpha, agreement.ci)}. {ALPHA_HELP}", ""]
    if jury.effective_judges is not None:
        lines += [md(j.effective_text(jury.effective_judges)), ""]
    lines += table(["dimension", "alpha [95% CI]", "units"],
                   [[d, alpha_text(a.alpha, a.ci), a.n_units]
                    for d, a in ((d, agreement.by_dimension[d])
                                 for d in j.in_dimension_order(agreement.by_dimension))])
    for pair in pair_names(summary):
        arm_a, arm_b = pair.split(" vs ", 1)
        for dim in pair_dimensions(summary, pair):
            rows = [jury_cells(r) for r in jury_rows(summary, pair, dim)]
            lines += [f"### {md(pair, block=False)}: {md(dim, block=False)}", ""]
            lines += table(jury_header(arm_a, arm_b), rows)
    for label, m in jury.members.items():
        if m.judge_reliability is not None:
            lines += [f"- **{md(label, block=False)}** "
                      f"{md(judge_state(m.judge_reliability), block=False)}."]
    return lines + ["", "### Cost per judge", ""] + table(COST_HEADER, cost_rows(jury.members))


def _size(summary: EvalSummary) -> list[str]:
    sources = size_sources(summary)
    if sources and all(size_drawn(summary, who, v.name) for who, views in sources
                       for v in views):
        return [SIZE_ALL_DRAWN, ""]
    lines = ["## Patch size", "", SIZE_HELP, ""] if sources else []
    for who, views in sources:
        for v in views:
            if size_drawn(summary, who, v.name):
                lines += [f"{md(v.name + who)}: every verdict was a draw; no win for patch "
                          "size to explain.", ""]
                continue
            lines += [f"### {md(v.name + who, block=False)}", ""]
            lines += table(size_header(v), size_rows(v))
            for dim, c in v.dimensions:
                if c.by_ratio:
                    lines.append(f"- {md(dim, block=False)}, win rate of "
                                 f"{md(v.arm_a, block=False)} by size ratio: " + "; ".join(
                        f"{b.bin} {pct(b.win_rate_a)} [{pct(b.ci[0]) if b.ci else '–'}, "
                        f"{pct(b.ci[1]) if b.ci else '–'}] (n={b.n})" for b in c.by_ratio))
            lines.append("")
    return lines


def jury_and_size_sections(summary: EvalSummary) -> list[str]:
    """The jury and patch-size sections (none when there is nothing to show)."""
    jury = summary.pairwise.jury if summary.pairwise is not None else None
    return (_jury(summary, jury) if jury is not None else []) + _size(summary)


def _quote(text: str, missing: bool) -> list[str]:
    lines = ["> " + md(line) for line in text.splitlines() or [""]]
    return lines + ([">", "> _(not found in the materials)_"] if missing else []) + [""]


def _verdict_facts(rec: AuditRecord, v: j.VerdictView, words: j.AuditWords) -> list[str]:
    state = rec.state
    calls = f"0 ({j.answers_of(rec)} from the cache)" if rec.cached else rec.tries
    lines = [f"- state: {state}; judge calls: {calls}"]
    if rec.samples > 1:
        lines.append(f"- samples: {rec.samples}, {pct(rec.agreement)} agree with "
                     "the majority")
    if rec.reason:
        lines.append(f"- reason: {md(rec.reason, block=False)}")
    if state == "valid" and rec.verdict:
        ife = v.score == 1
        kind = rec.deficiency_type or v.deficiency_type
        found = ("quotes found in the materials" if rec.evidence_verified
                 else "quotes NOT found in the materials")
        caused = "caused the failure" if words.per_result else "would fail a correct fix"
        lines += [f"- score: {v.score} "
                  f"({words.blamed if ife else words.cleared}); "
                  f"defect exists: {md(v.deficiency_exists, block=False)}; {caused}: "
                  f"{md(v.deficiency_caused_failure, block=False)}; category: "
                  f"{md(kind, block=False)}",
                  f"- evidence check: {found}"]
    return lines + [""]


def verdict_lines(rec: AuditRecord, suspected: set[str], with_run: bool = False,
                  words: j.AuditWords = j.RESULT_WORDS) -> list[str]:
    """One audit record: its verdict, reasoning, evidence and the evidence check."""
    v = j.verdict_of(rec)
    head = "#### " + md(j.record_title(rec, with_run, " / "), block=False)
    if rec.task_id in suspected:
        head += f" ({words.suspect})"
    lines = [head, ""] + _verdict_facts(rec, v, words)
    for text, label in ((v.existence_reasoning, "Does a defect exist?"),
                        (v.causation_reasoning, words.caused)):
        if text:
            lines += [f"*{label}* {md(text)}", ""]
    quotes = j.evidence_list(v)
    for q in quotes:
        lines += _quote(q, bool(j.missing_in(q, rec.quotes_not_found)))
    placed = {m for q in quotes for m in j.missing_in(q, rec.quotes_not_found)}
    for q in (m for m in rec.quotes_not_found if m not in placed):
        lines += _quote(q, True)
    return lines


def audit_section(inputs: ReportInputs) -> list[str]:
    """Counts, how the audit ran, suspected tasks, categories, then every verdict."""
    audit = inputs.summary.audit
    words = j.audit_words(audit)
    lines = [f"## {words.title}", ""]
    if audit is None:
        return lines + ["_The audit of failed results was not run (use `judgekit audit`, or "
                        "`judgekit judge` with a judge model)._", ""]
    suspected, kinds = audit.suspected_tasks, j.suspected_types(audit)
    skipped = (f", {audit.n_skipped_cost} not audited (cost cap)" if audit.n_skipped_cost
               else "")
    blame = "a task defect" if words.per_result else "the item"
    lines += [f"{audit.n_failed} {words.audited}: {audit.n_valid} valid verdicts, "
              f"{audit.n_ife} blame {blame}, {audit.n_unscored} unscored, "
              f"{audit.n_error} errors{skipped}.", ""]
    records = j.sorted_audit(inputs)
    run_line = j.audit_run_line(audit, records)
    lines += [md(run_line), ""] if run_line else []
    jury, disagreements = j.audit_jury_lines(audit)
    if jury:
        lines += [md(jury), ""] + [f"- {md(d, block=False)}" for d in disagreements] + (
            [""] if disagreements else [])
    if suspected:
        named = [md(f"{t} ({kinds[t]})" if t in kinds else t, block=False) for t in suspected]
        lines += [f"**{words.suspected}:** {', '.join(named)}", ""]
    else:
        lines += [words.none_suspected, ""]
    if audit.contradicted:
        lines += [f"**Contradicted verdicts** ({audit.n_contradicted}): a score of 1 on a task "
                  "that another result passed with verified tests:", ""]
        lines += [f"- {md(c, block=False)}" for c in audit.contradicted] + [""]
    if audit.by_type:
        lines += table(["category", "verdicts"],
                       [[k, n] for k, n in sorted(audit.by_type.items(), key=lambda kv: -kv[1])])
    if records:
        lines += ["### Verdicts", ""]
        repeated = j.repeated_keys(records)
        for rec in records:
            lines += verdict_lines(rec, set(suspected), j.record_key(rec) in repeated, words)
    return lines
