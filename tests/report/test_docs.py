"""The hand-off documentation and the embedding example stay valid Python."""

from __future__ import annotations

import ast
import re

from tests.conftest import ROOT


def test_embedding_example_is_valid_python():
    tree = ast.parse((ROOT / "examples" / "embed_inspect_scorer.py").read_text(encoding="utf-8"))
    names = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    assert {"judgekit_scorer", "judge_arms"} <= names


def test_python_blocks_in_reports_doc_parse():
    text = (ROOT / "docs" / "reports.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 3
    for block in blocks:
        ast.parse(block)


def test_documented_result_columns_match_the_code():
    from judgekit.dataframe import AUDIT_COLUMNS, RESULT_COLUMNS

    text = (ROOT / "docs" / "reports.md").read_text(encoding="utf-8")
    for col in RESULT_COLUMNS + AUDIT_COLUMNS:
        assert f"`{col}`" in text, col
