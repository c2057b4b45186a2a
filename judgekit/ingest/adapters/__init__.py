"""Adapters turn other harnesses' result files into judgekit :class:`RunResult` objects.

An adapter is anything that satisfies :class:`Adapter`; :data:`ADAPTERS` is tried in order
and the first whose ``detect`` accepts a document loads it. :func:`make_adapters` builds
the same list with options (where the SWE-bench harness wrote its evaluation logs, how
Inspect AI logs are read). An adapter whose results depend on one another (Inspect AI arms
come from what tells the evals apart) also has ``settle`` (see :class:`Settling`): the
loader holds its results back and hands it all of them once every file is read.

judgekit's own adapters come first; other installed packages add theirs through the
``judgekit.adapters`` entry points, tried after them (:mod:`judgekit.ingest.adapters.registry`).
:data:`ADAPTERS` is made the first time it is asked for, so importing this package reads no
other package.

Example:
    >>> [a.name for a in make_adapters()][:6]
    ['judgekit', 'harbor', 'bobbin', 'hal', 'swebench', 'inspect']
    >>> known_formats(make_adapters()[:6])
    'judgekit, harbor, bobbin, hal, swebench, inspect'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from judgekit.ingest.adapters.bobbin import BobbinAdapter
from judgekit.ingest.adapters.hal import HalAdapter
from judgekit.ingest.adapters.inspect_log import InspectAdapter
from judgekit.ingest.adapters.inspect_options import InspectOptions
from judgekit.ingest.adapters.native import NativeAdapter
from judgekit.ingest.adapters.protocol import Adapter, Settling
from judgekit.ingest.adapters.registry import AdapterList, default_adapters, make_adapters
from judgekit.ingest.adapters.swebench import SweBenchAdapter

if TYPE_CHECKING:
    #: the adapters tried when none are given: judgekit's own, then the plug-ins'
    ADAPTERS: AdapterList


def __getattr__(name: str) -> Any:
    if name == "ADAPTERS":
        return default_adapters()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def known_formats(adapters: Sequence[Adapter] | None = None) -> str:
    """The names of the formats tried, for the message about an unrecognised document."""
    return ", ".join(a.name for a in (default_adapters() if adapters is None else adapters))


__all__ = ["ADAPTERS", "Adapter", "AdapterList", "BobbinAdapter", "HalAdapter",
           "InspectAdapter", "InspectOptions", "NativeAdapter", "Settling", "SweBenchAdapter",
           "known_formats", "make_adapters"]
