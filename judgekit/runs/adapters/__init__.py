"""Adapters turn other harnesses' result files into judgekit :class:`RunResult` objects.

An adapter is anything that satisfies :class:`Adapter`; :data:`ADAPTERS` is tried in order
and the first whose ``detect`` accepts a document loads it.

Example:
    >>> [a.name for a in ADAPTERS]
    ['judgekit', 'bobbin']
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from judgekit.runs.adapters.bobbin import BobbinAdapter
from judgekit.runs.adapters.native import NativeAdapter
from judgekit.runs.models import RunResult


@runtime_checkable
class Adapter(Protocol):
    """Reads one harness's result documents."""

    name: str

    def detect(self, path: Path, document: Any) -> bool:
        """True when ``document`` (parsed JSON of ``path``) is this harness's."""
        ...

    def load(self, path: Path, document: Any) -> list[RunResult]:
        """Convert the document; raise :class:`~judgekit.errors.InputError` when it is invalid."""
        ...

    def is_auxiliary(self, path: Path, document: Any) -> bool:
        """True for side files (manifests) that hold no results themselves."""
        ...


ADAPTERS: list[Adapter] = [NativeAdapter(), BobbinAdapter()]

__all__ = ["ADAPTERS", "Adapter", "BobbinAdapter", "NativeAdapter"]
