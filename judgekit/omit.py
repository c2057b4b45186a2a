"""Fields written only when set: a model lists them in ``omit_if_none`` and they are left out
of its dump while they are ``None``, so files written before such a field existed (one judge,
no jury) stay byte for byte the same.

Example:
    >>> from pydantic import BaseModel
    >>> class Record(OmitIfNone):
    ...     omit_if_none: ClassVar[tuple[str, ...]] = ("judges",)
    ...     task: str
    ...     judges: dict[str, int] | None = None
    >>> Record(task="t").model_dump(), Record(task="t", judges={"a": 1}).model_dump()
    ({'task': 't'}, {'task': 't', 'judges': {'a': 1}})
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, SerializerFunctionWrapHandler, model_serializer


class OmitIfNone(BaseModel):
    """A model whose fields named in ``omit_if_none`` are dumped only when not ``None``."""

    omit_if_none: ClassVar[tuple[str, ...]] = ()

    @model_serializer(mode="wrap")
    def _omit_unset(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for name in self.omit_if_none:
            if getattr(self, name) is None:
                data.pop(name, None)
        return data
