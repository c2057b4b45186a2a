"""Each result's transcript in the per-task view of report.html and report.md: folded, tool
calls marked, the audit's verified quotes marked in place, everything from the session
escaped, and the shown size capped and said."""

from __future__ import annotations

import re
from pathlib import Path

import markdown
from markdown_it import MarkdownIt

from judgekit import evaluate
from judgekit.audit import AuditRecord
from judgekit.ingest.transcripts import ToolCall, Transcript, Turn
from judgekit.report import write_reports
from judgekit.report.html import render_html
from judgekit.report.load import ReportInputs
from judgekit.report.markdown import render_markdown
from judgekit.report.transcript_view import TRANSCRIPT_CHARS, transcript_view
from tests.audit.helpers import result, write_runs

SCRIPT = "<script>alert(1)</script>"
#: what the agent's test command printed: the audit's judge quotes it
ERROR = "ZeroDivisionError: division by zero"
QUOTE = "zerodivisionerror:  division by zero"  # as a judge quotes: case and spaces differ


def _session() -> Transcript:
    return Transcript(
        format="mini-swe-agent", exit_status="submitted",
        turns=[Turn(role="system", text="You are a helpful agent."),
               Turn(role="user", text=f"Fix div. {SCRIPT}"),
               Turn(role="assistant", text=f"Let me run the tests. {SCRIPT}", tool_calls=[0]),
               Turn(role="tool", text=f"E   {ERROR}"),
               Turn(role="assistant", text="All tests pass now.", tool_calls=[1])],
        tool_calls=[ToolCall(name="bash", arguments={"command": f"pytest -q # {SCRIPT}"},
                             output=f"E   {ERROR}\n{SCRIPT}\n1 failed", exit_code=1),
                    ToolCall(name="bash", arguments={"command": "echo done"},
                             output="done", exit_code=0)],
        final_message="All tests pass now.")


def _audit(evidence: object, not_found: list[str] | None = None) -> AuditRecord:
    return AuditRecord(
        task_id="calc-001", arm="a", attempt=0, run_id="run-1", test_status="failed",
        state="valid", evidence_verified=not not_found, quotes_not_found=not_found or [],
        verdict={"score": 0, "deficiency_exists": False, "deficiency_caused_failure": False,
                 "deficiency_type": "none",
                 "existence_reasoning": "The task is sound.",
                 "causation_reasoning": "The agent's own test run failed.",
                 "evidence": evidence})


def _inputs(tmp_path: Path, *audit: AuditRecord) -> ReportInputs:
    runs = [result("calc-001", "a", "failed").model_copy(update={"session": _session()}),
            result("calc-001", "b", "failed")]
    res = evaluate([write_runs(tmp_path / "runs.json", runs)], keep_runs=True)
    inputs = ReportInputs.from_result(res)
    if audit:
        inputs.records["audit"] = list(audit)
    return inputs


def _transcript_html(page: str) -> str:
    found = re.search(r'<details class="inner transcript">.*?</ol></details>', page, re.S)
    assert found is not None, "no transcript in the page"
    return found.group(0)


def test_a_result_with_a_transcript_shows_it_folded_with_tool_calls_marked(
        tmp_path: Path) -> None:
    page = render_html(_inputs(tmp_path))
    shown = _transcript_html(page)
    assert page.count('<details class="inner transcript">') == 1  # arm b has none
    assert "<summary>mini-swe-agent: 2 turns, 2 tool calls (1 failed), ended submitted" \
        in shown
    roles = re.findall(r'<span class="role">(\w+)</span>', shown)
    assert roles == ["system", "user", "assistant", "assistant"]  # outputs go with calls
    calls = re.findall(r'<div class="tool-call( failed)?"><p class="tool-head">▶ tool call '
                       r'(\d): <code>(\w+)</code> <span class="badge b-\w+">exit (\d)</span>',
                       shown)
    assert calls == [(" failed", "1", "bash", "1"), ("", "2", "bash", "0")]
    assert '<pre class="command">echo done</pre>' in shown
    assert "<mark>" not in shown  # no audit, nothing marked


def test_a_verified_quote_of_a_tool_output_is_marked_in_place(tmp_path: Path) -> None:
    inputs = _inputs(tmp_path, _audit([QUOTE, "the agent claimed success"],
                                      not_found=["the agent claimed success"]))
    shown = _transcript_html(render_html(inputs))
    assert shown.count("<mark>") == 1  # in the output; the unverified quote marks nothing
    assert f'<pre class="output">E   <mark>{ERROR}</mark>\n' in shown
    assert "1 audit quote marked" in shown
    assert "Audit evidence: 1 of 1 verified quote marked in the steps shown." in shown
    md = render_markdown(inputs)
    assert f"E   <mark>{ERROR}</mark>" in md
    for rendered in (MarkdownIt("commonmark", {"html": True}).render(md), markdown.markdown(md)):
        assert f"<mark>{ERROR}</mark>" in rendered


def test_script_in_a_transcript_is_escaped_in_both_reports(tmp_path: Path) -> None:
    res = evaluate([write_runs(tmp_path / "runs.json", [
        result("calc-001", "a", "failed").model_copy(update={"session": _session()})])],
        keep_runs=True)
    out = tmp_path / "out"
    write_reports(res, out)
    page = (out / "report.html").read_text(encoding="utf-8")
    assert page.count("<script") == 1  # the report's own script, at the end of the page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in _transcript_html(page)
    text = (out / "report.md").read_text(encoding="utf-8")
    assert "<script" not in text and "Transcript of calc-001 / a / attempt 0" in text
    for rendered in (MarkdownIt("commonmark", {"html": True}).render(text),
                     markdown.markdown(text),
                     markdown.markdown(text, extensions=["fenced_code", "tables"])):
        assert "<script" not in rendered and "&lt;script&gt;" in rendered


def test_a_long_transcript_is_capped_and_the_cut_said(tmp_path: Path) -> None:
    calls = [ToolCall(name="bash", arguments={"command": f"step {i}"}, output="x" * 5_000,
                      exit_code=0) for i in range(100)]
    t = Transcript(format="demo", turns=[Turn(role="assistant", text="go",
                                              tool_calls=[i]) for i in range(100)],
                   tool_calls=calls)
    view = transcript_view(t)
    assert view.shown_chars <= TRANSCRIPT_CHARS < view.total_chars
    assert view.n_cut >= 1 and view.n_left_out >= 1
    assert len(view.steps) + view.n_left_out == 100
    first = view.steps[0].calls[0].output
    assert first is not None and "characters cut …]" in first.text
    assert first.cut == 3_000
    notes = " ".join(view.notes())
    assert f"Shown: {view.shown_chars:,} of {view.total_chars:,} characters" in notes
    assert f"{view.n_left_out} later steps left out past the cap" in notes


def test_report_md_holds_a_compact_account_of_a_long_transcript(tmp_path: Path) -> None:
    from judgekit.report.transcript_view import MARKDOWN_TRANSCRIPT_CHARS

    long = _session().model_copy(update={"tool_calls": [
        c.model_copy(update={"output": (c.output or "") + "y" * 50_000})
        for c in _session().tool_calls]})
    runs = [result("calc-001", "a", "failed").model_copy(update={"session": long})]
    inputs = ReportInputs.from_result(
        evaluate([write_runs(tmp_path / "runs.json", runs)], keep_runs=True))
    md = render_markdown(inputs)
    part = md[md.index("<summary>Transcript of"):]
    part = part[:part.index("</details>")]
    assert len(part) < MARKDOWN_TRANSCRIPT_CHARS + 2_000
    assert "characters cut …]" in part and "Shown: " in part
    assert "(2 long texts cut); the whole session is in runs.jsonl." in part


def test_a_transcript_renders_in_chromium_with_its_script_inert(tmp_path: Path) -> None:
    from tests.report.browser import open_page

    runs = [result("calc-001", "a", "failed").model_copy(update={"session": _session()})]
    res = evaluate([write_runs(tmp_path / "runs.json", runs)], keep_runs=True)
    out = tmp_path / "out"
    write_reports(res, out)
    load = open_page(out / "report.html", tmp_path, "report-transcript", size="800,600",
                     keep=False)
    assert load.console == [], "console messages:\n" + "\n".join(load.console)
    assert load.page_requests == []
    assert 'data-report-ready="yes"' in load.dom
    assert load.dom.count("<script") == 1  # the report's own; the session's is text
    assert '<div class="tool-call failed">' in load.dom
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in load.dom


def test_the_documented_caps_are_the_ones_applied() -> None:
    from judgekit.report import transcript_view as tv

    doc = (Path(__file__).resolve().parents[2] / "docs" / "reports.md").read_text("utf-8")
    for chars in (tv.TEXT_CHARS, tv.COMMAND_CHARS, tv.OUTPUT_CHARS // 2, tv.TRANSCRIPT_CHARS,
                  tv.MARKDOWN_TRANSCRIPT_CHARS):
        assert f"{chars:,}" in doc
