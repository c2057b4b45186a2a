"""Each step's part of the reports, given to its descriptor; the pages render them in order.

A step's sections are rendered here, in the report package, above the steps; so the report
package gives each step's descriptor its :class:`~judgekit.steps.ReportPart` (once, when
this module is first imported) and :mod:`~judgekit.report.markdown` and
:mod:`~judgekit.report.html` render :func:`report_parts`, the registered steps' parts in
their order (:data:`judgekit.step_registry.STEPS`), without naming a step. The scores
(arms, comparisons, the results) are every report's own and have no part here.

A new step adds its renderings (the words in :mod:`~judgekit.report.judged`, then HTML and
Markdown) and one ``set_report`` line below.

Example:
    >>> [part.anchor for part in report_parts()]
    ['pairwise', 'audit', 'integrity']
"""

from __future__ import annotations

from judgekit.audit.kind import AUDIT
from judgekit.integrity.kind import INTEGRITY
from judgekit.pairwise.kind import PAIRWISE
from judgekit.report import html_judged, integrity_view, markdown_judged
from judgekit.report.load import ReportInputs
from judgekit.step_registry import STEPS
from judgekit.steps import ReportPart
from judgekit.summary import EvalSummary


def _pairwise_markdown(inputs: ReportInputs) -> list[str]:
    return (markdown_judged.pairwise_section(inputs.summary)
            + markdown_judged.jury_and_size_sections(inputs.summary))


def _reliability_markdown(inputs: ReportInputs) -> list[str]:
    return markdown_judged.reliability_section(inputs.summary)


def _reliability_html(inputs: ReportInputs) -> str:
    return html_judged.reliability_box(inputs.summary)


PAIRWISE.set_report(ReportPart[ReportInputs](
    anchor="pairwise", title="Pairwise", markdown=_pairwise_markdown,
    html=html_judged.pairwise_section, top_markdown=_reliability_markdown,
    top_html=_reliability_html))
AUDIT.set_report(ReportPart[ReportInputs](
    anchor="audit", title="Audit", markdown=markdown_judged.audit_section,
    html=html_judged.audit_section))
INTEGRITY.set_report(ReportPart[ReportInputs](
    anchor="integrity", title="Integrity", markdown=integrity_view.markdown_section,
    html=integrity_view.html_section, top_markdown=integrity_view.top_markdown,
    top_html=integrity_view.top_html))


def report_parts() -> list[ReportPart[ReportInputs]]:
    """The registered steps' parts of the reports, in the steps' order."""
    return [kind.report for kind in STEPS if kind.report is not None]


def parts_that_ran(summary: EvalSummary) -> list[ReportPart[ReportInputs]]:
    """The parts of the steps that ran for ``summary`` (an item audit's report shows no
    step that has nothing to say of items)."""
    return [kind.report for kind in STEPS if kind.report is not None and kind.ran(summary)]


__all__ = ["parts_that_ran", "report_parts"]
