"""Adapters turn other harnesses' result files into judgekit :class:`RunResult` objects.

An adapter is anything that satisfies :class:`Adapter`; :data:`ADAPTERS` is tried in order
and the first whose ``detect`` accepts a document loads it. :func:`make_adapters` builds
the same list with options (where the SWE-bench harness wrote its evaluation logs, how
Inspect AI logs are read). An adapter whose results depend on one another (Inspect AI arms
come from what tells the evals apart) also has ``settle`` (see :class:`Settling`): the
loader holds its results back and hands it all of them once every file is read.

Example:
    >>> [a.name for a in ADAPTERS]
    ['judgekit', 'bobbin', 'hal', 'swebench', 'inspect']
    >>> known_formats()
    'judgekit, bobbin, hal, swebench, inspect'
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from judgekit.runs.adapters.bobbin import BobbinAdapter
from judgekit.runs.adapters.hal import HalAdapter
from judgekit.runs.adapters.inspect_log import InspectAdapter
from judgekit.runs.adapters.inspect_options import InspectOptions
from judgekit.runs.adapters.native import NativeAdapter
from judgekit.runs.adapters.swebench import SweBenchAdapter
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


@runtime_checkable
class Settling(Protocol):
    """An adapter that finishes its results only once it has seen all of them."""

    def settle(self, results: list[RunResult]) -> tuple[list[RunResult], list[str]]:
        """Finish ``results`` (every result this adapter loaded): the results to keep, and
        warnings saying what was left out or decided."""
        ...


def make_adapters(*, swebench_logs: Path | str | None = None,
                  inspect: InspectOptions | None = None) -> list[Adapter]:
    """The adapters in the order they are tried.

    ``swebench_logs`` is the SWE-bench harness's ``logs/run_evaluation`` directory (or a
    directory holding it); without it, ``logs/run_evaluation`` beside each predictions file
    is used when it exists. ``inspect`` says where Inspect AI logs keep the agent's patch
    and the fix, and what names their arms.
    """
    return [NativeAdapter(), BobbinAdapter(), HalAdapter(),
            SweBenchAdapter(logs=Path(swebench_logs) if swebench_logs else None),
            InspectAdapter(inspect)]


ADAPTERS: list[Adapter] = make_adapters()


def known_formats(adapters: Sequence[Adapter] | None = None) -> str:
    """The names of the formats tried, for the message about an unrecognised document."""
    return ", ".join(a.name for a in (ADAPTERS if adapters is None else adapters))


__all__ = ["ADAPTERS", "Adapter", "BobbinAdapter", "HalAdapter", "InspectAdapter",
           "InspectOptions", "NativeAdapter", "Settling", "SweBenchAdapter", "known_formats",
           "make_adapters"]
