"""Strict JSON reading, one guard for every file judgekit reads: depth, numbers, encoding.

:func:`parse_json` refuses what would later turn into NaN, infinity, a traceback or a file
judgekit cannot write back: ``NaN``/``Infinity``, numbers that overflow to infinity, integers
so long that Python's parser refuses them (over 4,300 digits), nesting deeper than
:data:`MAX_DEPTH` (however deep: never a ``RecursionError``), and lone UTF-16 surrogates.
Malformed text is one sentence: where (line and column) and what is wrong, in words.
Each error is an :class:`~judgekit.errors.InputError` naming the file and the field.

:func:`loads` gives the same answers faster: orjson parses the text, and its value is kept
only where the two are proven to agree; otherwise the text goes to :func:`parse_json` (the
reference), which gives its value or its one-line error:

* orjson refuses input ``parse_json`` accepts (an integer of more than 64 bits in a free-form
  field, a lone surrogate escape): the reference decides;
* orjson reads an integer outside the 64-bit range as a float; any float of that magnitude
  sends the text to the reference, which keeps the integer;
* orjson accepts nesting up to 1,024 levels; any container deeper than :data:`MAX_DEPTH`
  sends the text to the reference, which refuses it naming the field.

Everything else orjson accepts is strict JSON that ``json.loads`` reads to the same value:
finite floats correctly rounded, the last of duplicate keys, the same whitespace; invalid
UTF-8, control characters and non-finite numbers are refused by both.

Example:
    >>> parse_json('{"a": [1, 2.5]}', "x.json")
    {'a': [1, 2.5]}
    >>> parse_json('{"a": {"b": NaN}}', "x.json")
    Traceback (most recent call last):
    ...
    judgekit.errors.InputError: x.json: a.b: not a finite number (NaN)
    >>> loads(b'{"n": 18446744073709551616}', "x.jsonl")
    {'n': 18446744073709551616}
    >>> loads(b'[' * 100000, "deep.json")
    Traceback (most recent call last):
    ...
    judgekit.errors.InputError: deep.json: nested deeper than 64 levels
    >>> loads(b'{"a": "cut', "x.json")
    Traceback (most recent call last):
    ...
    judgekit.errors.InputError: x.json: malformed JSON at column 7: a string starts there ...
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import orjson

from judgekit.errors import InputError

MAX_DEPTH = 64
"""Deepest nesting of arrays and objects accepted in an input document."""

_INT_LIMIT = 2**63
_SURROGATE_ESCAPE = re.compile(r"\\[uU][dD][89a-fA-F]")


class _Bad:
    """Marks a parsed value that cannot be accepted; its position is looked up afterwards."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason


def _constant(name: str) -> _Bad:
    return _Bad(f"not a finite number ({name})")


def _float(text: str) -> float | _Bad:
    value = float(text)
    return value if math.isfinite(value) else _Bad(f"number out of range ({text[:20]})")


def _int(text: str) -> int | _Bad:
    if len(text) > 20:
        return _Bad(f"integer out of range ({len(text)} digits)")
    value = int(text)
    return value if -_INT_LIMIT <= value < _INT_LIMIT else _Bad("integer out of range")


def _find_bad(value: Any, check_strings: bool) -> tuple[str, str] | None:
    """``(field, reason)`` of the first unacceptable value, walking without recursion."""
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        item, where, depth = stack.pop()
        if isinstance(item, _Bad):
            return where or "(document)", item.reason
        if isinstance(item, str):
            if not check_strings:
                continue
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return where or "(document)", "text holds a lone UTF-16 surrogate"
            continue
        if isinstance(item, (dict, list)):
            if depth >= MAX_DEPTH:
                shown = where if len(where) <= 60 else where[:57] + "..."
                return shown or "(document)", f"nested deeper than {MAX_DEPTH} levels"
            if isinstance(item, dict):
                for key, sub in reversed(list(item.items())):
                    if check_strings and _SURROGATE_KEY(key):
                        return where or "(document)", "a key holds a lone UTF-16 surrogate"
                    stack.append((sub, f"{where}.{key}" if where else str(key), depth + 1))
            else:
                for i in range(len(item) - 1, -1, -1):
                    stack.append((item[i], f"{where}[{i}]", depth + 1))
    return None


def _SURROGATE_KEY(key: str) -> bool:  # noqa: N802 - a predicate used once above
    try:
        key.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _depth_exceeds(text: str, limit: int) -> bool:
    """A cheap upper bound: brackets outside strings are not told apart, so this only says
    when a full walk is worth doing."""
    return text.count("[") + text.count("{") > limit


#: The start of the parser's words for what is wrong (:class:`json.JSONDecodeError`'s
#: ``msg``), and a phrase that reads whole.
_WHAT: tuple[tuple[str, str], ...] = (
    ("Expecting value", "a value (a string, number, object, array, true, false or null) "
                        "should start there"),
    ("Expecting property name", "a key in double quotes should start there"),
    ("Expecting ':'", "a ':' should follow the key there"),
    ("Expecting ','", "a ',' or the end of the object or array should come there"),
    ("Invalid control character", "a string holds a control character (a raw tab or line "
                                  "break, say) there"),
    ("Invalid \\escape", "a string holds an invalid escape sequence there"),
    ("Invalid \\uXXXX", "a string holds an invalid \\u escape there"),
    ("Extra data", "more text follows the JSON value there"),
    ("Unexpected UTF-8 BOM", "a byte order mark stands there"),
)


def _string_start(text: str, pos: int) -> int | None:
    """Where the string that holds ``text[pos]`` opens: the last quote before ``pos`` that
    no backslash escapes."""
    at = text.rfind('"', 0, pos)
    while at >= 0:
        before = at
        while before > 0 and text[before - 1] == "\\":
            before -= 1
        if (at - before) % 2 == 0:
            return at
        at = text.rfind('"', 0, before)
    return None


def malformed(exc: json.JSONDecodeError, unit: str = "file") -> str:
    """What :mod:`json` found wrong, as one whole sentence: where (line and column; the
    column alone when the text is one line) and what, in words; ``unit``: what the text is
    (``file``, ``line``), named when it ends too soon."""
    if not exc.doc.strip():
        return f"malformed JSON: the {unit} is empty"
    if (exc.msg.startswith("Invalid control character") and exc.doc[exc.pos] in "\r\n"
            and not exc.doc[exc.pos:].strip()):  # the line break that ends a cut line
        start = _string_start(exc.doc, exc.pos)
        if start is not None:
            return malformed(json.JSONDecodeError("Unterminated string starting at", exc.doc,
                                                  start), unit)
    where = (f"column {exc.colno}" if "\n" not in exc.doc.rstrip() else
             f"line {exc.lineno} column {exc.colno}")
    if exc.msg.startswith("Unterminated string"):
        what = (f"a string starts there and is never closed: the {unit} ends first "
                "(is it cut short?)")
    elif exc.msg.startswith("Expecting") and not exc.doc[exc.pos:].strip():
        what = f"the {unit} ends there, inside the JSON value (is it cut short?)"
    else:
        what = next((phrase for start, phrase in _WHAT if exc.msg.startswith(start)),
                    f"{exc.msg.removesuffix(' at')} there")
    return f"malformed JSON at {where}: {what}"


def parse_json(text: str, where: str | Path, prefix: str = "") -> Any:
    """Parse one JSON document strictly; an :class:`InputError` names ``where`` and the field.

    ``prefix`` (e.g. ``"line 3: "``) goes before field names. Floats are checked as they are
    parsed; integers only when the parser refuses one (over 4,300 digits), when the text is
    parsed again with checks on every number to name the field.
    """
    flagged: list[bool] = []

    def bad_float(t: str) -> float | _Bad:
        v = _float(t)
        if isinstance(v, _Bad):
            flagged.append(True)
        return v

    def bad_int(t: str) -> int | _Bad:
        v = _int(t) if len(t) > 18 else int(t)
        if isinstance(v, _Bad):
            flagged.append(True)
        return v

    def bad_constant(name: str) -> _Bad:
        flagged.append(True)
        return _constant(name)

    field = prefix.strip(": ") or None
    try:
        try:
            value = json.loads(text, parse_float=bad_float, parse_constant=bad_constant)
        except ValueError as exc:
            if isinstance(exc, json.JSONDecodeError):
                raise
            value = json.loads(text, parse_float=bad_float, parse_int=bad_int,
                               parse_constant=bad_constant)
    except json.JSONDecodeError as exc:
        raise InputError(where, field, malformed(exc, "line" if prefix.startswith("line ")
                                                 else "file")) from None
    except RecursionError:
        raise InputError(where, field, f"nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # anything else the parser itself refuses
        raise InputError(where, field, f"invalid JSON: {exc}") from None
    surrogates = ("\\ud" in text or "\\uD" in text) and _SURROGATE_ESCAPE.search(text) is not None
    if flagged or surrogates or _depth_exceeds(text, MAX_DEPTH):
        found = _find_bad(value, surrogates)
        if found is not None:
            bad_field, reason = found
            raise InputError(where, prefix + bad_field, reason)
    return value


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


def fast_loads(data: bytes | str, depth: int = 0) -> tuple[bool, Any]:
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


_BOM = b"\xef\xbb\xbf"


def reference_loads(data: bytes | str, where: str | Path, prefix: str = "") -> Any:
    """The reference reading of UTF-8 ``data``: ``parse_json``, after a strict decode (a
    leading byte order mark, as some editors write, is skipped)."""
    if isinstance(data, str):
        return parse_json(data[1:] if data.startswith("\ufeff") else data, where, prefix)
    try:
        text = data[3:].decode("utf-8") if data.startswith(_BOM) else data.decode("utf-8")
    except UnicodeDecodeError as exc:
        field = prefix.strip(": ") or None
        raise InputError(where, field,
                         f"not valid UTF-8 (byte {exc.start}): {exc.reason}") from None
    return parse_json(text, where, prefix)


def loads(data: bytes | str, where: str | Path, prefix: str = "") -> Any:
    """The value of one JSON document (UTF-8 bytes, or text): orjson's where it agrees with
    the reference, else the reference's value or its :class:`InputError` naming ``where``
    (and ``prefix``, e.g. ``"line 3: "``, before the field)."""
    ok, value = fast_loads(data)
    if ok:
        return value
    return reference_loads(data, where, prefix)
