"""Markdown building blocks for the report: table cells, tables and fenced blocks.

Example:
    >>> table(["a", "b"], [["x|y", 1]])
    ['| a | b |', '|---|---|', '| x\\\\|y | 1 |', '']
    >>> fence("``` inside")[0]
    '````'
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_BACKTICKS = re.compile(r"`+")


def cell(value: object) -> str:
    """A table cell: backslashes and pipes escaped, newlines flattened."""
    return str(value).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def table(header: Sequence[object], rows: Sequence[Sequence[object]]) -> list[str]:
    """A table's lines, then a blank line."""
    lines = ["| " + " | ".join(cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(v) for v in r) + " |" for r in rows]
    return lines + [""]


def fence(text: str, lang: str = "") -> list[str]:
    """A fenced block whose fence is longer than any backtick run inside ``text``."""
    longest = max(map(len, _BACKTICKS.findall(text)), default=0)
    f = "`" * max(3, longest + 1)
    return [f + lang, text.rstrip("\n"), f]
