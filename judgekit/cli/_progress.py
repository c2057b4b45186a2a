"""The engine's progress on stderr: an updating bar on a terminal, plain lines elsewhere.

Both show items done of items, how many are valid, unscored and in error, the cache hits,
the calls and the spend. Where stderr is not a terminal (a log, CI), a run that lasts
longer than ``PLAIN_AFTER_S`` seconds writes a plain line (``judging: ...``) at each tenth
of the items and at least every ``PLAIN_EVERY_S`` seconds while items finish; a short run
writes none, so its closing lines stand alone. Notes (``judgekit: ...``) are lines either
way; what came from data in them is made printable (no control sequences).
"""

from __future__ import annotations

import gc
import sys
import time
from typing import Any

from judgekit.cli._flags import flags
from judgekit.engine.events import EngineEvent
from judgekit.report.format import printable

#: seconds a run lasts before plain progress lines are written.
PLAIN_AFTER_S = 5.0
#: seconds between plain progress lines at most, while items finish.
PLAIN_EVERY_S = 30.0


class Tally:
    """Items done, by outcome, and what they cost.

    Example:
        >>> t = Tally(total=10); t.item(EngineEvent("item", count=3, state="valid"))
        >>> t.line()
        'judging: 3/10 items · valid 3 · unscored 0 · error 0 · cached 0 · calls 0 · $0.0000'
    """

    def __init__(self, total: int = 0) -> None:
        self.total = total
        self.done = self.valid = self.unscored = self.error = self.cached = self.calls = 0
        self.spend = 0.0

    def item(self, event: EngineEvent) -> None:
        self.done += event.count
        self.cached += event.count if event.cached else 0
        if event.state == "valid":
            self.valid += event.count
        elif event.state == "unscored":
            self.unscored += event.count
        elif event.state:
            self.error += event.count

    def fields(self) -> dict[str, Any]:
        return {"valid": self.valid, "unscored": self.unscored, "error": self.error,
                "cached": self.cached, "calls": self.calls, "spend": self.spend}

    def line(self) -> str:
        return (f"judging: {self.done}/{self.total} items · valid {self.valid} · unscored "
                f"{self.unscored} · error {self.error} · cached {self.cached} · calls "
                f"{self.calls} · ${self.spend:.4f}")


class TerminalProgress:
    """The engine's listener (see the module docstring)."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.tally = Tally()
        self._bar: Any = None
        self._task: Any = None
        self._plain = False
        self._started = self._last_line = 0.0
        self._next_share = 1

    def __call__(self, event: EngineEvent) -> None:
        kind = event.kind
        if kind == "note":
            self._print(f"judgekit: {printable(flags(event.text))}")
        elif kind == "estimate":
            self._print(event.text)
        elif kind == "start":
            # What is loaded by now (runs, scores, requests) lives until the command ends:
            # left to the collector, every full collection during the calls would walk it
            # again (measured: 0.4 ms per call on a 1,400-task run).
            gc.freeze()
            self._start(event.items)
        elif kind == "call":
            self.tally.calls += 1
            self.tally.spend += event.cost
            self._update()
        elif kind == "item":
            self.tally.item(event)
            self._update(advance=event.count)
            self._plain_line()
        elif kind == "end":
            self.stop()

    def _print(self, line: str) -> None:
        if self._bar is not None:
            self._bar.console.print(line, highlight=False, markup=False)
        else:
            print(line, file=sys.stderr)

    def _start(self, total: int) -> None:
        self.stop()
        self.tally = Tally(total)
        self._plain = self.enabled and bool(total) and not sys.stderr.isatty()
        self._started = self._last_line = time.monotonic()
        self._next_share = 1
        if not (self.enabled and total and sys.stderr.isatty()):
            return
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        self._bar = Progress(
            TextColumn("judging items"), BarColumn(), MofNCompleteColumn(),
            TextColumn("valid {task.fields[valid]} · unscored {task.fields[unscored]} · "
                       "error {task.fields[error]} · cached {task.fields[cached]} · calls "
                       "{task.fields[calls]} · ${task.fields[spend]:.4f}"),
            TimeElapsedColumn(), console=Console(stderr=True), transient=False)
        self._task = self._bar.add_task("judging", total=total, **self.tally.fields())
        self._bar.start()

    def _update(self, advance: int = 0) -> None:
        if self._bar is not None:
            self._bar.update(self._task, advance=advance, **self.tally.fields())

    def _plain_line(self) -> None:
        """On a log: a line at each tenth of the items, or after ``PLAIN_EVERY_S``, once
        the run has lasted ``PLAIN_AFTER_S``."""
        if not self._plain:
            return
        t = self.tally
        share = t.done * 10 // t.total if t.total else 0
        now = time.monotonic()
        if now - self._started < PLAIN_AFTER_S:
            return
        if share >= self._next_share or now - self._last_line >= PLAIN_EVERY_S:
            self._next_share = share + 1
            self._last_line = now
            print(t.line(), file=sys.stderr)

    def stop(self) -> None:
        self._plain = False
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
