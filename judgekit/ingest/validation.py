"""Input checks shared by every run format: strict JSON and one-line :class:`InputError`s.

:func:`parse_json` refuses what would later turn into NaN, infinity, a traceback or a file
judgekit cannot write back: ``NaN``/``Infinity``, numbers that overflow to infinity, integers
so long that Python's parser refuses them (over 4,300 digits), nesting deeper than
:data:`MAX_DEPTH`, and lone UTF-16 surrogates. Each error names the file and the field. Typed
integer fields (attempts, counts) are bounded by their models.

Example:
    >>> parse_json('{"a": [1, 2.5]}', "x.json")
    {'a': [1, 2.5]}
    >>> parse_json('{"a": {"b": NaN}}', "x.json")
    Traceback (most recent call last):
    ...
    judgekit.errors.InputError: x.json: a.b: not a finite number (NaN)
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from judgekit.errors import InputError

M = TypeVar("M", bound=BaseModel)

MAX_DEPTH = 64
"""Deepest nesting of arrays and objects accepted in an input document."""

_INT_LIMIT = 2**63
_SURROGATE_ESCAPE = re.compile(r"\\[uU][dD][89a-fA-F]")


def field_path(loc: tuple[Any, ...], prefix: str = "") -> str:
    out = prefix
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out and not out.endswith(" ") else str(part)
    return out or "(document)"


def validate(model: type[M], data: Any, path: Path | str, prefix: str = "") -> M:
    """``model.model_validate(data)``, or an InputError naming the first bad field.

    Models that declare ``strict_input = True`` (the run format) are validated strictly: a
    string is never taken for a number, nor a number for a string.
    """
    try:
        return model.model_validate(data, strict=bool(getattr(model, "strict_input", False)))
    except ValidationError as exc:
        err = exc.errors()[0]
        msg = err["msg"].replace("\n", " ")
        if err["type"] == "missing":
            msg = "required field is missing"
        raise InputError(path, field_path(tuple(err["loc"]), prefix), msg) from None
    except RecursionError:
        raise InputError(path, prefix.strip() or None, "nested too deeply") from None


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
        raise InputError(where, field, f"malformed JSON at line {exc.lineno} column "
                                       f"{exc.colno}: {exc.msg}") from None
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
