"""Where a quoted passage of an audit verdict sits in a text: the one lookup the review app
and the report use to mark evidence in place.

A passage is looked up the way the audit verified it (:func:`judgekit.audit.checks.normalise`:
case, whitespace, quote marks, backslashes and escape sequences do not matter; an ellipsis
splits it into fragments found in order); the answer is the span of the original text from
the first fragment's start to the last one's end.

Example:
    >>> find_quote('"division  by zero"', {"test output": "ZeroDivisionError: Division by zero"})
    ('test output', 19, 35)
    >>> marked_spans(["exit code 1", "no such quote"], "... Exit  code 1 ...")
    [(4, 16)]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from judgekit.audit.checks import _ELLIPSIS, MIN_QUOTE_CHARS, extract_quotes, normalise

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


def _span_in(quote: str, hay: str, where: list[int]) -> tuple[int, int] | None:
    """The span of ``quote`` in the text whose normal form is ``hay`` (``where``: its map)."""
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


def quote_span(quote: str, text: str) -> tuple[int, int] | None:
    """(start, end) of ``quote`` in ``text``, found as the audit verified it; else None."""
    return _span_in(quote, *_normal_with_map(text))


def find_quote(quote: str, texts: dict[str, str]) -> tuple[str, int, int] | None:
    """(name of the text, start, end) of the first text holding ``quote``, else None."""
    for name, text in texts.items():
        span = quote_span(quote, text)
        if span is not None:
            return name, span[0], span[1]
    return None


def spans_of(quotes: Sequence[str], text: str) -> list[tuple[int, int] | None]:
    """For each of ``quotes``, its span in ``text`` or None (``text`` normalised once)."""
    hay, where = _normal_with_map(text)
    return [_span_in(q, hay, where) for q in quotes]


def merged(spans: Iterable[tuple[int, int] | None]) -> list[tuple[int, int]]:
    """``spans`` (Nones left out) in order, overlapping ones joined."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(s for s in spans if s is not None):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return out


def marked_spans(quotes: Sequence[str], text: str) -> list[tuple[int, int]]:
    """The spans of ``text`` holding any of ``quotes``, in order, overlaps joined."""
    return merged(spans_of(quotes, text))


def verified_quotes(evidence: Any, not_found: Sequence[str]) -> list[str]:
    """The quotes of a verdict's ``evidence`` that the audit checked and found: long enough
    to be checked, and not among the quotes it did not find (``not_found``)."""
    missing = set(not_found)
    return [q for q in extract_quotes(evidence)
            if len(normalise(q)) >= MIN_QUOTE_CHARS and q not in missing]


__all__ = ["find_quote", "marked_spans", "merged", "quote_span", "spans_of",
           "verified_quotes"]
