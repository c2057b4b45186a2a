"""What the engine tells its caller while it runs: progress and notes, never printed.

The caller (the CLI) passes a callback as ``EngineConfig.on_event`` and decides what to
show. Every count uses the same units: an *item* is one request; a *call* is one request
sent to the model (an item asked again after an invalid answer makes several calls).

Example:
    >>> seen = []
    >>> emit(seen.append, EngineEvent("note", text="hello"))
    >>> seen[0].text
    'hello'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from judgekit.engine.types import State

EventKind = Literal["start", "call", "item", "note", "estimate", "end"]


@dataclass(frozen=True)
class EngineEvent:
    """One thing that happened.

    Kinds:
        ``start``: a run begins; ``items`` requests, ``cached`` of them already answered,
            ``to_ask`` items that need calls.
        ``call``: one model call answered; ``cost`` its dollars.
        ``item``: ``count`` items finished in ``state`` (``cached`` when no call was made).
        ``note``: a line worth showing (``text``), e.g. a batch submitted, the cost cap.
        ``estimate``: on a dry run, what the run would cost (``text``).
        ``end``: the run is over.
    """

    kind: EventKind
    items: int = 0
    cached: bool = False
    to_ask: int = 0
    count: int = 0
    state: State | None = None
    cost: float = 0.0
    text: str = ""


Listener = Callable[[EngineEvent], None]


def emit(listener: Listener | None, event: EngineEvent) -> None:
    """Hand ``event`` to ``listener`` (nothing when there is none)."""
    if listener is not None:
        listener(event)
