"""Context blocks for prompts (token budget) and code around changed lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgekit.errors import InputError
from judgekit.index import CodeIndex, changed_ranges, code_around, context_block, estimate_tokens

from .index_helpers import CORPUS


@pytest.mark.parametrize("budget", [60, 150, 400, 2000])
def test_context_block_stays_within_its_token_budget(corpus_index: Path, budget: int) -> None:
    block = context_block(CodeIndex.open(corpus_index), "circle area and user lookup", max_tokens=budget)
    assert block.tokens <= budget
    assert block.tokens == estimate_tokens(block.text)
    for path in block.files:
        assert f"### {path}:" in block.text
    if budget >= 400:
        assert "geometry/circle.py" in block.files and "```python" in block.text


def test_context_block_lists_exactly_the_files_it_injects(corpus_index: Path) -> None:
    block = context_block(CodeIndex.open(corpus_index), "shopping cart total", max_tokens=5000)
    headers = {line[4:].rsplit(":", 1)[0] for line in block.text.splitlines() if line.startswith("### ")}
    assert headers == set(block.files) == set(CORPUS)
    assert block.files[0] == "web/app.js"


def test_tiny_budget_gives_an_empty_block(corpus_index: Path) -> None:
    block = context_block(CodeIndex.open(corpus_index), "circle", max_tokens=5)
    assert (block.text, block.files, block.tokens) == ("", [], 0)


def test_code_around_numbers_and_clamps_lines(tmp_path: Path) -> None:
    (tmp_path / "f.py").write_text("".join(f"line{i}\n" for i in range(1, 51)))
    text = code_around(tmp_path, "f.py", (10, 12), context=3)
    assert text.splitlines()[0] == " 7  line7" and text.splitlines()[-1] == "15  line15"
    assert code_around(tmp_path, "f.py", (1, 2), context=5, numbered=False).splitlines() == [f"line{i}" for i in range(1, 8)]
    with pytest.raises(InputError):
        code_around(tmp_path, "../etc/passwd", (1, 1))
    with pytest.raises(InputError):
        code_around(tmp_path, "missing.py", (1, 1))


def test_changed_ranges_map_a_diff_to_new_file_lines(tmp_path: Path) -> None:
    diff = (
        "diff --git a/src/m.py b/src/m.py\n--- a/src/m.py\n+++ b/src/m.py\n"
        "@@ -10,3 +10,4 @@ def f():\n x\n+y\n z\n w\n"
        "@@ -40 +41 @@\n-a\n+b\n"
        "--- a/old.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-gone\n-gone\n"
    )
    assert changed_ranges(diff) == [("src/m.py", (10, 13)), ("src/m.py", (41, 41))]
    (tmp_path / "src").mkdir()
    (tmp_path / "src/m.py").write_text("".join(f"l{i}\n" for i in range(1, 61)))
    path, lines = changed_ranges(diff)[1]
    assert code_around(tmp_path, path, lines, context=1, numbered=False) == "l40\nl41\nl42"
