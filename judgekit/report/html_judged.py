"""HTML sections of the judged parts: pairwise judging and the audit of failed results.

Both are optional: without ``summary["pairwise"]`` / ``summary["audit"]`` the section says
the step was not run.
"""

from __future__ import annotations

from typing import Any

from judgekit.report import svg
from judgekit.report.format import pct
from judgekit.report.judged import (
    audit_run_line,
    evidence_list,
    pairwise_run_line,
    pairwise_views,
    rankings,
    record_key,
    record_title,
    repeated_keys,
    sorted_audit,
    suspected_ids,
    suspected_types,
    unscored_count,
    win_rate,
)
from judgekit.report.load import ReportInputs
from judgekit.report.markup import Raw, badge, e, not_run, section, table

PAIRWISE_HELP = ("Each pair of solutions is judged twice, once in each order. An arm wins a "
                 "dimension only when it wins in both orders; anything else is a draw. "
                 "Position-consistency is how often both orders agreed; first-slot preference "
                 "is how often the judge picked whichever solution it saw first (50% is "
                 "unbiased).")


def _ranking_table(summary: dict[str, Any]) -> str:
    ranked = rankings(summary)
    if not ranked:
        return ""
    dims = list(ranked)
    arms = [a for a, _ in ranked[dims[0]]]
    rows = []
    for arm in arms:
        row: list[object] = [arm]
        for d in dims:
            order = [a for a, _ in ranked[d]]
            strength = dict(ranked[d]).get(arm)
            row.append(f"#{order.index(arm) + 1} ({strength:.3f})" if strength is not None
                       else "–")
        rows.append(row)
    method = (summary.get("pairwise_ranking") or {}).get("method", "Bradley–Terry")
    return (f"<h3>Ranking</h3><p class=\"muted\">{e(method)}; strength in brackets.</p>"
            + table(["arm", *dims], rows))


def pairwise_section(inputs: ReportInputs) -> str:
    views = pairwise_views(inputs.summary)
    if not views:
        return section("pairwise", "Pairwise judging", not_run(
            "Pairwise judging was not run (use judgekit judge with --judge MODEL)."))
    run_line = pairwise_run_line(inputs.summary)
    parts = [f'<p class="muted">{e(PAIRWISE_HELP)}</p>']
    if run_line:
        parts.append(f"<p>{e(run_line)}</p>")
    for v in views:
        rows, side, table_rows = [], [], []
        for dim, s in v.dimensions:
            wa, wb, dr = (float(s.get(k) or 0) for k in ("wins_a", "wins_b", "draws"))
            rows.append((dim, [(wa, "win-a", f"{v.arm_a} wins: {wa:g}"),
                               (dr, "draw", f"draws: {dr:g}"),
                               (wb, "win-b", f"{v.arm_b} wins: {wb:g}")]))
            side.append(f"consistent {pct(s.get('position_consistency'))} · first slot "
                        f"{pct(s.get('first_slot_preference'))}")
            table_rows.append([dim, f"{wa:g}", f"{dr:g}", f"{wb:g}", win_rate(s),
                               pct(s.get("position_consistency")),
                               pct(s.get("first_slot_preference")), unscored_count(s)])
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
    return section("pairwise", "Pairwise judging", "".join(parts))


def _yes_no(v: object) -> str:
    return "yes" if v is True else "no" if v is False else "–"


def _judge_calls(rec: dict[str, Any]) -> tuple[str, object]:
    tries = rec.get("tries")
    if tries is None:
        return ("judge calls", "–")
    if rec.get("cached") is True:
        return ("judge calls", f"0 ({tries} answer{'s' if tries != 1 else ''} from the cache)")
    return ("judge calls", tries)


def verdict_card(rec: dict[str, Any], suspected: bool = False, with_run: bool = False) -> Raw:
    """One audit record: its verdict, reasoning, evidence and the evidence check.

    ``with_run`` puts the run id in the title, for records of the same task, arm and attempt
    that come from different runs.
    """
    v = rec.get("verdict") or {}
    state = str(rec.get("state", "valid"))
    head = record_title(rec, with_run)
    badges = [badge(state, "valid" if state == "valid" else "unscored")]
    if suspected:
        badges.append(badge("suspected defective task", "suspect"))
    if state == "valid" and v:
        ife = v.get("score") == 1
        badges.append(badge("task defect caused the failure" if ife else "agent's failure",
                            "ife" if ife else "agent"))
        ok = rec.get("evidence_verified")
        badges.append(badge("evidence found in the materials" if ok else
                            "evidence NOT found in the materials",
                            "verified" if ok else "unverified"))
    facts = [("defect exists", _yes_no(v.get("deficiency_exists"))),
             ("defect caused the failure", _yes_no(v.get("deficiency_caused_failure"))),
             ("category", rec.get("deficiency_type") or v.get("deficiency_type") or "–"),
             ("score", v.get("score", "–")), _judge_calls(rec)]
    if (rec.get("samples") or 1) > 1:
        facts.append(("samples", f"{rec['samples']}, {pct(rec.get('agreement'))} agree "
                                 "with the majority"))
    if rec.get("test_status"):
        facts.append(("test status", rec["test_status"]))
    dl = "".join(f"<dt>{e(k)}</dt><dd>{e(val)}</dd>" for k, val in facts)
    body = [f'<dl class="facts">{dl}</dl>']
    if rec.get("reason"):
        body.append(f'<p class="muted">{e(rec["reason"])}</p>')
    for key, label in (("existence_reasoning", "Does a defect exist?"),
                       ("causation_reasoning", "Did it cause the failure?")):
        if v.get(key):
            body.append(f"<h5>{e(label)}</h5><p class=\"reasoning\">{e(v[key])}</p>")
    missing = set(rec.get("quotes_not_found") or [])
    quotes = evidence_list(v)
    if quotes:
        body.append("<h5>Evidence</h5>" + "".join(
            f'<blockquote class="{"missing" if q in missing else "found"}">{e(q)}'
            f'{badge("not found in the materials", "unverified") if q in missing else ""}'
            "</blockquote>" for q in quotes))
    extra = [q for q in missing if q not in quotes]
    if extra:
        body.append("<h5>Quotes not found in the materials</h5>" + "".join(
            f'<blockquote class="missing">{e(q)}</blockquote>' for q in extra))
    return Raw(f'<article class="verdict{" suspect" if suspected else ""}"><h4>{e(head)} '
               f'{"".join(badges)}</h4>{"".join(body)}</article>')


def audit_section(inputs: ReportInputs) -> str:
    audit = inputs.summary.get("audit")
    if not isinstance(audit, dict):
        return section("audit", "Audit of failed results", not_run(
            "The audit of failed results was not run (use judgekit audit or judgekit judge "
            "with --judge MODEL)."))
    suspected, kinds = suspected_ids(audit), suspected_types(audit)
    counts = [("failed results audited", audit.get("n_failed")),
              ("valid verdicts", audit.get("n_valid")),
              ("task defect caused the failure", audit.get("n_ife")),
              ("evidence not found", audit.get("n_evidence_unverified")),
              ("unscored", audit.get("n_unscored")), ("errors", audit.get("n_error"))]
    tiles = "".join(f'<div class="tile"><span class="big">{e(v)}</span><span>{e(k)}</span>'
                    "</div>" for k, v in counts if v is not None)
    parts = [f'<div class="tiles">{tiles}</div>']
    records = sorted_audit(inputs)
    run_line = audit_run_line(audit, records)
    if run_line:
        parts.append(f'<p class="muted">{e(run_line)}</p>')
    if suspected:
        items = "".join(f'<li><a href="#task-{e(t)}">{e(t)}</a>'
                        f'{": " + e(kinds[t]) if t in kinds else ""}</li>' for t in suspected)
        parts.append('<div class="suspects"><h3>Suspected defective tasks</h3><p>Several '
                     "independent runs blame these tasks on the same defect. Check them "
                     f"before trusting their results.</p><ul>{items}</ul></div>")
    else:
        parts.append("<p>No task is suspected of being defective.</p>")
    by_type = {k: v for k, v in (audit.get("by_type") or {}).items()
               if isinstance(v, (int, float))}
    if by_type:
        ordered = sorted(by_type.items(), key=lambda kv: (-kv[1], kv[0]))
        parts.append("<h3>Verdicts by category</h3><figure>" + svg.bar_chart(
            ordered, title="Verdicts by deficiency category", fmt=lambda x: f"{x:g}")
            + "</figure>")
    if records:
        repeated = repeated_keys(records)
        parts.append("<h3>Verdicts</h3>" + "".join(
            verdict_card(r, str(r.get("task_id")) in suspected, record_key(r) in repeated)
            for r in records))
    else:
        parts.append(not_run("No audit records (audit.jsonl) were found."))
    return section("audit", "Audit of failed results", "".join(parts))
