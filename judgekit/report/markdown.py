"""The Markdown report: the HTML report's content as text and tables.

Rendered from :class:`~judgekit.report.load.ReportInputs` (or from a bare ``summary.json``
dictionary, which gives every section that needs no per-item records).

Example:
    >>> text = render_markdown({"results": [], "arms": {}, "comparisons": []})
    >>> text.splitlines()[0]
    '# judgekit report'
"""

from __future__ import annotations

from typing import Any

from judgekit.report import content as c
from judgekit.report import judged as j
from judgekit.report.format import interval, money, num, pct, seconds
from judgekit.report.load import ReportInputs
from judgekit.report.svg import quantile

#: Lines of a diff (and of test output, from its end) kept in each result's details.
DIFF_LINES = 150
OUTPUT_LINES = 60


def cell(value: object) -> str:
    """A table cell: pipes escaped, newlines flattened."""
    return str(value).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _table(header: list[str], rows: list[list[Any]]) -> list[str]:
    lines = ["| " + " | ".join(cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(v) for v in r) + " |" for r in rows]
    return lines + [""]


def fence(text: str, lang: str = "") -> list[str]:
    """A fenced block whose fence is longer than any backtick run inside ``text``."""
    longest, run = 0, 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
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


def _arms(summary: dict[str, Any]) -> list[str]:
    arms = summary.get("arms") or {}
    if not arms:
        return ["## Arms", "", "_No results were scored._", ""]
    rows = []
    for name, a in arms.items():
        statuses = ", ".join(f"{k} {v}" for k, v in sorted((a.get("status_counts") or {}).items()))
        rows.append([name, a.get("n", 0), f"{pct(a.get('pass_rate'))} "
                     f"{interval(a.get('pass_rate_ci'), True)}", num(a.get("precision")),
                     num(a.get("recall")), f"{num(a.get('f1'))} {interval(a.get('f1_ci'))}",
                     seconds(a.get("duration_median_s")), seconds(a.get("duration_p90_s")),
                     money(a.get("cost_total_usd")), statuses])
    lines = ["## Arms", ""] + _table(
        ["arm", "n", "pass rate [95% CI]", "precision", "recall", "F1 [95% CI]",
         "median duration", "p90 duration", "cost", "test statuses"], rows)
    results = summary.get("results") or []
    dist = []
    for name in arms:
        for label, key, fmt in (("F1", "f1", num), ("duration", "duration_s", seconds)):
            vals = sorted(c.values(results, name, key))
            qs = [fmt(quantile(vals, q)) for q in (0, .25, .5, .75, 1)] if vals else ["–"] * 5
            dist.append([name, label, len(vals), *qs])
    lines += ["Distribution per arm:", ""] + _table(
        ["arm", "measure", "n", "min", "q1", "median", "q3", "max"], dist)
    return lines


def _comparisons(summary: dict[str, Any]) -> list[str]:
    lines = ["## Paired comparison", ""]
    comps = summary.get("comparisons") or []
    if not comps:
        return lines + ["_Only one arm: there is nothing to compare._", ""]
    for comp in comps:
        lines += [f"**{comp['arm_a']} vs {comp['arm_b']}**: {c.pass_sentence(comp)} "
                  f"{c.f1_sentence(comp)}", ""]
    return lines


def _pairwise(summary: dict[str, Any]) -> list[str]:
    lines = ["## Pairwise judging", ""]
    views = j.pairwise_views(summary)
    if not views:
        return lines + ["_Pairwise judging was not run (use `judgekit judge` with "
                        "`--judge MODEL`)._", ""]
    run_line = j.pairwise_run_line(summary)
    lines += [run_line, ""] if run_line else []
    for v in views:
        rows = [[dim, s.get("wins_a", 0), s.get("draws", 0), s.get("wins_b", 0), j.win_rate(s),
                 pct(s.get("position_consistency")), pct(s.get("first_slot_preference")),
                 j.unscored_count(s)] for dim, s in v.dimensions]
        lines += [f"### {v.name}", ""] + _table(
            ["dimension", f"{v.arm_a} wins", "draws", f"{v.arm_b} wins",
             f"{v.arm_a} win rate [95% CI]", "position-consistency", "first-slot preference",
             "no verdict"], rows)
    ranked = j.rankings(summary)
    if ranked:
        dims = list(ranked)
        rows = []
        for arm, _ in ranked[dims[0]]:
            rows.append([arm] + [f"#{[a for a, _ in ranked[d]].index(arm) + 1} "
                                 f"({dict(ranked[d]).get(arm, 0):.3f})" for d in dims])
        lines += ["### Ranking (Bradley–Terry, strength in brackets)", ""] + _table(
            ["arm", *dims], rows)
    return lines


def _verdict(rec: dict[str, Any], suspected: set[str], with_run: bool = False) -> list[str]:
    v = rec.get("verdict") or {}
    tid = str(rec.get("task_id"))
    head = "#### " + j.record_title(rec, with_run, " / ")
    if tid in suspected:
        head += " (suspected defective task)"
    state = rec.get("state", "valid")
    calls = (f"0 ({rec.get('tries')} from the cache)" if rec.get("cached") is True
             else rec.get("tries", "–"))
    lines = [head, "", f"- state: {state}; judge calls: {calls}"]
    if (rec.get("samples") or 1) > 1:
        lines.append(f"- samples: {rec['samples']}, {pct(rec.get('agreement'))} agree with "
                     "the majority")
    if rec.get("reason"):
        lines.append(f"- reason: {rec['reason']}")
    if state == "valid" and v:
        ife = v.get("score") == 1
        kind = rec.get("deficiency_type") or v.get("deficiency_type")
        found = ("quotes found in the materials" if rec.get("evidence_verified")
                 else "quotes NOT found in the materials")
        lines += [f"- score: {v.get('score')} "
                  f"({'task defect caused the failure' if ife else 'agent failure'}); "
                  f"defect exists: {v.get('deficiency_exists')}; caused the failure: "
                  f"{v.get('deficiency_caused_failure')}; category: {kind}",
                  f"- evidence check: {found}"]
    lines.append("")
    for key, label in (("existence_reasoning", "Does a defect exist?"),
                       ("causation_reasoning", "Did it cause the failure?")):
        if v.get(key):
            lines += [f"*{label}* {v[key]}", ""]
    missing = set(rec.get("quotes_not_found") or [])
    for q in j.evidence_list(v):
        lines += ["> " + line for line in q.splitlines() or [""]]
        lines += ([">", "> _(not found in the materials)_"] if q in missing else []) + [""]
    return lines


def _audit(inputs: ReportInputs) -> list[str]:
    lines = ["## Audit of failed results", ""]
    audit = inputs.summary.get("audit")
    if not isinstance(audit, dict):
        return lines + ["_The audit of failed results was not run (use `judgekit audit` or "
                        "`judgekit judge` with `--judge MODEL`)._", ""]
    suspected, kinds = j.suspected_ids(audit), j.suspected_types(audit)
    lines += [f"{audit.get('n_failed', '–')} failed results audited: "
              f"{audit.get('n_valid', '–')} valid verdicts, {audit.get('n_ife', '–')} blame a "
              f"task defect, {audit.get('n_unscored', '–')} unscored, "
              f"{audit.get('n_error', '–')} errors.", ""]
    records = j.sorted_audit(inputs)
    run_line = j.audit_run_line(audit, records)
    lines += [run_line, ""] if run_line else []
    if suspected:
        named = [f"{t} ({kinds[t]})" if t in kinds else t for t in suspected]
        lines += [f"**Suspected defective tasks:** {', '.join(named)}", ""]
    else:
        lines += ["No task is suspected of being defective.", ""]
    by_type = audit.get("by_type") or {}
    if by_type:
        lines += _table(["category", "verdicts"],
                        [[k, n] for k, n in sorted(by_type.items(), key=lambda kv: -kv[1])])
    if records:
        lines += ["### Verdicts", ""]
        repeated = j.repeated_keys(records)
        for rec in records:
            lines += _verdict(rec, set(suspected), j.record_key(rec) in repeated)
    return lines


def _result_details(entry: c.ResultEntry) -> list[str]:
    run, s = entry.run, entry.scored
    if run is None:
        return []
    title = f"{s.get('task_id')} / {s.get('arm')} / attempt {s.get('attempt', 0)}: diff and test output"
    lines = ["<details>", f"<summary>{title.replace('<', '&lt;')}</summary>", ""]
    diff = (run.agent_diff or "").splitlines()
    if diff:
        more = f" (first {DIFF_LINES} of {len(diff)} lines)" if len(diff) > DIFF_LINES else ""
        lines += [f"Agent diff{more}:", ""] + fence("\n".join(diff[:DIFF_LINES]), "diff") + [""]
    out = ((run.test.output if run.test else None) or "").splitlines()
    if out:
        more = f" (last {OUTPUT_LINES} of {len(out)} lines)" if len(out) > OUTPUT_LINES else ""
        lines += [f"Test output{more}:", ""] + fence("\n".join(out[-OUTPUT_LINES:])) + [""]
    if not diff and not out:
        lines += ["No diff or test output was kept.", ""]
    return lines + ["</details>", ""]


def _results(inputs: ReportInputs) -> list[str]:
    views = c.task_views(inputs)
    rows, details = [], []
    for v in views:
        for en in v.entries:
            r = en.scored
            verdicts = ", ".join(
                str(x.get("state")) if x.get("state", "valid") != "valid" else
                f"defect: {(x.get('verdict') or {}).get('deficiency_type')}"
                if (x.get("verdict") or {}).get("score") == 1 else "agent failure"
                for x in en.verdicts) or "–"
            rows.append([r["task_id"], r["arm"], r.get("attempt", 0), r.get("test_status"),
                         num(r.get("precision")), num(r.get("recall")), num(r.get("f1")),
                         seconds(r.get("duration_s")), r.get("run_id") or "–", verdicts])
            details += _result_details(en)
    lines = ["## Results by task", ""] + _table(
        ["task", "arm", "attempt", "test", "precision", "recall", "F1", "duration", "run",
         "verdicts"], rows)
    return lines + (["### Diffs and test output", ""] + details if details else [])


def render_markdown(inputs: ReportInputs | dict[str, Any]) -> str:
    """Render the report; judged sections say "not run" when their data is absent."""
    if not isinstance(inputs, ReportInputs):
        inputs = ReportInputs(summary=inputs)
    s = inputs.summary
    results = s.get("results") or []
    lines = ["# judgekit report", "",
             f"{len(results)} results, {len({r.get('task_id') for r in results})} tasks, "
             f"{len(s.get('arms') or {})} arms.", ""]
    for note in s.get("notes") or []:
        lines += [f"> {note}", ""]
    lines += _warnings(inputs) + _arms(s) + _comparisons(s) + _pairwise(s) + _audit(inputs)
    lines += _results(inputs)
    return "\n".join(lines)
