"""report.md: the HTML report's content as text and tables."""

from __future__ import annotations

from judgekit.report.markdown import render_markdown
from judgekit.report.markdown_blocks import cell, fence


def test_markdown_has_every_section_with_judged_parts(judged_dir):
    text = (judged_dir / "report.md").read_text(encoding="utf-8")
    for heading in ("## Warnings", "## Arms", "## Paired comparison", "## Pairwise judging",
                    "## Audit of failed results", "## Results by task"):
        assert heading in text
    assert text.index("## Warnings") < text.index("## Arms")
    assert "**Unscored verdicts: 2.**" in text
    assert "| consistency | 3 | 10 | 7 | 15.0% [5.0%, 40.0%] | 65.0% | 60.0% | 0 |" in text
    assert "**Suspected defective tasks:** ruff-002" in text
    audit = text.split("## Audit of failed results")[1].split("## Results by task")[0]
    assert audit.index("#### ruff-002") < audit.index("#### ruff-003")
    assert "evidence check: quotes NOT found in the materials" in audit
    assert "> running 0 tests" in audit
    assert "no-bobbin nor with-bobbin passed a task the other failed" in text


def test_markdown_without_judging_says_not_run(scored_dir):
    text = (scored_dir / "report.md").read_text(encoding="utf-8")
    assert "_Pairwise judging was not run" in text
    assert "_The audit of failed results was not run" in text
    assert text.count("<details>") == 46


def test_fence_outgrows_backticks_in_content():
    lines = fence("x = '```'\n", "diff")
    assert lines[0] == "````diff" and lines[-1] == "````"


def test_cells_escape_pipes_and_newlines():
    assert cell("a|b\nc") == "a\\|b c"


def test_summary_dict_alone_still_renders():
    text = render_markdown({"results": [], "arms": {}, "comparisons": [], "seed": 0,
                            "warnings": ["w"]})
    assert "## Warnings" in text and "- w" in text
