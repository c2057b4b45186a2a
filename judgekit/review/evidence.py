"""Where a quoted passage of an audit verdict sits in the texts the judge was shown.

A passage is looked up the way the audit verified it (:func:`judgekit.audit.checks.normalise`:
case, whitespace, quote marks, backslashes and escape sequences do not matter; an ellipsis
splits it into fragments found in order); the answer is the span of the original text from
the first fragment's start to the last one's end.

Example:
    >>> find_quote('"division  by zero"', {"test output": "ZeroDivisionError: Division by zero"})
    ('test output', 19, 35)
"""

from __future__ import annotations

import re

from judgekit.audit.checks import _ELLIPSIS, MIN_QUOTE_CHARS, normalise

_IGNORED_CHAR = re.compile(r"[\s\\\"'`“”‘’«»„]")


def _normal_with_map(text: str) -> tuple[str, list[int]]:
    """``text`` normalised, and for each character of the result its index in ``text``."""
    out: list[str] = []
    where: list[int] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] in "ntr":
            i += 2  # an escape sequence (``\n``) counts as whitespace
            continue
        if not _IGNORED_CHAR.match(ch):
            for c in ch.casefold():
                out.append(c)
                where.append(i)
        i += 1
    return "".join(out), where


def _span(quote: str, text: str) -> tuple[int, int] | None:
    hay, where = _normal_with_map(text)
    frags = [f for f in (normalise(x) for x in _ELLIPSIS.split(quote))
             if len(f) >= MIN_QUOTE_CHARS] or [normalise(quote)]
    if not frags or not frags[0]:
        return None
    pos, start, end = 0, -1, -1
    for frag in frags:
        found = hay.find(frag, pos)
        if found < 0:
            return None
        if start < 0:
            start = found
        pos = end = found + len(frag)
    return where[start], where[end - 1] + 1


def find_quote(quote: str, texts: dict[str, str]) -> tuple[str, int, int] | None:
    """(name of the text, start, end) of the first text holding ``quote``, else None."""
    for name, text in texts.items():
        span = _span(quote, text)
        if span is not None:
            return name, span[0], span[1]
    return None
