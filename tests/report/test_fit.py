"""The HTML report fits: no horizontal scrollbar on the page at 1280x800 or at a phone's
width in headless Chromium (tables scroll inside their own box); a pair whose every
pairwise verdict is a draw, and patch size without a win, are one line each."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from judgekit.report.html import render_html
from judgekit.report.load import ReportInputs
from judgekit.report.markdown import render_markdown
from tests.report.browser import open_page

#: Written into a copy of the page: the page's width beside the window's, once laid out.
PROBE = ("<script>addEventListener('load', () => document.body.setAttribute('data-fit', "
         "document.documentElement.scrollWidth + '/' + innerWidth));</script>")


def _widths(report: Path, work: Path, size: str) -> tuple[int, int]:
    page = work / f"probe-{size.replace(',', 'x')}.html"
    work.mkdir(parents=True, exist_ok=True)
    page.write_text(report.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"),
                    encoding="utf-8")
    load = open_page(page, work, page.stem, size=size, keep=False)
    found = re.search(r'data-fit="(\d+)/(\d+)"', load.dom)
    assert found, "the probe did not run"
    return int(found.group(1)), int(found.group(2))


@pytest.mark.parametrize("size", ["1280,800", "390,844"])
@pytest.mark.parametrize("which", ["scored_dir", "judged_dir"])
def test_report_has_no_horizontal_scrollbar(which: str, size: str, request: pytest.FixtureRequest,
                                            tmp_path: Path) -> None:
    out: Path = request.getfixturevalue(which)
    page_width, window = _widths(out / "report.html", tmp_path, size)
    assert page_width <= window, f"{which} at {size}: page {page_width}px in {window}px"


def _draw() -> dict:
    return {"wins_a": 0, "wins_b": 0, "draws": 3, "losses_a": 0, "n": 3, "win_rate_a": 0.5,
            "win_rate_a_ci": [0.125, 0.875], "position_consistency": 1.0}


def _size() -> dict:
    return {"n": 3, "sizes_differ": 3, "arm_effect": {"estimate": 0.0, "ci": [-1.75, 1.75]},
            "win_rate_a": 0.5, "by_ratio": [{"bin": "a smaller", "win_rate_a": 0.5,
                                              "ci": [0.125, 0.875], "n": 3}]}


DIMS = ("consistency", "completeness", "minimality")
ALL_DRAWS = {"results": [], "arms": {}, "comparisons": [], "seed": 0,
             "pairwise": {"a vs b": {d: _draw() for d in DIMS}},
             "pairwise_size": {"a vs b": {d: _size() for d in DIMS}}}


def test_a_pair_of_draws_and_its_patch_size_are_one_line_each() -> None:
    inputs = ReportInputs.of(ALL_DRAWS)
    text = render_markdown(inputs)
    part = text[text.index("## Pairwise judging"):text.index("## Audit")]
    said = [line for line in part.splitlines()[1:] if line.strip()]
    assert said == [
        "a vs b: every verdict was a draw (9 draws in consistency, completeness, "
        "minimality); neither arm won a comparison.",
        "Patch size: every pairwise verdict was a draw, so there is no win for patch size "
        "to explain."]
    page = render_html(inputs)
    pairwise = page[page.index('id="pairwise"'):page.index('id="audit"')]
    assert "<svg" not in pairwise and "<table" not in pairwise
    assert pairwise.count('class="collapsed"') == 2


def test_a_pair_with_a_win_keeps_its_tables() -> None:
    summary = {**ALL_DRAWS, "pairwise": {"a vs b": {**{d: _draw() for d in DIMS},
                                                    "minimality": {**_draw(), "wins_a": 1}}}}
    text = render_markdown(ReportInputs.of(summary))
    assert "| minimality | 1 | 3 | 0 |" in text and "## Patch size" in text
