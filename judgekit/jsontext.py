"""Indented JSON text, byte for byte what ``json.dumps(value, indent=2, default=str)`` writes,
made with orjson wherever orjson's text is proven to be the same.

orjson writes the same text as :mod:`json` (two-space indent, ``", "``-free item ends,
``": "`` after keys, ``[]`` and ``{}`` when empty, the same escapes) for a value made only of
dicts with string keys, lists, strings, integers of up to 64 bits, booleans, ``None`` and
floats that are zero or between 1e-4 and 1e16 in magnitude (where both write the shortest
digits that read back, without an exponent). It differs on what is left: it writes characters
beyond ASCII and DEL as they are (``json`` escapes them), other floats in exponent or long
forms of its own, NaN and infinity as ``null``, and refuses other types. A part of the value
that holds any of those (or whose orjson text is not plain ASCII) is written by :mod:`json`,
the rest by orjson: a few such leaves (a p-value under 1e-4, say) are swapped for unique
placeholders, the whole value is written by orjson and each placeholder is replaced by
:mod:`json`'s text of its leaf.

Example:
    >>> dumps({"a": [1, 0.5, "é"], "b": {}})  == __import__("json").dumps(
    ...     {"a": [1, 0.5, "é"], "b": {}}, indent=2)
    True
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from typing import Any

import orjson

_MAX_INT = 2**63
_FLOAT_LOW, _FLOAT_HIGH = 1e-4, 1e16


def _plain(value: Any) -> bool:
    """True when orjson's text of ``value`` is :mod:`json`'s (see the module text), text
    beyond ASCII aside (checked on orjson's output) and keys aside (orjson refuses a key
    that is not a string, where :mod:`json` would write one of its own)."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        children: Any = (item.values() if kind is dict else
                         item if kind is list else (item,))
        for sub in children:
            kind = type(sub)
            if kind is str or sub is None or kind is bool:
                continue
            if kind is dict or kind is list:
                stack.append(sub)
            elif kind is int:
                if not -_MAX_INT <= sub < _MAX_INT:
                    return False
            elif kind is float:
                if not (sub == 0 or _FLOAT_LOW <= abs(sub) < _FLOAT_HIGH):
                    return False  # NaN and infinity fail both tests
            else:
                return False
    return True


def _fast(value: Any, plain: bool | None = None) -> str | None:
    """orjson's indented text of ``value`` when it is :mod:`json`'s, else ``None``;
    ``plain``: what :func:`_plain` says of ``value``, when known."""
    if not (_plain(value) if plain is None else plain):
        return None
    try:
        out = orjson.dumps(value, option=orjson.OPT_INDENT_2)
    except (TypeError, orjson.JSONEncodeError):  # a key that is not a string, say
        return None
    if not out.isascii() or b"\x7f" in out:
        return None
    return out.decode("ascii")


_MARKED_DEPTH = 2


def _mark(value: Any, depth: int, marks: dict[int, bool]) -> bool:
    """:func:`_plain` of ``value``, noted in ``marks`` (by ``id``) for every container down
    to :data:`_MARKED_DEPTH` levels, so that a large value is walked once."""
    kind = type(value)
    if depth >= _MARKED_DEPTH or (kind is not dict and kind is not list):
        ok = _plain(value)
    else:
        ok = True
        for sub in (value.values() if kind is dict else value):
            ok = _mark(sub, depth + 1, marks) and ok
    if kind is dict or kind is list:
        marks[id(value)] = ok
    return ok


def _indented(text: str, level: int) -> str:
    """``text`` (JSON of ``indent=2``; its newlines are all layout) nested ``level`` deep."""
    return text.replace("\n", "\n" + "  " * level) if level else text


def _dumps(value: Any, level: int, marks: dict[int, bool]) -> str:
    fast = _fast(value, marks.get(id(value)))
    if fast is not None:
        return _indented(fast, level)
    pad = "  " * (level + 1)
    kind = type(value)
    if kind is dict and value and all(type(key) is str for key in value):
        items = [f"{pad}{json.dumps(key)}: {_dumps(sub, level + 1, marks)}"
                 for key, sub in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + "  " * level + "}"
    if kind is list and value:
        items = [pad + _dumps(sub, level + 1, marks) for sub in value]
        return "[\n" + ",\n".join(items) + "\n" + "  " * level + "]"
    return _indented(json.dumps(value, indent=2, default=str), level)


class _Unswappable(Exception):
    """A container whose keys orjson would refuse or write differently."""


_MAX_SWAPS = 16


def _swap(value: Any, depth: int, marks: dict[int, bool],
          swaps: list[tuple[str, Any, int]], token: str) -> Any:
    """``value`` with every leaf orjson would write differently from :mod:`json` replaced by
    a placeholder string (noted in ``swaps`` with the leaf and its depth); containers that
    hold none are kept as they are, the others copied."""
    kind = type(value)
    if kind is dict or kind is list:
        plain = marks.get(id(value))
        if plain is None:
            plain = _plain(value)
        if plain:
            return value
        if kind is dict:
            if not all(type(key) is str for key in value):
                raise _Unswappable
            out_dict: dict[str, Any] | None = None
            for key, sub in value.items():
                new = _swap(sub, depth + 1, marks, swaps, token)
                if new is not sub:
                    out_dict = dict(value) if out_dict is None else out_dict
                    out_dict[key] = new
            return value if out_dict is None else out_dict
        out_list: list[Any] | None = None
        for i, sub in enumerate(value):
            new = _swap(sub, depth + 1, marks, swaps, token)
            if new is not sub:
                out_list = list(value) if out_list is None else out_list
                out_list[i] = new
        return value if out_list is None else out_list
    if _plain(value):
        return value
    if len(swaps) >= _MAX_SWAPS:
        raise _Unswappable
    placeholder = f"\x00{token}{len(swaps)}\x00"
    swaps.append((placeholder, value, depth))
    return placeholder


def _swapped(value: Any, marks: dict[int, bool]) -> str | None:
    """orjson's text of the whole value, the leaves it would write differently put back as
    :mod:`json` writes them; ``None`` when that cannot be done."""
    swaps: list[tuple[str, Any, int]] = []
    token = os.urandom(8).hex()
    try:
        prepared = _swap(value, 0, marks, swaps, token)
    except _Unswappable:
        return None
    text = _fast(prepared, True)
    if text is None:
        return None
    for placeholder, leaf, depth in swaps:
        quoted = json.dumps(placeholder)
        if text.count(quoted) != 1:
            return None
        text = text.replace(quoted, _indented(json.dumps(leaf, indent=2, default=str), depth))
    return text


def dumps(value: Any) -> str:
    """``json.dumps(value, indent=2, default=str)``, made faster."""
    marks: dict[int, bool] = {}
    _mark(value, 0, marks)
    text = _swapped(value, marks)
    return text if text is not None else _dumps(value, 0, marks)


def spliced(text: str, key: str, parts: Iterable[str], *, level: int = 1) -> Iterator[str]:
    """``text`` (indented JSON of an object, ``indent=2``) with its top-level ``key``, whose
    value there is ``[]``, holding the list whose items' texts ``parts`` gives in batches:
    each part is the indented JSON of a non-empty list of items, written at the top level
    (``"[\\n  ...\\n]"``). The text comes piece by piece, the list never whole, and equals
    the whole value written at once."""
    mark = f'\n{"  " * level}{json.dumps(key)}: []'
    at = text.index(mark) + len(mark) - 2  # where its "[]" starts
    yield text[:at]
    first = True
    for part in parts:
        inner = _indented(part[2:-2], level) if level else part[2:-2]
        yield ("[\n" if first else ",\n") + "  " * level + inner
        first = False
    yield ("[]" if first else "\n" + "  " * level + "]") + text[at + 2:]


def dumps_chunks(value: dict[str, Any], key: str, items: Iterable[Any],
                 batch: int = 1000) -> Iterator[str]:
    """:func:`dumps` of ``value`` with its top-level ``key`` holding ``items`` (``value[key]``
    is ignored), piece by piece: ``items`` is read and written ``batch`` at a time."""
    head = dumps({**value, key: []})
    return spliced(head, key, (dumps(chunk) for chunk in batched(items, batch)))


def batched(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    """``items`` in lists of ``size`` (the last one shorter)."""
    chunk: list[Any] = []
    for item in items:
        chunk.append(item)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
