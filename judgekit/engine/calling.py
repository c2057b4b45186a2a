"""One call of an item: the checks made once a slot is free, the request on the wire, and
its price.

Before a call goes out, the engine makes sure it is still wanted: the engine has not
stopped, no other process sharing the verdict cache holds or has answered the item, the
cost cap admits it, the context window it was fitted to still stands, and the
structured-output mode it was built for is still the one in use. Each check that fails
raises, so the conversation can act on it (:mod:`judgekit.engine.conversation`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from judgekit.engine.context import EngineContext, Session
from judgekit.engine.planning import Planner
from judgekit.engine.providers import Completion
from judgekit.engine.retry import Skipped
from judgekit.engine.types import ItemOutcome, JudgeRequest, NotSent, Usage

T = TypeVar("T")
#: seconds between looks at an item another process is asking.
CLAIM_POLL_SECONDS = 0.25


class Restart(Exception):
    """The structured-output mode changed since the item's messages were built."""


class Refit(Exception):
    """The context window became known (or smaller) since the item was fitted."""


class Busy(Skipped):
    """Another process holds the claim on this item."""


class Answered(Skipped):
    """Another process answered this item since the run started."""

    def __init__(self, outcome: ItemOutcome) -> None:
        super().__init__("answered by another process")
        self.outcome = outcome


class Declined(Skipped):
    """The engine does not send the call: the cost cap, or the engine stopped."""

    def __init__(self, reason: NotSent) -> None:
        super().__init__(reason.value)
        self.reason = reason


class ItemState:
    """What one item has been through so far: answers, spend, claim, fitting, mode."""

    __slots__ = ("claimed", "cost", "fitted", "hash", "leads", "mode", "retries", "sent",
                 "tries", "usage", "window")

    def __init__(self, request_hash: str) -> None:
        self.tries, self.usage, self.cost, self.retries = 0, Usage(), 0.0, 0
        self.claimed = False
        self.sent = 0
        self.fitted = False
        self.hash = request_hash
        self.mode: Any = None
        self.window: int | None = None
        #: the prefixes this item is the first to send: set once it is answered.
        self.leads: list[asyncio.Event] = []

    def warmed(self) -> None:
        """The prefixes this item carried are in the cache (or never will be by it): the
        requests waiting for them may go."""
        for event in self.leads:
            event.set()
        self.leads = []


class Caller:
    """Sends the calls of one run (see the module docstring)."""

    def __init__(self, ctx: EngineContext, planner: Planner, session: Session) -> None:
        self.ctx, self.planner, self.session = ctx, planner, session

    def retrying(self, fn: Callable[[], Awaitable[T]],
                 on_retry: Callable[[BaseException], None] | None = None) -> Awaitable[T]:
        """``fn()`` under the run's concurrency bound, transient failures retried."""
        return self._waiting(self.ctx.server.retry.call(fn, limiter=self.session.limiter,
                                                        on_retry=on_retry))

    async def _waiting(self, call: Awaitable[T]) -> T:
        """``call``, counted as waiting for the server while it runs."""
        health = self.ctx.server.health
        health.waiting += 1
        try:
            return await call
        finally:
            health.waiting -= 1

    def call_once(self, req: JudgeRequest, h: str, messages: list[dict[str, Any]],
                  st: ItemState) -> Callable[[], Awaitable[Completion]]:
        """The coroutine function of one call: runs once a slot is free."""

        async def call() -> Completion:
            self._check_wanted(req, h, st)
            spending = self.ctx.spending
            worst = spending.worst_case(req, messages) if self.ctx.config.max_cost_usd else 0.0
            if not await spending.admit_when_settled(worst):
                raise Declined(NotSent.COST_CAP)
            try:
                if st.window != self.ctx.server.window.tokens:
                    raise Refit()
                async with self.ctx.server.ladder.turn() as mode:
                    if mode != st.mode:
                        raise Restart(mode)
                    comp = await self.send(req, messages, mode, st)
                # recorded before the reservation is given back: spend + reserved never dips
                comp.extra["cost_usd"] = cost = spending.price(comp.usage, batch=False)
                spending.record(cost, comp.usage, batch=False)
                return comp
            finally:
                await spending.release(worst)

        return call

    def _check_wanted(self, req: JudgeRequest, h: str, st: ItemState) -> None:
        """Raise when the call is not to be sent: the engine stopped, or another process
        holds or has answered the item (the claim is taken otherwise)."""
        if self.ctx.stopped is not None:
            raise Declined(NotSent.STOPPED)
        deadline = self.ctx.config.deadline_at
        if deadline is not None and time.monotonic() >= deadline:
            raise Declined(NotSent.DEADLINE)
        cache = self.session.cache
        if cache is not None and not st.claimed:
            if not cache.claim(h, self.ctx.owner, self.ctx.config.claim_lease):
                raise Busy("claimed by another process")
            st.claimed = True
            done = self.planner.from_cache(req, cache.get(h))
            if done is not None:  # finished elsewhere between our start and our claim
                raise Answered(done)

    async def send(self, req: JudgeRequest, messages: list[dict[str, Any]], mode: Any,
                   st: ItemState) -> Completion:
        """One request on the wire, counted whatever becomes of it."""
        server = self.ctx.server
        run = server.run
        run.calls += 1
        st.sent += 1
        sent_at = time.monotonic()
        try:
            # the whole request, body included, within the timeout (the SDKs bound each read)
            comp = await asyncio.wait_for(self.session.provider.complete(
                req, messages, mode=mode, max_tokens=server.window.answer_tokens),
                timeout=self._time_left(server.settled.timeout))
        except Exception as exc:
            raise server.classify(exc, mode) from None
        server.ladder.confirm(mode)
        server.health.answered(time.monotonic() - sent_at)
        st.warmed()
        run.answered += 1
        run.input_tokens += comp.usage.input_tokens
        run.output_tokens += comp.usage.output_tokens
        run.cache_read_tokens += comp.usage.cache_read_tokens
        run.cache_write_tokens += comp.usage.cache_write_tokens
        return comp

    def _time_left(self, timeout: float | None) -> float | None:
        """Seconds the request may take: the timeout, within the run's deadline."""
        deadline = self.ctx.config.deadline_at
        if deadline is None:
            return timeout
        left = max(0.0, deadline - time.monotonic())
        return left if timeout is None else min(timeout, left)

    async def await_other(self, req: JudgeRequest, h: str) -> ItemOutcome | None:
        """Wait while another process asks for ``h``: its outcome, or None once the item
        is ours to ask (the other process gave up or died)."""
        cache = self.session.cache
        assert cache is not None
        while True:
            await asyncio.sleep(CLAIM_POLL_SECONDS)
            done = self.planner.from_cache(req, cache.get(h))
            if done is not None:
                return done
            if cache.claim(h, self.ctx.owner, self.ctx.config.claim_lease):
                done = self.planner.from_cache(req, cache.get(h))  # finished just before we claimed
                if done is not None:
                    cache.release(h, self.ctx.owner)
                return done
