"""Pausing Python's cycle collector while many long-lived objects are made.

Scoring a large run makes hundreds of thousands of objects that live until the end (scores,
their lists, the summary's rows); each collection of the oldest generation walks all of
them again, which costs more than the work itself. Reference counting still frees what is
not kept; only cycles wait for the collector, which runs again when the pause ends.

Example:
    >>> with collector_paused():
    ...     rows = [[i] for i in range(3)]
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Disable the cycle collector for the block (if it was enabled), then enable it."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
