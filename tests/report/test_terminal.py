"""The terminal summary names the caller's options as the caller spells them."""

from __future__ import annotations

import io
from collections.abc import Callable

from rich.console import Console

from judgekit.report.terminal import print_summary
from judgekit.summary import EvalSummary


def _printed(spell: Callable[[str], str | None] | None = None) -> str:
    summary = EvalSummary.model_validate({"results": [], "arms": {}, "comparisons": [],
                                          "seed": 0, "warnings": [f"w{i}" for i in range(10)]})
    out = io.StringIO()
    print_summary(summary, Console(file=out, width=200), max_warnings=8, spell=spell)
    return out.getvalue()


def test_the_warnings_left_out_point_to_the_flag_the_caller_spells() -> None:
    text = _printed(spell=lambda name: "--json" if name == "json" else None)
    assert "… and 2 more (all of them are in --json output and report.md)" in text


def test_without_a_spelling_the_option_is_named_by_its_keyword() -> None:
    assert "(all of them are in json output and report.md)" in _printed()
