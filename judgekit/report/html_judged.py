"""HTML sections of the judged parts: the judge's reliability, pairwise judging and the audit.

All are optional: without ``pairwise`` / ``audit`` in the summary the section says the step
was not run; without ``pairwise.judge_reliability`` there is no reliability box.
"""

from __future__ import annotations

from judgekit.audit import AuditRecord
from judgekit.report import svg
from judgekit.report.content import drawn_line
from judgekit.report.format import pct
from judgekit.report.html_jury import jury_html, size_html, size_plot
from judgekit.report.judged import (
    ITEM_WORDS,
    RESULT_WORDS,
    answers_of,
    audit_jury_lines,
    audit_run_line,
    audit_words,
    by_dimension,
    evidence_list,
    missing_in,
    pairwise_run_line,
    pairwise_views,
    ranking_cell,
    rankings,
    record_key,
    record_title,
    reliability_facts,
    reliability_headline,
    repeated_keys,
    sorted_audit,
    suspected_types,
    unscored_count,
    verdict_of,
    win_rate,
)
from judgekit.report.load import ReportInputs
from judgekit.report.markup import Raw, badge, e, not_run, section, table
from judgekit.stats import wilson_interval
from judgekit.summary import EvalSummary, JudgeReliability

PAIRWISE_HELP = ("Each pair of solutions is judged twice, once in each order. An arm wins a "
                 "dimension only when it wins in both orders; anything else is a draw. "
                 "Position-consistency is how often both orders agreed; first-slot preference "
                 "is how often the judge picked whichever solution it saw first (50% is "
                 "unbiased).")


def _consistency_rows(rel: JudgeReliability) -> list[tuple[str, float | None, float | None,
                                                           float | None]]:
    rows: list[tuple[str, float | None, float | None, float | None]] = []
    for dim, d in by_dimension(rel):
        v = d.position_consistency
        lo, hi = (wilson_interval(round(v * d.n), d.n) if v is not None and d.n
                  else (None, None))
        rows.append((dim, v, lo, hi))
    return rows


def reliability_plots(rel: JudgeReliability) -> str:
    """Position consistency and preference fairness per dimension, with intervals."""
    if not rel.by_dimension:
        size = size_plot(rel.size_bias)
        return f'<div class="plots">{size}</div>' if size else ""
    consistency = svg.interval_plot(
        _consistency_rows(rel), title="Position consistency per dimension, with 95% Wilson "
        "interval", marks=[(rel.threshold, f"threshold {pct(rel.threshold)}")])
    fairness = svg.interval_plot(
        [(dim, d.preference_fairness, *(d.preference_fairness_ci or (None, None)))
         for dim, d in by_dimension(rel)],
        title="Preference fairness per dimension, with 95% bootstrap interval", lo=-1.0, hi=1.0,
        fmt=lambda v: f"{v:+.2f}", marks=[(0.0, "fair")], ticks=4)
    return (f'<div class="plots"><figure><figcaption>Position consistency (dashed: the '
            f"threshold {pct(rel.threshold)})</figcaption>{consistency}</figure><figure>"
            "<figcaption>Preference fairness (dashed: fair; +1 always the first slot, -1 "
            f"always the second)</figcaption>{fairness}</figure>{size_plot(rel.size_bias)}"
            "</div>")


def reliability_box(summary: EvalSummary) -> str:
    """The verdict on the pairwise judge, for the top of the report ('' when not measured)."""
    rel = summary.pairwise.judge_reliability if summary.pairwise is not None else None
    if rel is None:
        return ""
    facts = "".join(f"<li>{e(f)}</li>" for f in reliability_facts(rel))
    cls = "reliability flagged" if rel.flagged else "reliability"
    role = ' role="alert"' if rel.flagged else ""
    title = ("Judge flagged: read the pairwise results with care" if rel.flagged
             else "Judge reliability")
    return (f'<aside class="{cls}" id="judge-reliability"{role}><h2>{e(title)}</h2>'
            f"<p>{e(reliability_headline(rel))}</p>"
            + (f"<ul>{facts}</ul>" if facts else "") + reliability_plots(rel) + "</aside>")


def _ranking_table(summary: EvalSummary) -> str:
    ranked = rankings(summary)
    if not ranked:
        return ""
    dims = list(ranked)
    rows = [[arm] + [ranking_cell(summary, d, arm) for d in dims] for arm, _ in ranked[dims[0]]]
    method = summary.pairwise_ranking.method if summary.pairwise_ranking else "Bradley–Terry"
    return (f"<h3>Ranking</h3><p class=\"muted\">{e(method)}; strength in brackets.</p>"
            + table(["arm", *dims], rows))


def pairwise_section(inputs: ReportInputs) -> str:
    views = pairwise_views(inputs.summary)
    if not views:
        return section("pairwise", "Pairwise judging", not_run(
            "Pairwise judging was not run (use judgekit judge with a judge model)."))
    run_line = pairwise_run_line(inputs.summary)
    parts = [f'<p class="muted">{e(PAIRWISE_HELP)}</p>']
    if run_line:
        parts.append(f"<p>{e(run_line)}</p>")
    run = inputs.summary.pairwise_run
    parts += [f'<p class="note">{e(n)}</p>' for n in (run.notes if run is not None else [])]
    for v in views:
        drawn = drawn_line(v.name, v.dimensions)
        if drawn is not None:  # one line, not a chart and a table of draws
            parts.append(f'<p class="collapsed">{e(drawn)}</p>')
            continue
        rows, side, table_rows = [], [], []
        for dim, s in v.dimensions:
            wa, wb, dr = float(s.wins_a), float(s.wins_b), float(s.draws)
            rows.append((dim, [(wa, "win-a", f"{v.arm_a} wins: {wa:g}"),
                               (dr, "draw", f"draws: {dr:g}"),
                               (wb, "win-b", f"{v.arm_b} wins: {wb:g}")]))
            side.append(f"consistent {pct(s.position_consistency)} · first slot "
                        f"{pct(s.first_slot_preference)}")
            table_rows.append([dim, f"{wa:g}", f"{dr:g}", f"{wb:g}", win_rate(s),
                               pct(s.position_consistency), pct(s.first_slot_preference),
                               unscored_count(s)])
        legend = (f'<p class="legend"><span class="sw win-a"></span>{e(v.arm_a)} wins '
                  f'<span class="sw draw"></span>draw <span class="sw win-b"></span>'
                  f"{e(v.arm_b)} wins</p>")
        plot = svg.stacked_bars(rows, side=side,
                                title=f"{v.arm_a} vs {v.arm_b}: wins, draws, losses")
        tbl = table(["dimension", f"{v.arm_a} wins", "draws", f"{v.arm_b} wins",
                     f"{v.arm_a} win rate [95% CI]", "position-consistency",
                     "first-slot preference", "no verdict"], table_rows, numeric=range(1, 8))
        parts.append(f'<div class="pair"><h3>{e(v.name)}</h3>{legend}'
                     f"<figure>{plot}</figure>{tbl}</div>")
    parts.append(_ranking_table(inputs.summary))
    parts += [jury_html(inputs.summary), size_html(inputs.summary)]
    return section("pairwise", "Pairwise judging", "".join(parts))


def _yes_no(v: object) -> str:
    return "yes" if v is True else "no" if v is False else "–"


def _judge_calls(rec: AuditRecord) -> tuple[str, object]:
    if rec.cached:
        n = answers_of(rec)
        return ("judge calls", f"0 ({n} answer{'s' if n != 1 else ''} from the cache)")
    return ("judge calls", rec.tries)


def verdict_card(rec: AuditRecord, suspected: bool = False, with_run: bool = False) -> Raw:
    """One audit record: its verdict, reasoning, evidence and the evidence check.

    ``with_run`` puts the run id in the title, for records of the same task, arm and attempt
    that come from different runs. A benchmark item's record speaks of the item.
    """
    v = verdict_of(rec)
    words = ITEM_WORDS if rec.is_item else RESULT_WORDS
    state = rec.state
    head = record_title(rec, with_run)
    badges = [badge(state, "valid" if state == "valid" else "unscored")]
    if suspected:
        badges.append(badge(words.suspect, "suspect"))
    if state == "valid" and rec.verdict:
        ife = v.score == 1
        badges.append(badge(words.blamed if ife else words.cleared,
                            "ife" if ife else "agent"))
        ok = rec.evidence_verified
        badges.append(badge("evidence found in the materials" if ok else
                            "evidence NOT found in the materials",
                            "verified" if ok else "unverified"))
    facts = [("defect exists", _yes_no(v.deficiency_exists)),
             ("defect caused the failure" if words.per_result else
              "defect would fail a correct fix", _yes_no(v.deficiency_caused_failure)),
             ("category", rec.deficiency_type or v.deficiency_type or "–"),
             ("score", "–" if v.score is None else v.score), _judge_calls(rec)]
    if rec.samples > 1:
        facts.append(("samples", f"{rec.samples}, {pct(rec.agreement)} agree "
                                 "with the majority"))
    if rec.test_status and words.per_result:
        facts.append(("test status", rec.test_status))
    dl = "".join(f"<dt>{e(k)}</dt><dd>{e(val)}</dd>" for k, val in facts)
    body = [f'<dl class="facts">{dl}</dl>']
    if rec.reason:
        body.append(f'<p class="muted">{e(rec.reason)}</p>')
    for text, label in ((v.existence_reasoning, "Does a defect exist?"),
                        (v.causation_reasoning, words.caused)):
        if text:
            body.append(f"<h5>{e(label)}</h5><p class=\"reasoning\">{e(text)}</p>")
    quotes = evidence_list(v)
    missing = {q: missing_in(q, rec.quotes_not_found) for q in quotes}
    if quotes:
        body.append("<h5>Evidence</h5>" + "".join(
            f'<blockquote class="{"missing" if missing[q] else "found"}">{e(q)}'
            f'{badge("not found in the materials", "unverified") if missing[q] else ""}'
            "</blockquote>" for q in quotes))
    placed = {m for found in missing.values() for m in found}
    extra = [q for q in rec.quotes_not_found if q not in placed]
    if extra:
        body.append("<h5>Quotes not found in the materials</h5>" + "".join(
            f'<blockquote class="missing">{e(q)}</blockquote>' for q in extra))
    return Raw(f'<article class="verdict{" suspect" if suspected else ""}"><h4>{e(head)} '
               f'{"".join(badges)}</h4>{"".join(body)}</article>')


def audit_section(inputs: ReportInputs) -> str:
    audit = inputs.summary.audit
    words = audit_words(audit)
    if audit is None:
        return section("audit", words.title, not_run(
            "The audit of failed results was not run (use judgekit audit, or judgekit judge "
            "with a judge model)."))
    suspected, kinds = audit.suspected_tasks, suspected_types(audit)
    counts: list[tuple[str, int | None]] = [
        (words.audited, audit.n_failed), ("valid verdicts", audit.n_valid),
        (words.blamed, audit.n_ife),
        ("evidence not found", audit.n_evidence_unverified),
        ("unscored", audit.n_unscored), ("errors", audit.n_error),
        ("not audited (cost cap)", audit.n_skipped_cost)]
    tiles = "".join(f'<div class="tile"><span class="big">{e(v)}</span><span>{e(k)}</span>'
                    "</div>" for k, v in counts if v is not None)
    parts = [f'<div class="tiles">{tiles}</div>']
    records = sorted_audit(inputs)
    run_line = audit_run_line(audit, records)
    if run_line:
        parts.append(f'<p class="muted">{e(run_line)}</p>')
    jury, disagreements = audit_jury_lines(audit)
    if jury:
        parts.append(f'<div class="audit-jury"><p>{e(jury)}</p>'
                     + (f"<ul>{''.join(f'<li>{e(d)}</li>' for d in disagreements)}</ul>"
                        if disagreements else "") + "</div>")
    if suspected:
        items = "".join(f'<li><a href="#task-{e(t)}">{e(t)}</a>'
                        f'{": " + e(kinds[t]) if t in kinds else ""}</li>' for t in suspected)
        parts.append(f'<div class="suspects"><h3>{e(words.suspected)}</h3>'
                     f"<p>{e(words.why_suspected)}</p><ul>{items}</ul></div>")
    else:
        parts.append(f"<p>{e(words.none_suspected)}</p>")
    if audit.contradicted:
        items = "".join(f"<li>{e(c)}</li>" for c in audit.contradicted)
        parts.append(f"<div class=\"contradicted\"><h3>Contradicted verdicts "
                     f"({e(audit.n_contradicted)})</h3><p>A score of 1 on a task that another "
                     f"result passed with verified tests.</p><ul>{items}</ul></div>")
    if audit.by_type:
        ordered = sorted(audit.by_type.items(), key=lambda kv: (-kv[1], kv[0]))
        parts.append("<h3>Verdicts by category</h3><figure>" + svg.bar_chart(
            ordered, title="Verdicts by deficiency category", fmt=lambda x: f"{x:g}")
            + "</figure>")
    if records:
        repeated = repeated_keys(records)
        parts.append("<h3>Verdicts</h3>" + "".join(
            verdict_card(r, r.task_id in suspected, record_key(r) in repeated)
            for r in records))
    else:
        parts.append(not_run("No audit records (audit.jsonl) were found."))
    return section("audit", words.title, "".join(parts))
