"""The engine: every model call of judgekit goes through :class:`Engine`.

The engine is a façade over its parts: what the verdict cache holds and which requests
need a call (:mod:`~judgekit.engine.planning`), how the calls are sent
(:mod:`~judgekit.engine.dispatch`), each item's conversation
(:mod:`~judgekit.engine.item`, :mod:`~judgekit.engine.conversation`,
:mod:`~judgekit.engine.calling`), the spend and the cost cap
(:mod:`~judgekit.engine.spending`), and a dry run's estimate (:mod:`~judgekit.engine.dryrun`).

Example:
    >>> from judgekit.engine import Engine, EngineConfig, JudgeRequest
    >>> engine = Engine(EngineConfig(model="anthropic:claude-haiku-4-5", dry_run=True,
    ...                              use_cache=False, progress=False))
    >>> req = JudgeRequest(key="k1", system="Judge.", prompt="Is 2+2=4?",
    ...                    schema={"type": "object", "required": ["ok"],
    ...                            "properties": {"ok": {"type": "boolean"}}})
    >>> engine.estimate([req]).calls
    1
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterable, Sequence

from judgekit.engine import registry
from judgekit.engine.accounting import JudgeRun
from judgekit.engine.background import Background
from judgekit.engine.cache import VerdictCache
from judgekit.engine.config import EngineConfig
from judgekit.engine.connect import api_key_of
from judgekit.engine.context import EngineContext
from judgekit.engine.dispatch import Dispatcher
from judgekit.engine.dryrun import dry_run, estimate
from judgekit.engine.events import EngineEvent
from judgekit.engine.planning import Planner
from judgekit.engine.redact import redact
from judgekit.engine.server import ServerState
from judgekit.engine.types import Estimate, ItemOutcome, JudgeRequest, OnOutcome, Skip


class Engine:
    """Runs judge requests: cache, structured route, repair loop, retries, cost cap.

    One engine may serve several runs (pairwise, then audit); the cost cap and a stop
    after an authentication failure hold across them.
    """

    def __init__(self, config: EngineConfig) -> None:
        self._ctx = EngineContext(config)
        self.prices = self._ctx.prices
        #: the judge server: mode, window, slots, and the count of every request it got.
        self.server = self._ctx.server
        self._planner = Planner(self._ctx)
        self._background = Background()
        self._dispatch = Dispatcher(self._ctx, self._planner, self._background)

    @property
    def config(self) -> EngineConfig:
        """How this engine calls the model. Assigning a new one (a smaller cost cap for
        the next run, say) holds for the runs that follow."""
        return self._ctx.config

    @config.setter
    def config(self, config: EngineConfig) -> None:
        self._ctx.config = config

    @property
    def spent_usd(self) -> float:
        """Dollars recorded so far by this engine (all runs)."""
        return self._ctx.spending.spent

    @property
    def stopped(self) -> Skip | None:
        """Why the engine stopped sending calls (an authentication or permission failure:
        ``NotSent.STOPPED`` and the failure in ``detail``), if it did; the items it did not
        send then say so in their ``not_sent``."""
        return self._ctx.stopped

    def judge_run(self) -> JudgeRun:
        """What this engine did so far (all runs): ``summary["judge"]``."""
        spending = self._ctx.spending
        return self.server.report(spending.spent, spending.spent_uncached)

    def worst_case(self, req: JudgeRequest) -> float:
        """The most the first call of ``req`` can cost (what the cost cap admits it by)."""
        return self._ctx.spending.worst_case(req)

    # -- running --------------------------------------------------------------------
    def run(self, requests: Iterable[JudgeRequest], *, total: int | None = None,
            on_outcome: OnOutcome | None = None) -> list[ItemOutcome]:
        """Synchronous :meth:`arun` (not from inside a running event loop)."""
        return asyncio.run(self.arun(requests, total=total, on_outcome=on_outcome))

    async def arun(self, requests: Iterable[JudgeRequest], *, total: int | None = None,
                   on_outcome: OnOutcome | None = None) -> list[ItemOutcome]:
        """One outcome per request, in the same order.

        ``requests`` may be a lazy iterable: it is read as the calls go out (the calls get
        a turn at least every ``READ_SLICE_SECONDS`` of reading), so the first calls are in
        flight while later requests are still being built (give ``total``, the number it
        will yield, for the progress display). A dry run and a run through the provider's
        batch API read it whole first.

        ``on_outcome(i, outcome)`` hears of request ``i``'s outcome as soon as it is known
        (a cache hit when read, an answer when it settles), so work on it can be done while
        other calls are in flight. It is a notice, not a promise: a copy of a request asked
        twice, a dry run and a batch run are not announced, and a notice that raises ends
        the notices. The outcome it is given is the very object the returned list holds.
        """
        if self.config.dry_run or self.config.batch or isinstance(requests, Sequence):
            return await self._arun_all(list(requests))
        cache = self._planner.open_cache()
        try:
            await self._prepare(cache)
            self._start_note()
            self._ctx.event(EngineEvent("start", items=total or 0))
            try:
                async with self._watching():
                    return await self._dispatch.stream(iter(requests), cache, on_outcome)
            finally:
                self._ctx.event(EngineEvent("end"))
        finally:
            self._close_cache(cache)

    async def _arun_all(self, reqs: list[JudgeRequest]) -> list[ItemOutcome]:
        planner = self._planner
        cache = planner.open_cache()
        try:
            if not self.config.dry_run:
                await self._prepare(cache)
            hashes = planner.hashes(reqs)
            outcomes, todo = planner.serve_cached(reqs, hashes, cache)
            if self.config.dry_run:
                return dry_run(self._ctx, reqs, todo, outcomes)
            served = len(reqs) - sum(map(len, todo.values()))
            for hit in outcomes:
                if hit is not None:
                    self._ctx.server.run.count_cached(hit)
            self._start_note()
            self._ctx.event(EngineEvent("start", items=len(reqs), to_ask=len(todo)))
            if served:
                self._ctx.event(EngineEvent("item", cached=True, count=served, state="valid"))
            try:
                if todo:
                    async with self._watching():
                        await self._dispatch.call_all(reqs, todo, outcomes, cache)
            finally:
                self._ctx.event(EngineEvent("end"))
            return [o for o in outcomes if o is not None]
        finally:
            self._close_cache(cache)

    def estimate(self, requests: Sequence[JudgeRequest]) -> Estimate:
        """Calls a run would make (one per item to ask), items already cached, and the
        estimated cost."""
        reqs = list(requests)
        hashes = self._planner.hashes(reqs)
        cache = self._planner.open_cache()
        try:
            _, todo = self._planner.serve_cached(reqs, hashes, cache)
        finally:
            if cache is not None:
                cache.close()
        return estimate(self._ctx, reqs, todo, len(reqs) - sum(map(len, todo.values())))

    def between_calls(self, work: Iterable[object]) -> None:
        """Advance ``work`` one step at a time while this engine's calls are in flight.

        For work that does not depend on the answers (rendering a report's diffs, say): it
        fills the time the engine spends waiting for the provider. Each step should be
        short, since an answer that arrives during a step waits for it. Steps run only
        while a run makes calls, after its requests are all read, and only on a turn of
        the event loop that found nothing else to do (calls to send, answers to read); what
        is left when the calls end stays for the caller to finish. A step that raises ends
        its work, and the caller meets the error again when it does that work itself.
        """
        self._background.add(work)

    # -- around a run -----------------------------------------------------------------
    async def _prepare(self, cache: VerdictCache | None) -> None:
        server = self.server
        await server.prepare(cache, api_key_of(self.config))
        for note in server.notes:
            self._ctx.note(note)
        server.notes.clear()
        self._ctx.params = {**self._ctx.params, "route": server.ladder.current}

    @contextlib.asynccontextmanager
    async def _watching(self) -> AsyncIterator[None]:
        """While calls go out: say when the server falls silent, and when it is back."""
        watch = asyncio.get_running_loop().create_task(self.server.watch(self._ctx.note))
        stats = self.server.retry_stats
        bound, deadline = stats.cut_to_bound, stats.cut_by_deadline
        try:
            yield
        finally:
            watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watch
            if stats.cut_to_bound > bound or stats.cut_by_deadline > deadline:
                self._ctx.note(self.server.cut_waits_line(stats.cut_to_bound - bound,
                                                          stats.cut_by_deadline - deadline))

    def _start_note(self) -> None:
        spending = self._ctx.spending
        if spending.unknown_price:
            self._ctx.note(f"warning: no price known for {redact(self.config.model)}; "
                           "its cost counts as $0")
            spending.unknown_price = False
        for problem in registry.unreported_problems():
            self._ctx.note(f"warning: {problem}")

    def _close_cache(self, cache: VerdictCache | None) -> None:
        self.server.remember(cache)
        if cache is not None:
            with contextlib.suppress(Exception):
                cache.release_all(self._ctx.owner)
            cache.close()


def check_servers(configs: Sequence[EngineConfig]) -> None:
    """Check, at once and before anything else is done, that each judge's server answers as
    the API named (:meth:`ServerState.check`): a wrong base URL raises
    :class:`~judgekit.engine.reach.ServerUnreachable` within seconds."""

    async def check_all() -> None:
        await asyncio.gather(*(ServerState(c).check(api_key_of(c)) for c in configs
                               if not c.dry_run))

    asyncio.run(check_all())
