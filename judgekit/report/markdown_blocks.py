"""Markdown building blocks for the report: escaped text, table cells, tables and fenced
blocks.

Every value that came from data is written through :func:`md` (or :func:`cell`, which
uses it): HTML's ``& < >`` become entities and Markdown's inline punctuation and a line's
leading block marker are escaped, so that no renderer reads data as markup.

Example:
    >>> table(["a", "b"], [["x|y", 1]])
    ['| a | b |', '|---|---|', '| x\\\\|y | 1 |', '']
    >>> md("<script>*x*")
    '&lt;script&gt;\\\\*x\\\\*'
    >>> fence("``` inside")[0]
    '````'
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_BACKTICKS = re.compile(r"`+")
#: Inline punctuation: emphasis, code, the backslash, and a ``]`` that would close a link,
#: an image or a reference (``](``, ``][``, ``]:``); a lone bracket stays as it is.
_INLINE = re.compile(r"([\\`*_]|\](?=[(\[:]))")
_LINE_START = re.compile(r"^([ \t]*)([-+=#]|\d+(?=[.)]))", re.MULTILINE)
_LIST_NUMBER = re.compile(r"^([ \t]*\d+)([.)])", re.MULTILINE)
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def md(value: object, block: bool = True) -> str:
    """``value`` as Markdown text that shows it as it is (newlines kept); ``block``: also
    escape what would start a heading, list or rule at the start of a line."""
    text = "".join(_ENTITIES.get(ch, ch) for ch in str(value))
    text = _INLINE.sub(r"\\\1", text)
    if not block:
        return text
    text = _LIST_NUMBER.sub(r"\1\\\2", text)
    return _LINE_START.sub(lambda m: m.group(1) + ("" if m.group(2).isdigit() else "\\")
                           + m.group(2), text)


def cell(value: object) -> str:
    """A table cell: :func:`md`, pipes escaped, newlines flattened."""
    return md(str(value).replace("\n", " "), block=False).replace("|", "\\|")


def table(header: Sequence[object], rows: Sequence[Sequence[object]]) -> list[str]:
    """A table's lines, then a blank line."""
    lines = ["| " + " | ".join(cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(v) for v in r) + " |" for r in rows]
    return lines + [""]


def pre(text: str) -> list[str]:
    """An HTML ``<pre>`` block of ``text``, escaped, for inside ``<details>``: inert in every
    renderer (CommonMark ends it only at ``</pre>``, which the escaped text cannot hold; a
    renderer that passes the whole ``<details>`` through as HTML shows the entities).

    Example:
        >>> pre("+<script>\\n\\n-x")
        ['<pre>', '+&lt;script&gt;\\n\\n-x', '</pre>']
    """
    return ["<pre>", "".join(_ENTITIES.get(ch, ch) for ch in text.rstrip("\n")), "</pre>"]


def fence(text: str, lang: str = "") -> list[str]:
    """A fenced block whose fence is longer than any backtick run inside ``text``."""
    longest = max(map(len, _BACKTICKS.findall(text)), default=0)
    f = "`" * max(3, longest + 1)
    return [f + lang, text.rstrip("\n"), f]
