"""How a run's items are sent: all at once under the concurrency bound, as they are read
(:meth:`Dispatcher.stream`) or from a list (:meth:`Dispatcher.call_all`, through the
provider's batch API when asked).

For the length of a run's calls the dispatcher holds the provider's client and the
concurrency bound (a :class:`~judgekit.engine.context.Session`), keeps the claims on
items in a shared verdict cache alive, and advances the caller's background work.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from judgekit.engine import batch as batch_api
from judgekit.engine.background import Background
from judgekit.engine.cache import VerdictCache
from judgekit.engine.calling import Caller
from judgekit.engine.connect import make_provider
from judgekit.engine.context import EngineContext, Session
from judgekit.engine.conversation import BatchAnswer
from judgekit.engine.events import EngineEvent
from judgekit.engine.item import ItemRunner
from judgekit.engine.planning import Planner, Todo
from judgekit.engine.limiter import AdaptiveLimiter
from judgekit.engine.types import ItemOutcome, JudgeRequest, NotSent, OnOutcome, Skip
from judgekit.errors import ConfigError

#: longest stretch the engine spends reading requests before its calls get a turn.
READ_SLICE_SECONDS = 0.002


class Notice:
    """Tells ``on_outcome`` of outcomes as they settle; silent after a notice raised."""

    def __init__(self, on_outcome: OnOutcome | None) -> None:
        self._tell = on_outcome

    def __call__(self, i: int, outcome: ItemOutcome) -> None:
        if self._tell is None:
            return
        try:
            self._tell(i, outcome)
        except Exception:  # noqa: BLE001  the caller meets it when it does the work itself
            self._tell = None

    def of(self, i: int) -> Callable[[asyncio.Task[ItemOutcome]], None]:
        def done(task: asyncio.Task[ItemOutcome]) -> None:
            if not task.cancelled() and task.exception() is None:
                self(i, task.result())
        return done


class Dispatcher:
    """Sends the items of each run of one engine (see the module docstring)."""

    def __init__(self, ctx: EngineContext, planner: Planner, background: Background) -> None:
        self.ctx, self.planner, self.background = ctx, planner, background

    @contextlib.asynccontextmanager
    async def session(self, cache: VerdictCache | None) -> AsyncIterator[Session]:
        """The provider and the concurrency bound of one run, with claims kept alive."""
        settled = self.ctx.server.settled
        provider = make_provider(settled)
        session = Session(provider, AdaptiveLimiter(settled.concurrency or 1), cache)
        self.ctx.spending.open()
        renewer = (asyncio.create_task(self._renew_claims(cache))
                   if cache is not None and not self.ctx.config.batch else None)
        try:
            yield session
        finally:
            await self.background.stop()
            if renewer is not None:
                renewer.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await renewer
            self.ctx.spending.close()
            await provider.aclose()
            await self.ctx.server.aclose()

    async def stream(self, requests: Iterator[JudgeRequest], cache: VerdictCache | None,
                     on_outcome: OnOutcome | None = None) -> list[ItemOutcome]:
        """Ask each request as it is read; the calls get a turn every ``READ_SLICE_SECONDS``."""
        notice = Notice(on_outcome)
        outcomes: list[ItemOutcome | None] = []
        todo: Todo = {}
        reqs: list[JudgeRequest] = []
        tasks: list[asyncio.Task[ItemOutcome]] = []
        keys: set[str] = set()
        served: set[str] = set()
        turn = 0.0
        async with self.session(cache) as session:
            items = ItemRunner(self.ctx, self.planner, session)
            try:
                for i, req in enumerate(requests):
                    if req.key in keys:
                        raise ConfigError(f"duplicate request key {req.key!r}")
                    keys.add(req.key)
                    reqs.append(req)
                    outcomes.append(None)
                    h = self.planner.hash(req)
                    if self.planner.place(i, req, h, cache, outcomes, todo, served):
                        task = asyncio.create_task(items.run(req, h, None))
                        if on_outcome is not None:
                            task.add_done_callback(notice.of(i))
                        tasks.append(task)
                    elif (hit := outcomes[i]) is not None:
                        self.ctx.server.run.count_cached(hit)
                        self.ctx.event(EngineEvent("item", cached=True, count=1, state=hit.state))
                        notice(i, hit)
                    if time.perf_counter() >= turn:  # the calls made so far go out
                        await asyncio.sleep(0)
                        turn = time.perf_counter() + READ_SLICE_SECONDS
                self.background.start()
                answers = await asyncio.gather(*tasks)
            except BaseException:
                await _cancel(tasks)
                raise
        self.planner.fill(reqs, todo, answers, outcomes)
        return [o for o in outcomes if o is not None]

    async def call_all(self, reqs: list[JudgeRequest], todo: Todo,
                       outcomes: list[ItemOutcome | None], cache: VerdictCache | None) -> None:
        """Ask every item of ``todo`` (through the batch API when the config says so) and
        put the outcomes in their slots."""
        async with self.session(cache) as session:
            first: dict[str, BatchAnswer] = {}
            read_batches: list[str] = []
            if self.ctx.config.batch:
                first, read_batches = await self._batch(reqs, todo, session)
            self.background.start()
            items = ItemRunner(self.ctx, self.planner, session)
            answers = await asyncio.gather(*(
                items.run(reqs[idxs[0]], h, first.get(h)) for h, idxs in todo.items()))
            self.planner.fill(reqs, todo, answers, outcomes)
            if cache is not None:
                for batch_id in read_batches:
                    cache.close_batch(batch_id)

    async def _batch(self, reqs: list[JudgeRequest], todo: Todo, session: Session
                     ) -> tuple[dict[str, BatchAnswer], list[str]]:
        """The batch API's answers by request hash (the items the cost cap leaves out get
        their skip instead), and the ids of the batches read."""
        cache = session.cache
        if cache is None:
            raise ConfigError("{option:batch} needs the verdict cache (drop {option:no_cache})")
        items = self.ctx.spending.within_budget({h: reqs[idxs[0]] for h, idxs in todo.items()})
        caller = Caller(self.ctx, self.planner, session)
        answers, read = await batch_api.collect(
            session.provider, cache, items, poll_seconds=self.ctx.config.batch_poll_seconds,
            retrying=caller.retrying, note=self.ctx.note)
        first: dict[str, BatchAnswer] = dict(answers)
        over_budget = Skip(reason=NotSent.COST_CAP)
        first.update({h: over_budget for h in todo if h not in items})
        return first, read

    async def _renew_claims(self, cache: VerdictCache) -> None:
        lease = self.ctx.config.claim_lease
        while True:
            await asyncio.sleep(lease / 3)
            with contextlib.suppress(Exception):
                cache.renew(self.ctx.owner, lease)


async def _cancel(tasks: list[asyncio.Task[Any]]) -> None:
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
