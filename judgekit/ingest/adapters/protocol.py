"""What a run adapter is: the :class:`Adapter` protocol, and :class:`Settling` for an adapter
that finishes its results only once every file is read.

Any object with these members is an adapter; judgekit's own are plain classes, and other
packages add theirs through the ``judgekit.adapters`` entry points
(:mod:`judgekit.ingest.adapters.registry`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from judgekit.ingest.models import RunResult


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


@runtime_checkable
class Settling(Protocol):
    """An adapter that finishes its results only once it has seen all of them."""

    def settle(self, results: list[RunResult]) -> tuple[list[RunResult], list[str]]:
        """Finish ``results`` (every result this adapter loaded): the results to keep, and
        warnings saying what was left out or decided."""
        ...


__all__ = ["Adapter", "Settling"]
