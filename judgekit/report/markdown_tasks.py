"""The results of the Markdown report: one table row per result, then each result's diff,
test output and materials, and its transcript (:mod:`judgekit.report.markdown_transcript`),
folded: inside ``<details>`` everything is HTML, escaped, so that
it is inert whether a renderer reads the block as Markdown or passes it through as HTML.

Example:
    >>> from judgekit.report.load import ReportInputs
    >>> results_lines(ReportInputs.of({"results": [], "arms": {}, "comparisons": [],
    ...                                "seed": 0}))[0]
    '## Results by task'
"""

from __future__ import annotations

from html import escape

from judgekit.report.content import ResultEntry, results_cut_sentence, task_views
from judgekit.report.format import num, seconds
from judgekit.report.judged import verdict_of
from judgekit.report.load import ReportInputs
from judgekit.report.markdown_blocks import md, pre, table
from judgekit.report.markdown_transcript import transcript_lines
from judgekit.report.transcript_view import MARKDOWN_TRANSCRIPT_CHARS, shown_transcript
from judgekit.ingest import RunResult
from judgekit.scoring import ScoredResult

#: Lines of a diff (and of test output, from its end) kept in each result's details.
DIFF_LINES = 150
OUTPUT_LINES = 60


def _tail(name: str, body: list[str]) -> list[str]:
    """The last lines of ``body`` under a heading that says how many were kept."""
    more = f" (last {OUTPUT_LINES} of {len(body)} lines)" if len(body) > OUTPUT_LINES else ""
    return [f"<p>{escape(name + more, quote=False)}:</p>", ""] + pre(
        "\n".join(body[-OUTPUT_LINES:])) + [""]


def result_details(s: ScoredResult, run: RunResult | None) -> list[str]:
    """One result's diff, test output and materials, folded (no verdict changes them)."""
    if run is None:
        return []
    title = f"{s.task_id} / {s.arm} / attempt {s.attempt}: diff and test output"
    lines = ["<details>", f"<summary>{escape(title, quote=False)}</summary>", ""]
    diff = (run.agent_diff or "").splitlines()
    if diff:
        more = f" (first {DIFF_LINES} of {len(diff)} lines)" if len(diff) > DIFF_LINES else ""
        lines += [f"<p>Agent diff{more}:</p>", ""] + pre("\n".join(diff[:DIFF_LINES])) + [""]
    out = ((run.test.output if run.test else None) or "").splitlines()
    if out:
        lines += _tail("Test output", out)
    for name, text in sorted(run.materials.items()):
        lines += _tail(f"{name[:1].upper()}{name[1:]}", text.splitlines())
    if not diff and not out and not run.materials:
        lines += ["<p>No diff or test output was kept.</p>", ""]
    return lines + ["</details>", ""]


def _verdicts(entry: ResultEntry) -> str:
    """The audit verdicts about one result, in a few words each."""
    return ", ".join(
        x.state if x.state != "valid" else
        f"defect: {verdict_of(x).deficiency_type}" if verdict_of(x).score == 1
        else "agent failure"
        for x in entry.verdicts) or "–"


def results_lines(inputs: ReportInputs) -> list[str]:
    """The results section: the table, then the details of every result with a run."""
    prepared = inputs.prepared
    rows, details = [], []
    n_transcripts = 0
    for v in task_views(inputs):
        for en in v.entries:
            r = en.scored
            rows.append([r.task_id, r.arm, r.attempt, r.test_status, num(r.precision),
                         num(r.recall), num(r.f1), seconds(r.duration_s), r.run_id or "–",
                         _verdicts(en)])
            ready = prepared.markdown(r, en.run) if prepared is not None else None
            details += ready if ready is not None else result_details(r, en.run)
            shown = (shown_transcript(en.run.session, en.verdicts,
                                      cap=MARKDOWN_TRANSCRIPT_CHARS) if en.run else None)
            if shown is not None:  # marks the verdicts' quotes: made with them, never ahead
                n_transcripts += 1
                details += transcript_lines(f"{r.task_id} / {r.arm} / attempt {r.attempt}",
                                            shown)
    cut = results_cut_sentence(inputs)
    lines = ["## Results by task", "", *([md(cut), ""] if cut else [])] + table(
        ["task", "arm", "attempt", "test", "precision", "recall", "F1", "duration", "run",
         "verdicts"], rows)
    heading = ("### Diffs, test output and transcripts" if n_transcripts
               else "### Diffs and test output")
    return lines + ([heading, ""] + details if details else [])
