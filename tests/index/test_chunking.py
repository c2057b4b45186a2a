"""Chunking: Python by syntax, other files by overlapping line windows."""

from __future__ import annotations

from judgekit.index.chunking import chunk_text, window_chunks

PY = '''"""Module docstring."""
import os

CONSTANT = 3


@decorator
def top(a):
    return a + 1


class Small:
    x = 1

    def m(self):
        return self.x


async def fetch():
    return await thing()
'''


def test_python_definitions_become_chunks_with_exact_line_ranges() -> None:
    chunks = chunk_text("pkg/mod.py", PY)
    spans = [(c.kind, c.name, c.start_line, c.end_line) for c in chunks]
    assert ("function", "top", 7, 9) in spans  # the decorator line is part of the chunk
    assert ("class", "Small", 12, 16) in spans
    assert ("function", "fetch", 19, 20) in spans
    assert all(c.path == "pkg/mod.py" for c in chunks)
    top = next(c for c in chunks if c.name == "top")
    assert top.text.startswith("@decorator\ndef top(a):")


def test_module_level_remainder_is_kept_as_module_chunks() -> None:
    chunks = chunk_text("pkg/mod.py", PY)
    module = [c for c in chunks if c.kind == "module"]
    assert module and module[0].start_line == 1
    assert "CONSTANT = 3" in "\n".join(c.text for c in module)
    assert not any("def top" in c.text for c in module)


def test_large_class_is_split_into_methods_and_header() -> None:
    body = "\n".join(f"    def m{i}(self):\n" + "\n".join(f"        x{j} = {j}" for j in range(8)) + "\n" for i in range(12))
    src = f"class Big:\n    \"\"\"Doc.\"\"\"\n    attr = 1\n\n{body}"
    chunks = chunk_text("big.py", src)
    methods = [c for c in chunks if c.kind == "method"]
    assert [c.name for c in methods] == [f"Big.m{i}" for i in range(12)]
    header = [c for c in chunks if c.kind == "class"]
    assert header and header[0].start_line == 1 and "attr = 1" in header[0].text


def test_unparsable_python_and_other_languages_use_overlapping_windows() -> None:
    src = "\n".join(f"line {i}" for i in range(1, 101))
    for path in ("broken.py", "main.go"):
        text = src + ("\ndef (:\n" if path.endswith(".py") else "")
        chunks = chunk_text(path, text, window=40, overlap=10)
        assert {c.kind for c in chunks} == {"window"}
        assert [(c.start_line, c.end_line) for c in chunks][:3] == [(1, 40), (31, 70), (61, 100)]
        assert chunks[0].text.splitlines()[0] == "line 1"


def test_windows_drop_blank_stretches_and_trim_blank_edges() -> None:
    lines = ["", "a", "", "", "b", ""] + [""] * 50 + ["c"]
    chunks = window_chunks("x.txt", lines, 1, len(lines), "window", window=10, overlap=2)
    assert [(c.start_line, c.end_line, c.text) for c in chunks] == [(2, 5, "a\n\n\nb"), (57, 57, "c")]


def test_empty_file_has_no_chunks() -> None:
    assert chunk_text("empty.py", "") == []
