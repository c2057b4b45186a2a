"""Turn pydantic validation errors into one-line :class:`InputError`s."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from judgekit.errors import InputError

M = TypeVar("M", bound=BaseModel)


def field_path(loc: tuple[Any, ...], prefix: str = "") -> str:
    out = prefix
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out and not out.endswith(" ") else str(part)
    return out or "(document)"


def validate(model: type[M], data: Any, path: Path | str, prefix: str = "") -> M:
    """``model.model_validate(data)``, or an InputError naming the first bad field."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        msg = err["msg"].replace("\n", " ")
        if err["type"] == "missing":
            msg = "required field is missing"
        raise InputError(path, field_path(tuple(err["loc"]), prefix), msg) from None
