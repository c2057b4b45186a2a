"""One item from start to outcome: its turn behind the prompt-cache prefix it shares, its
fitting to the judge model's window, its conversation, and the outcome's counts.

A request longer than the window is rebuilt by its own ``fit`` rule; one that cannot fit
is not sent (:attr:`~judgekit.engine.types.NotSent.TOO_LONG_FOR_CONTEXT`). When the
server refuses a request for its length and names (or implies) a smaller window than the
one it was fitted to, the request is fitted again, at most :data:`MAX_REFITS` times.
"""

from __future__ import annotations

import asyncio
import contextlib

from judgekit.engine.calling import ItemState, Refit
from judgekit.engine.context import EngineContext, Session
from judgekit.engine.conversation import BatchAnswer, Conversation
from judgekit.engine.events import EngineEvent
from judgekit.engine.fitting import fit_request
from judgekit.engine.planning import Planner
from judgekit.engine.prompt_cache import min_cacheable_tokens, warm_keys
from judgekit.engine.providers import Completion, schema_instruction
from judgekit.engine.redact import redact
from judgekit.engine.server import TooLong
from judgekit.engine.types import Failed, ItemOutcome, JudgeRequest, NotSent, Skip

#: times one item is refitted after the server said it was too long.
MAX_REFITS = 2


class ItemRunner:
    """Runs the items of one run, each to its outcome."""

    def __init__(self, ctx: EngineContext, planner: Planner, session: Session) -> None:
        self.ctx, self.planner, self.session = ctx, planner, session
        self.conversation = Conversation(ctx, planner, session)

    async def run(self, req: JudgeRequest, h: str, first: BatchAnswer | None) -> ItemOutcome:
        """The outcome of ``req`` (cache key ``h``; ``first``: its batch answer, if any),
        with the tries, tokens and dollars this run spent on it."""
        state = ItemState(h)
        cache = self.session.cache
        try:
            if first is None:
                state.leads = await self._warm_turn(req)
            outcome = await self._fitted_converse(req, first, state)
        except Exception as exc:  # noqa: BLE001  a check that raised, an odd answer shape
            outcome = self.ctx.outcome(
                req, "error", reason=redact(f"{type(exc).__name__}: {exc}")[:400],
                failure=Failed.UNEXPECTED)
        finally:
            state.warmed()
            if cache is not None and state.claimed:
                with contextlib.suppress(Exception):
                    cache.release(state.hash, self.ctx.owner)
        if not outcome.cached:
            outcome = outcome.model_copy(update={
                "tries": max(state.tries, 1) if state.sent else state.tries,
                "usage": state.usage, "cost_usd": state.cost, "retries": state.retries,
                "fitted": state.fitted})
        self.ctx.event(EngineEvent("item", cached=outcome.cached, state=outcome.state, count=1))
        return outcome

    async def _warm_turn(self, req: JudgeRequest) -> list[asyncio.Event]:
        """Wait until the cache holds the prefixes ``req`` shares with requests before it
        (their first request was answered); the prefixes it is the first to carry are
        its own to warm: the events it sets once it is answered."""
        if not self.ctx.config.prompt_cache:
            return []
        leads: list[asyncio.Event] = []
        warming = self.session.warming
        for key in warm_keys(req, min_cacheable_tokens(self.ctx.config.model_name)):
            event = warming.get(key)
            if event is None:
                warming[key] = event = asyncio.Event()
                leads.append(event)
            elif not leads:
                await event.wait()
        return leads

    async def _fitted_converse(self, req: JudgeRequest, first: BatchAnswer | None,
                               st: ItemState) -> ItemOutcome:
        """Fit the request to the window, then converse; refit when the server says the
        request is too long and names (or implies) a smaller window."""
        original = req
        refits = 0
        while True:
            st.window = self.ctx.server.window.tokens
            if not isinstance(first, Completion):  # a batch answer was asked as it is
                fitted = await self._fitted(original, st)
                if isinstance(fitted, ItemOutcome):
                    return fitted
                req = fitted
            try:
                return await self.conversation.converse(req, st.hash, first, st)
            except Refit:
                first = None
                continue
            except TooLong as too_long:
                refits += 1
                worth_it = self._learn(too_long, req, st)
                if refits > MAX_REFITS or not worth_it:
                    return self.ctx.outcome(req, "error", reason=str(too_long),
                                            failure=Failed.TOO_LONG)
                first = None

    async def _fitted(self, original: JudgeRequest, st: ItemState
                      ) -> JudgeRequest | ItemOutcome:
        """``original`` fitted to the window as it is known now; the outcome instead when
        it cannot fit, or when its fitted version is in the verdict cache."""
        fitted, tokens = await self._fit(original)
        server, cache = self.ctx.server, self.session.cache
        if fitted is None:
            server.run.count_skip(NotSent.TOO_LONG_FOR_CONTEXT)
            budget = server.window.prompt_budget
            return self.ctx.skipped(original, "unscored", Skip(
                reason=NotSent.TOO_LONG_FOR_CONTEXT,
                detail=f"too long for the judge's context window: about {tokens} tokens "
                       f"where {budget} fit"))
        if fitted is original:
            return fitted
        if not st.fitted:
            server.run.context.n_fitted += 1
            st.fitted = True
        h = self.planner.hash(fitted)
        if h != st.hash:
            if cache is not None and st.claimed:
                cache.release(st.hash, self.ctx.owner)
                st.claimed = False
            st.hash = h
            hit = self.planner.from_cache(fitted, cache.get(h)) if cache is not None else None
            if hit is not None:
                server.run.count_cached(hit)
                return hit
        return fitted

    async def _fit(self, req: JudgeRequest) -> tuple[JudgeRequest | None, int]:
        """``req`` fitted to the judge model's window (itself when it fits, or when no window
        is known); ``None`` when it cannot fit."""
        server = self.ctx.server
        budget = server.window.prompt_budget
        if budget is None:
            return req, 0
        mode = server.ladder.current
        extra = (lambda r: schema_instruction(r.schema)) if mode == "prompt" else (lambda r: "")
        return await fit_request(req, budget, server.count, extra)

    def _learn(self, too_long: TooLong, req: JudgeRequest, st: ItemState) -> bool:
        """Learn the window from a length refusal; whether fitting again would change
        anything (the window was unknown, or the server counts more tokens than the
        estimate)."""
        window = self.ctx.server.window
        learnt = window.learn(too_long.window, too_long.prompt_tokens,
                              len(req.system) + len(req.prompt),
                              "the server's context-length error")
        if learnt and too_long.window:
            self.ctx.note(f"the judge's context window is {window.tokens} tokens (from its "
                          "error); prompts are fitted to it")
        return bool(learnt or st.window != window.tokens)
