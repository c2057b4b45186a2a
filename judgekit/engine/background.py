"""Work the caller hands the engine to advance while its calls wait for the provider.

Each piece of work is an iterator; one step is taken at a time, and only on a turn of the
event loop that found nothing else to do (calls to send, answers to read), so an answer
never waits for more than one short step. A step that raises ends its work (the caller
meets the error again when it does that work itself); what is left when the calls end
stays for the caller to finish.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterable, Iterator

#: a turn of the event loop shorter than this ran nothing but the engine's own look: work
#: takes a step only after such an idle turn.
IDLE_TURN_SECONDS = 0.0005


class Background:
    """The work to advance between calls, and the task advancing it during a run."""

    def __init__(self) -> None:
        self._work: list[Iterator[object]] = []
        self._task: asyncio.Task[None] | None = None

    def add(self, work: Iterable[object]) -> None:
        self._work.append(iter(work))

    def start(self) -> None:
        """Begin advancing the work (once a run's requests are all read)."""
        if self._work and self._task is None:
            self._task = asyncio.create_task(self._advance())

    async def stop(self) -> None:
        """Stop advancing (the run's calls are over)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _advance(self) -> None:
        while self._work:
            waited = time.perf_counter()
            await asyncio.sleep(0)  # the calls ready to go (or be read) go first
            if time.perf_counter() - waited > IDLE_TURN_SECONDS:
                continue  # the loop had other work this turn: look again next turn
            work = self._work[0]
            try:
                next(work)
            except StopIteration:
                self._work.pop(0)
            except Exception:  # noqa: BLE001  the caller meets it when it finishes the work
                self._work.pop(0)
