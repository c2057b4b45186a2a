"""Input checks shared by every run format: strict JSON and one-line :class:`InputError`s.

:func:`parse_json` and :data:`MAX_DEPTH` are :mod:`judgekit.jsonread`'s (every reader of a
file shares that guard); :func:`validate` turns a model's validation error into one line
naming the file and the field. Typed integer fields (attempts, counts) are bounded by their
models.

Example:
    >>> parse_json('{"a": [1, 2.5]}', "x.json")
    {'a': [1, 2.5]}
    >>> parse_json('{"a": {"b": NaN}}', "x.json")
    Traceback (most recent call last):
    ...
    judgekit.errors.InputError: x.json: a.b: not a finite number (NaN)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from judgekit.errors import InputError
from judgekit.jsonread import MAX_DEPTH, parse_json

M = TypeVar("M", bound=BaseModel)

__all__ = ["MAX_DEPTH", "field_path", "parse_json", "validate"]


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
