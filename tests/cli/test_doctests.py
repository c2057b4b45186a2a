"""The examples in the docstrings of the summary, report and CLI output modules run."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ("judgekit.summary", "judgekit.report", "judgekit.report.content",
           "judgekit.report.format", "judgekit.report.html", "judgekit.report.judged",
           "judgekit.report.load", "judgekit.report.markdown", "judgekit.report.markup",
           "judgekit.report.outdir", "judgekit.report.svg", "judgekit.report.audit_text",
           "judgekit.cli._output", "judgekit.dataframe", "judgekit.steps",
           "judgekit.pairwise.models", "judgekit.audit.models", "judgekit.ingest.models")


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
