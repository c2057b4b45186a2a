"""The reports render each registered step's part, given by its descriptor, in the steps'
order: the page names no step, so a step added to the registry with a part is rendered
without touching the page."""

from __future__ import annotations

import re

import pytest
from pydantic import BaseModel

from judgekit.report import step_parts
from judgekit.report.html import render_html
from judgekit.report.load import ReportInputs
from judgekit.report.markdown import render_markdown
from judgekit.step_registry import STEPS
from judgekit.steps import ReportPart, StepKind
from tests.report.conftest import judged_result


class _Line(BaseModel):
    n: int


def test_every_step_with_records_has_a_part_its_section_and_its_link() -> None:
    page = render_html(ReportInputs.from_result(judged_result()))
    for kind in STEPS:
        if kind.records_file is None:
            continue
        part = kind.report
        assert part is not None, kind.name
        assert f'<a href="#{part.anchor}">{part.title}</a>' in page
        assert re.search(f'<section[^>]* id="{part.anchor}"', page), part.anchor


def test_a_registered_step_with_a_part_is_rendered_after_the_others(
        monkeypatch: pytest.MonkeyPatch) -> None:
    extra: StepKind[_Line, _Line] = StepKind("items", _Line, _Line, "items.jsonl")
    extra.set_report(ReportPart[ReportInputs](
        anchor="items", title="Items", markdown=lambda inputs: ["## Items", "", "3 items", ""],
        html=lambda inputs: '<section id="items"><h2>Items</h2></section>',
        top_markdown=lambda inputs: ["> items first", ""],
        top_html=lambda inputs: '<aside id="items-top"></aside>'))
    monkeypatch.setattr(step_parts, "STEPS", (*STEPS, extra))
    inputs = ReportInputs.from_result(judged_result())
    md = render_markdown(inputs)
    assert md.index("## Audit of failed results") < md.index("## Items\n\n3 items")
    assert md.index("> items first") < md.index("## Arms")
    page = render_html(inputs)
    assert page.index('id="audit"') < page.index('<section id="items">')
    assert page.index('<aside id="items-top">') < page.index('id="arms"')
    assert ('<a href="#audit">Audit</a><a href="#integrity">Integrity</a>'
            '<a href="#items">Items</a><a href="#tasks">') in page
