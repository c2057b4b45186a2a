"""A progress bar on stderr (only when it is a terminal): calls, cache hits, failures, spend.

Example:
    >>> bar = RunProgress(total=3, enabled=False)
    >>> bar.item(cached=True, failed=False, cost=0.0); bar.stop()
    >>> bar.cached
    1
"""

from __future__ import annotations

import sys

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)


class RunProgress:
    """Counts what a run did; draws a rich bar when enabled and stderr is a TTY."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.calls = self.cached = self.failed = 0
        self.spend = 0.0
        self._bar: Progress | None = None
        if enabled and total and sys.stderr.isatty():
            self._bar = Progress(
                TextColumn("judging"), BarColumn(), MofNCompleteColumn(),
                TextColumn("calls {task.fields[calls]} · cached {task.fields[cached]} · "
                           "failed {task.fields[failed]} · ${task.fields[spend]:.4f}"),
                TimeElapsedColumn(),
                console=Console(stderr=True), transient=False,
            )
            self._task = self._bar.add_task("judging", total=total, calls=0, cached=0,
                                            failed=0, spend=0.0)
            self._bar.start()

    def call(self, cost: float) -> None:
        """One model call answered."""
        self.calls += 1
        self.spend += cost
        if self._bar is not None:
            self._bar.update(self._task, calls=self.calls, spend=self.spend)

    def item(self, *, cached: bool, failed: bool, cost: float = 0.0, count: int = 1) -> None:
        """``count`` items finished."""
        self.cached += count if cached else 0
        self.failed += count if failed else 0
        if self._bar is not None:
            self._bar.update(self._task, advance=count, cached=self.cached, failed=self.failed)

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
