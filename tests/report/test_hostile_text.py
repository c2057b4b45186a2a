"""Text from data (arm and task names, verdict text) is inert in report.md rendered by a
Markdown renderer that lets HTML through, in report.html, and on the terminal."""

from __future__ import annotations

import io
import re
from pathlib import Path

import markdown
from markdown_it import MarkdownIt
from rich.console import Console

from judgekit import evaluate
from judgekit.cli._output import closing_lines
from judgekit.report import write_reports
from judgekit.report.format import printable
from judgekit.report.markdown import render_markdown
from judgekit.report.markdown_blocks import md
from judgekit.report.pairwise_terminal import print_pairwise
from judgekit.report.terminal import print_summary
from judgekit.summary import summary_of
from tests.audit.helpers import result, write_runs

SCRIPT = "<script>alert(1)</script>"
ESCAPES = "\x1b]0;pwned\x07\x1b[2J\x1b[31m\x9b1m\x07\r"
ARM = f"{SCRIPT}*bold*{ESCAPES}[/]"
TASK = f"t-{SCRIPT}_x_{ESCAPES}"
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _renderings(text: str) -> list[str]:
    """report.md as renderers that pass raw HTML through show it: CommonMark, and
    Python-Markdown bare (no fenced code: a ``<details>`` block is passed through whole)
    and with its usual extensions."""
    return [MarkdownIt("commonmark", {"html": True}).render(text), markdown.markdown(text),
            markdown.markdown(text, extensions=["fenced_code", "tables"])]


#: A diff that would end a fence, open raw HTML and hold blank lines.
DIFF = ("diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1,5 @@\n+```\n+"
        + SCRIPT + "\n\n+</pre></details><img src=x onerror=alert(2)>\n+*x*\n")


def _hostile_runs(tmp_path: Path) -> Path:
    runs = [result(t, arm, kind) for t, kind in ((TASK, "failed"), ("calc-2", "passed"))
            for arm in (ARM, "plain")]
    runs = [r.model_copy(update={"agent_diff": DIFF}) for r in runs]
    return write_runs(tmp_path / "runs.json", runs)


def test_md_escapes_html_and_markdown_of_data() -> None:
    assert md("<b>&") == "&lt;b&gt;&amp;"
    assert md("*a* _b_ `c` [x](http://e) [y]: z") == \
        "\\*a\\* \\_b\\_ \\`c\\` [x\\](http://e) [y\\]: z"
    assert md("# h\n- item\n1. one") == "\\# h\n\\- item\n1\\. one"


def test_script_in_arm_and_task_is_inert_in_report_md_and_html(tmp_path: Path) -> None:
    res = evaluate([_hostile_runs(tmp_path)], keep_runs=True)
    out = tmp_path / "out"
    write_reports(res, out)
    for rendered in _renderings((out / "report.md").read_text(encoding="utf-8")):
        assert "<script" not in rendered and "&lt;script&gt;" in rendered
        assert "<em>bold</em>" not in rendered and "*bold*" in rendered
        assert "_x_" in rendered
        assert "<img" not in rendered and "+&lt;/pre&gt;&lt;/details&gt;&lt;img" in rendered
    page = (out / "report.html").read_text(encoding="utf-8")
    assert page.count("<script") == 1  # the report's own script, at the end of the page
    assert SCRIPT not in page


def test_script_in_verdict_text_is_inert_in_report_md(judged_dir: Path) -> None:
    text = (judged_dir / "report.md").read_text(encoding="utf-8")
    assert "<script" not in text and "<img" not in text
    for rendered in _renderings(text):
        assert "<script" not in rendered and "<img" not in rendered
        assert "&lt;script&gt;" in rendered
    page = (judged_dir / "report.html").read_text(encoding="utf-8")
    assert page.count("<script") == 1 and "<img" not in page


def test_terminal_output_has_no_control_sequence_from_data(tmp_path: Path) -> None:
    res = evaluate([_hostile_runs(tmp_path)])
    summary = summary_of(res)
    buffer = io.StringIO()
    console = Console(file=buffer, width=200, force_terminal=False)
    print_summary(summary, console=console)  # "[/]" in an arm name is no markup error
    print_pairwise(summary, console=console)
    printed = buffer.getvalue() + "\n".join(
        closing_lines(summary, tmp_path / "out" / "report.html", judging_skipped=True))
    assert not CONTROL.search(printed.replace("\n", "").replace("\t", ""))
    assert f"{SCRIPT}*bold*[/]" in printed  # the text stays; the sequences go, whole
    assert "pwned" not in printed


def test_printable_strips_sequences_and_controls_but_keeps_text() -> None:
    assert printable("a\x1b]0;title\x07b") == "ab"
    assert printable("\x1b[2J\x1b[31mred\x1b[0m") == "red"
    assert printable("x\x9b31my\x1bPdcs\x1b\\z") == "xyz"
    assert printable("tab\tnew\nline\r\x00\x7f") == "tab\tnew\nline"
    assert printable("\u202eevil") == "evil"
    assert printable("naïve – ok") == "naïve – ok"


def test_pairwise_terminal_strips_sequences_from_judge_text(judged_dir: Path) -> None:
    from judgekit.report.load import load_summary

    summary = load_summary(judged_dir / "summary.json")
    rel = summary.pairwise.judge_reliability
    rel.message = f"leans first {ESCAPES}[/]{SCRIPT}"
    summary.pairwise_run.judge = f"judge{ESCAPES}[bold]"
    buffer = io.StringIO()
    print_pairwise(summary, console=Console(file=buffer, width=200, force_terminal=False))
    printed = buffer.getvalue()
    assert not CONTROL.search(printed.replace("\n", ""))
    assert f"leans first [/]{SCRIPT}" in printed and "judge[bold]" in printed
