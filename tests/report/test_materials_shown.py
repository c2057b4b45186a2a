"""A result judged by its benchmark's own verdict (no diff, no test run) shows what the
benchmark kept instead: its evaluation log and other materials."""

from __future__ import annotations

from judgekit import evaluate
from judgekit.report.html_tasks import tasks_section
from judgekit.report.load import ReportInputs
from judgekit.report.markdown import render_markdown
from judgekit.ingest.models import RunResult, Task

LOG = "Traceback (most recent call last):\nModuleNotFoundError: No module named 'esda'"


def inputs() -> ReportInputs:
    result = RunResult(task=Task(id="33"), arm="sab", success=False,
                       materials={"evaluation log": LOG, "gold program": "import esda <ok>"})
    return ReportInputs.from_result(evaluate([result]))


def test_markdown_shows_the_materials_of_a_benchmark_verdict() -> None:
    md = render_markdown(inputs())
    assert "Evaluation log:" in md and "ModuleNotFoundError: No module named 'esda'" in md
    assert "Gold program:" in md
    assert "No diff or test output was kept." not in md


def test_html_shows_the_materials_escaped() -> None:
    html = tasks_section(inputs())
    assert "<summary>evaluation log</summary>" in html
    assert "No module named &#x27;esda&#x27;" in html
    assert "import esda &lt;ok&gt;" in html
