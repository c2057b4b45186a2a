"""The per-task table of the HTML report: one row per result, details that open.

Each result's details hold its diff, the ground-truth diff, the test output, the materials
kept for audits (evaluation log, ...), the agent's transcript (folded, tool calls marked, the
audit's verified quotes marked in place) and the verdicts about it (audit verdicts, and
pairwise verdicts of pairs it took part in).
"""

from __future__ import annotations

from judgekit.pairwise import DimensionRecord, PairRecord
from judgekit.report.content import ResultEntry, TaskView, results_cut_sentence, task_views
from judgekit.report.format import money, num, seconds
from judgekit.report.html_judged import verdict_card
from judgekit.report.html_transcript import transcript_details
from judgekit.report.judged import record_key, repeated_keys, verdict_of
from judgekit.report.load import ReportInputs
from judgekit.report.markup import Raw, badge, e, not_run, pre, section, section_ends
from judgekit.report.parts_cache import PartsCache
from judgekit.report.transcript_view import shown_transcript
from judgekit.ingest import RunResult
from judgekit.scoring import ScoredResult

#: Characters of each material shown (its end: logs say last what went wrong).
MATERIAL_CHARS = 20_000

COLUMNS = ("task", "arm", "attempt", "test", "precision", "recall", "F1", "duration", "cost",
           "verdicts")


def _files(scored: ScoredResult) -> str:
    touched = set(scored.files_touched)
    truth = set(scored.ground_truth_files)
    left = scored.files_excluded
    left_out = (f'<p class="muted">Left out as agent-CLI or harness bookkeeping: '
                f'{e(", ".join(left))}</p>' if left else "")
    if not touched and not truth:
        return f"<h5>Files</h5>{left_out}" if left_out else ""
    rows = "".join(
        f'<li class="{"hit" if f in touched and f in truth else "extra" if f in touched else "miss"}"'
        f">{e(f)} <span class=\"muted\">"
        f'{"both" if f in touched and f in truth else "agent only" if f in touched else "fix only"}'
        "</span></li>" for f in sorted(touched | truth))
    return f"<h5>Files</h5><ul class=\"files\">{rows}</ul>{left_out}"


def _pair_rows(r: PairRecord) -> str:
    """One row per dimension; for a jury, the jury's row then each judge's."""
    rows = []
    name = f"{r.arm_a} vs {r.arm_b}" + (" (jury)" if r.judges else "")
    for dim, d in r.dimensions.items():
        rows.append(_dimension_row(name, dim, d))
        for label, judge in (r.judges or {}).items():
            if dim in judge.dimensions:
                rows.append(_dimension_row(f"judge {label}", dim, judge.dimensions[dim]))
    return "".join(rows)


def _dimension_row(name: str, dim: str, d: DimensionRecord) -> str:
    reasons = " / ".join(t for t in (d.reasoning1, d.reasoning2) if t)
    return (f"<tr><td>{e(name)}</td><td>{e(dim)}</td><td>{e(d.winner)}</td>"
            f"<td>{e(d.order1 or '–')} / {e(d.order2 or '–')}</td>"
            f"<td>{'yes' if d.position_bias else 'no'}</td>"
            f"<td>{e(d.state)}</td><td>{e(reasons)}</td></tr>")


def _pairwise(entry: ResultEntry, records: list[PairRecord], rendered: dict[int, str]) -> str:
    """The verdicts of the pairs ``entry`` took part in; each record's rows are rendered
    once (``rendered``, by record) for both of its results."""
    arm, attempt = entry.scored.arm, entry.scored.attempt

    def involves(r: PairRecord) -> bool:
        return (r.arm_a, r.attempt_a) == (arm, attempt) or (r.arm_b, r.attempt_b) == (arm, attempt)

    mine = [r for r in records if involves(r)]
    if not mine:
        return ""
    rows = []
    for r in mine:
        if (got := rendered.get(id(r))) is None:
            got = rendered[id(r)] = _pair_rows(r)
        rows.append(got)
    return ("<h5>Pairwise verdicts</h5><table class=\"inner\"><thead><tr><th>pair</th>"
            "<th>dimension</th><th>winner</th><th>order 1 / order 2</th><th>position bias</th>"
            f"<th>state</th><th>reasoning</th></tr></thead><tbody>{''.join(rows)}</tbody></table>")


def _test_output(run: RunResult) -> str:
    test = run.test
    if test is None:
        return not_run("The test command did not run.")
    facts = [f"exit code {test.exit_code}" if test.exit_code is not None else "",
             "timed out" if test.timed_out else ""]
    if test.counts is not None:
        c = test.counts
        facts.append(f"counts kept: {c.passed} passed, {c.failed} failed, {c.skipped} skipped, "
                     f"{c.errors} errors")
    head = f'<p class="muted">{e("; ".join(f for f in facts if f))}</p>'
    if not test.output:
        return head + not_run("No test output was kept for this result.")
    out = test.output
    if len(out) > 60_000:
        out = "[… start cut; the full output is in runs.jsonl …]\n" + out[-60_000:]
    return head + pre(out, "output", limit=len(out))


def _materials(run: RunResult) -> str:
    """What the benchmark kept for audits (evaluation log, gold program, ...), folded."""
    if not run.materials:
        return ""

    def tail(text: str) -> str:
        if len(text) <= MATERIAL_CHARS:
            return text
        return "[… start cut; the full text is in runs.jsonl …]\n" + text[-MATERIAL_CHARS:]

    return "<h5>Materials</h5>" + "".join(
        f'<details class="inner"><summary>{e(name)}</summary>'
        f'{pre(tail(text), "output", limit=MATERIAL_CHARS + 100)}</details>'
        for name, text in sorted(run.materials.items()))


def static_details(scored: ScoredResult, run: RunResult | None) -> str:
    """The part of a result's details no verdict changes: facts, files, diffs, test output,
    materials (what :class:`~judgekit.report.prepare.PreparedParts` renders ahead)."""
    parts = []
    if run is not None:
        t = run.task
        facts = [("repository", t.repo), ("commit", t.commit), ("test command", t.test_command),
                 ("serving model", run.model), ("harness", run.harness_status)]
        dl = "".join(f"<dt>{e(k)}</dt><dd>{e(v)}</dd>" for k, v in facts if v)
        parts.append(f'<dl class="facts">{dl}</dl>')
        if t.description:
            parts.append(f"<h5>Task description</h5><p class=\"reasoning\">{e(t.description)}</p>")
        if run.harness_error:
            parts.append(f"<h5>Harness error</h5>{pre(run.harness_error)}")
    parts.append(_files(scored))
    if scored.test_reason:
        parts.append(f"<p><strong>Test outcome:</strong> {e(scored.test_status)} — "
                     f"{e(scored.test_reason)}</p>")
    if run is not None:
        parts.append("<h5>Agent diff</h5>" + (pre(run.agent_diff, "diff", diff=True)
                                              if run.agent_diff else not_run("No diff kept.")))
        if run.ground_truth_diff:
            parts.append("<details class=\"inner\"><summary>Ground-truth diff</summary>"
                         f"{pre(run.ground_truth_diff, 'diff', diff=True)}</details>")
        parts.append("<h5>Test output</h5>" + _test_output(run))
        parts.append(_materials(run))
    else:
        parts.append(not_run("The run (diff, test output) is not in this directory's "
                             "runs.jsonl."))
    return "".join(parts)


def _details(entry: ResultEntry, view: TaskView, prepared: PartsCache | None,
             pairwise: dict[int, str]) -> list[str]:
    static = prepared.html(entry.scored, entry.run) if prepared is not None else None
    parts = [static if static is not None else static_details(entry.scored, entry.run)]
    shown = shown_transcript(entry.run.session, entry.verdicts) if entry.run else None
    if shown is not None:  # marks the verdicts' quotes: rendered with them, never ahead
        parts.append(transcript_details(shown))
    if entry.verdicts:
        repeated = repeated_keys(entry.verdicts)
        parts.append("<h5>Audit verdicts</h5>" + "".join(
            verdict_card(v, with_run=record_key(v) in repeated) for v in entry.verdicts))
    parts.append(_pairwise(entry, view.pairwise, pairwise))
    return parts


def _verdict_summary(entry: ResultEntry) -> str:
    out = []
    for v in entry.verdicts:
        verdict = verdict_of(v)
        if v.state != "valid":
            out.append(badge(v.state, "unscored"))
        elif verdict.score == 1:
            out.append(badge(f"defect: {verdict.deficiency_type or '?'}", "ife"))
        else:
            out.append(badge("agent's failure", "agent"))
    return "".join(out) or "–"


def _row(entry: ResultEntry, view: TaskView, first: bool, prepared: PartsCache | None,
         pairwise: dict[int, str]) -> list[str]:
    s = entry.scored
    anchor = f' id="task-{e(view.task_id)}"' if first else ""
    status = str(s.test_status)
    task_cell = (f'<td class="task{"" if first else " repeat"}"{anchor}>{e(view.task_id)}</td>')
    cells = [s.arm, s.attempt]
    nums = [num(s.precision), num(s.recall), num(s.f1), seconds(s.duration_s),
            money(s.cost_usd)]
    text = " ".join(str(x) for x in (view.task_id, s.arm, status, s.run_id or ""))
    row = (f'<tr class="result" data-status="{e(status)}" data-text="{e(text.lower())}">'
           f"{task_cell}<td>{e(cells[0])}</td><td class=\"num\">{e(cells[1])}</td>"
           f"<td>{badge(status)}</td>"
           + "".join(f'<td class="num">{e(n)}</td>' for n in nums)
           + f"<td>{_verdict_summary(entry)}</td></tr>")
    shown = entry.run is not None and entry.run.session is not None \
        and entry.run.session.format != "raw"
    label = ("diff, test output" + (", transcript" if shown else "")
             + (", verdicts" if entry.verdicts or view.pairwise else ""))
    if s.run_id:
        label += f" · run {s.run_id}"
    detail = (f'<tr class="detail" data-status="{e(status)}" data-text="{e(text.lower())}">'
              f'<td colspan="{len(COLUMNS)}"><details><summary>{e(label)}</summary>'
              '<div class="detail-body">')
    return [row, detail, *_details(entry, view, prepared, pairwise), "</div></details></td></tr>"]


def tasks_section_parts(inputs: ReportInputs) -> list[str]:
    """The per-task section as pieces in page order (a report's bulk: written piece by
    piece, never joined into one string)."""
    views = task_views(inputs)
    if not views:
        return [section("tasks", "Results by task", not_run("No results."))]
    statuses = sorted({str(en.scored.test_status) for v in views for en in v.entries})
    options = "".join(f'<option value="{e(s)}">{e(s)}</option>' for s in statuses)
    controls = ('<div class="controls"><label>Filter <input type="search" id="filter" '
                'placeholder="task, arm or run"></label> <label>Test <select id="status">'
                f'<option value="">all</option>{options}</select></label> '
                '<button type="button" id="expand">Open all</button> '
                '<button type="button" id="collapse">Close all</button></div>')
    head = "".join(f"<th>{e(c)}</th>" for c in COLUMNS)
    opening, closing = section_ends("tasks", "Results by task")
    cut = results_cut_sentence(inputs)
    note = f'<p class="note" id="results-cut">{e(cut)}</p>' if cut else ""
    parts = [opening, f'{note}{controls}<table class="tasks"><thead><tr>{head}</tr></thead>']
    pairwise: dict[int, str] = {}
    for v in views:
        parts.append('<tbody class="task-group">')
        for i, en in enumerate(v.entries):
            parts += _row(en, v, i == 0, inputs.prepared, pairwise)
        parts.append("</tbody>")
    parts += ["</table>", closing]
    return parts


def tasks_section(inputs: ReportInputs) -> Raw:
    """The per-task section: one row per result, details that open."""
    return Raw("".join(tasks_section_parts(inputs)))
