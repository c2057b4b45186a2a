"""Fast JSON decoding with exactly the answers of :func:`judgekit.ingest.validation.parse_json`.

orjson parses a result line several times faster than :mod:`json`, but it does not say no to
everything :func:`~judgekit.ingest.validation.parse_json` refuses, and it reads a few inputs
differently. :func:`loads` keeps orjson's value only where the two are proven to agree, and
otherwise hands the text to ``parse_json`` (the reference), which gives its value or its
one-line error:

* orjson refuses input ``parse_json`` accepts (an integer of more than 64 bits in a free-form
  field, a lone surrogate escape, ``NaN``): the reference decides;
* orjson reads an integer outside the 64-bit range as a float; any float of that magnitude
  sends the text to the reference, which keeps the integer;
* orjson accepts nesting up to 1,024 levels; any container deeper than
  :data:`~judgekit.ingest.validation.MAX_DEPTH` sends the text to the reference, which refuses
  it naming the field.

Everything else orjson accepts is strict JSON that ``json.loads`` reads to the same value:
finite floats correctly rounded, the last of duplicate keys, the same whitespace; invalid
UTF-8, control characters and non-finite numbers are refused by both.

Example:
    >>> loads(b'{"a": [1, 2.5]}', "x.jsonl")
    {'a': [1, 2.5]}
    >>> loads(b'{"n": 18446744073709551616}', "x.jsonl")
    {'n': 18446744073709551616}
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from judgekit.errors import InputError
from judgekit.ingest.validation import MAX_DEPTH, parse_json

_BIG = float(2**63)


def _agrees(value: dict[str, Any] | list[Any], depth: int = 0) -> bool:
    """False when orjson's value (``depth`` levels into its document) may differ from the
    reference's (see the module text)."""
    stack: list[tuple[Any, int]] = [(value, depth)]
    while stack:
        item, depth = stack.pop()
        if depth >= MAX_DEPTH:
            return False
        for sub in (item.values() if type(item) is dict else item):
            kind = type(sub)
            if kind is str or kind is int or sub is None or kind is bool:
                continue
            if kind is dict or kind is list:
                stack.append((sub, depth + 1))
            elif kind is float and not -_BIG < sub < _BIG:
                return False
    return True


def fast_loads(data: bytes, depth: int = 0) -> tuple[bool, Any]:
    """``(True, value)`` when orjson's reading of ``data`` is the reference's, else
    ``(False, None)``: the caller then asks the reference. ``depth``: how deep in a larger
    document the value sits (its nesting counts from the document's top)."""
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return False, None
    if isinstance(value, float):
        return -_BIG < value < _BIG, value if -_BIG < value < _BIG else None
    if isinstance(value, (dict, list)) and not _agrees(value, depth):
        return False, None
    return True, value


def nested_deeper(value: Any, levels: int) -> bool:
    """True when ``value`` holds a container more than ``levels`` levels down."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth >= levels:
            return True
        for sub in (item.values() if type(item) is dict else
                    item if type(item) is list else ()):
            if type(sub) is dict or type(sub) is list:
                stack.append((sub, depth + 1))
    return False


def reference_loads(data: bytes, where: str | Path, prefix: str = "") -> Any:
    """The reference reading of UTF-8 ``data``: ``parse_json``, after a strict decode."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        field = prefix.strip(": ") or None
        raise InputError(where, field,
                         f"not valid UTF-8 (byte {exc.start}): {exc.reason}") from None
    return parse_json(text, where, prefix)


def loads(data: bytes, where: str | Path, prefix: str = "") -> Any:
    """The value of one JSON document (UTF-8 bytes): orjson's where it agrees with the
    reference, else the reference's value or its :class:`InputError`."""
    ok, value = fast_loads(data)
    if ok:
        return value
    return reference_loads(data, where, prefix)
