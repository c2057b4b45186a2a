"""The engine: every model call of judgekit goes through :class:`Engine`.

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
import os
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from judgekit.engine import batch as batch_api
from judgekit.engine.cache import CachedVerdict, VerdictCache, request_hash
from judgekit.engine.config import EngineConfig
from judgekit.engine.events import EngineEvent, emit
from judgekit.engine.pricing import PriceTable
from judgekit.engine.prompt_cache import PrefixLedger, min_cacheable_tokens, warm_keys
from judgekit.engine.accounting import JudgeRun
from judgekit.engine.fitting import fit_request
from judgekit.engine.providers import (
    Completion,
    Provider,
    api_key_of,
    make_provider,
    schema_instruction,
)
from judgekit.engine.redact import redact
from judgekit.engine.retry import AdaptiveLimiter, ProviderRefused, Skipped, call_with_retry
from judgekit.engine.server import ModeRefused, ServerState, TooLong
from judgekit.engine.structured import canonical_json, schema_problems
from judgekit.engine.tokens import REQUEST_OVERHEAD_TOKENS, estimate_tokens, max_tokens_of
from judgekit.engine.types import Estimate, ItemOutcome, JudgeRequest, OnOutcome, State, Usage
from judgekit.errors import ConfigError

#: reason of an item not asked because the cost cap would not admit its call.
MAX_COST_REASON = "max cost reached"
#: batch answer placeholder of an item left out of a batch by ``--max-cost``.
OVER_BUDGET = MAX_COST_REASON
#: output tokens assumed per call by :meth:`Engine.estimate`.
EST_OUTPUT_TOKENS = 400
#: longest stretch the engine spends reading requests before its calls get a turn.
READ_SLICE_SECONDS = 0.002
#: a turn of the event loop shorter than this ran nothing but the engine's own look: work
#: handed to ``between_calls`` takes a step only after such an idle turn.
IDLE_TURN_SECONDS = 0.0005
#: seconds between looks at an item another process is asking.
CLAIM_POLL_SECONDS = 0.25
#: times one item is refitted after the server said it was too long.
MAX_REFITS = 2


class _Restart(Exception):
    """The structured-output mode changed since the item's messages were built."""


class _Refit(Exception):
    """The context window became known (or smaller) since the item was fitted."""


class _Busy(Skipped):
    """Another process holds the claim on this item."""


class _Answered(Skipped):
    """Another process answered this item since the run started."""

    def __init__(self, outcome: ItemOutcome) -> None:
        super().__init__("answered by another process")
        self.outcome = outcome


class _Notice:
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


class Engine:
    """Runs judge requests: cache, structured route, repair loop, retries, cost cap.

    One engine may serve several runs (pairwise, then audit); the cost cap and a stop
    after an authentication failure hold across them.
    """

    def __init__(self, config: EngineConfig) -> None:
        self.config = config
        self.prices = PriceTable.load()
        self._params = config.request_params()
        self._spent = 0.0
        #: what the same calls would have cost without the prompt cache.
        self._spent_uncached = 0.0
        #: per cacheable prefix: set once the first request carrying it is answered.
        self._warming: dict[str, asyncio.Event] = {}
        self._reserved = 0.0
        self._batch_reserved: dict[str, float] = {}
        self._settled: asyncio.Condition | None = None
        self._cap_noted = False
        #: why scheduling stopped (an authentication or permission failure), if it did.
        self.stopped: str | None = None
        self._owner = f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
        self._background: list[Iterator[object]] = []
        self._advancing: asyncio.Task[None] | None = None
        #: the judge server: mode, window, slots, and the count of every request it got.
        self.server = ServerState(config)
        known = self.server.local or self.prices.known(config.provider, config.model_name)
        if config.max_cost_usd is not None and not known and not config.dry_run:
            raise ConfigError(f"--max-cost cannot be held: no price is known for "
                              f"{config.model} (see judgekit/engine/prices.json)")
        self._unknown_price = not known

    @property
    def spent_usd(self) -> float:
        """Dollars recorded so far by this engine (all runs)."""
        return self._spent

    def judge_run(self) -> JudgeRun:
        """What this engine did so far (all runs): ``summary["judge"]``."""
        return self.server.report(self._spent, self._spent_uncached)

    # -- public ---------------------------------------------------------------------
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
        will yield, for the progress display). A dry run and ``--batch`` read it whole
        first.

        ``on_outcome(i, outcome)`` hears of request ``i``'s outcome as soon as it is known
        (a cache hit when read, an answer when it settles), so work on it can be done while
        other calls are in flight. It is a notice, not a promise: a copy of a request asked
        twice, a dry run and ``--batch`` are not announced, and a notice that raises ends
        the notices. The outcome it is given is the very object the returned list holds.
        """
        if self.config.dry_run or self.config.batch or isinstance(requests, Sequence):
            return await self._arun_all(list(requests))
        cache = self._open_cache()
        try:
            await self._prepare(cache)
            self._start_note()
            self._event(EngineEvent("start", items=total or 0))
            try:
                return await self._stream(iter(requests), cache, on_outcome)
            finally:
                self._event(EngineEvent("end"))
        finally:
            self._close_cache(cache)

    def _start_note(self) -> None:
        if self._unknown_price:
            self._note(f"warning: no price known for {redact(self.config.model)}; "
                       "its cost counts as $0")
            self._unknown_price = False

    def _close_cache(self, cache: VerdictCache | None) -> None:
        self.server.remember(cache)
        if cache is not None:
            with contextlib.suppress(Exception):
                cache.release_all(self._owner)
            cache.close()

    async def _prepare(self, cache: VerdictCache | None) -> None:
        await self.server.prepare(cache, api_key_of(self.config))
        self._params = {**self._params, "route": self.server.ladder.current}

    async def _arun_all(self, reqs: list[JudgeRequest]) -> list[ItemOutcome]:
        cache = self._open_cache()
        if not self.config.dry_run:
            await self._prepare(cache)
        hashes = self._hashes(reqs)
        try:
            outcomes, todo = self._serve_cached(reqs, hashes, cache)
            served = len(reqs) - sum(map(len, todo.values()))
            if self.config.dry_run:
                estimate = self._estimate(reqs, todo, served)
                self._event(EngineEvent("estimate", text=str(estimate)))
                for idxs in todo.values():
                    for i in idxs:
                        outcomes[i] = self._outcome(reqs[i], "unscored", reason="dry run")
                return [o for o in outcomes if o is not None]
            self._start_note()
            self._event(EngineEvent("start", items=len(reqs), to_ask=len(todo)))
            if served:
                self._event(EngineEvent("item", cached=True, count=served, state="valid"))
            try:
                if todo:
                    await self._call_all(reqs, todo, outcomes, cache)
            finally:
                self._event(EngineEvent("end"))
            return [o for o in outcomes if o is not None]
        finally:
            self._close_cache(cache)

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
        self._background.append(iter(work))

    async def _advance_background(self) -> None:
        while self._background:
            waited = time.perf_counter()
            await asyncio.sleep(0)  # the calls ready to go (or be read) go first
            if time.perf_counter() - waited > IDLE_TURN_SECONDS:
                continue  # the loop had other work this turn: look again next turn
            work = self._background[0]
            try:
                next(work)
            except StopIteration:
                self._background.pop(0)
            except Exception:  # noqa: BLE001  the caller meets it when it finishes the work
                self._background.pop(0)

    def _start_background(self) -> None:
        if self._background and self._advancing is None:
            self._advancing = asyncio.create_task(self._advance_background())

    def estimate(self, requests: Sequence[JudgeRequest]) -> Estimate:
        """Calls a run would make (one per item to ask), items already cached, and the
        estimated cost."""
        reqs = list(requests)
        hashes = self._hashes(reqs)
        cache = self._open_cache()
        try:
            _, todo = self._serve_cached(reqs, hashes, cache)
        finally:
            if cache is not None:
                cache.close()
        return self._estimate(reqs, todo, len(reqs) - sum(map(len, todo.values())))

    # -- events ---------------------------------------------------------------------
    def _event(self, event: EngineEvent) -> None:
        emit(self.config.on_event, event)

    def _note(self, text: str) -> None:
        self._event(EngineEvent("note", text=text))

    # -- planning -------------------------------------------------------------------
    def _hashes(self, reqs: list[JudgeRequest]) -> list[str]:
        seen: set[str] = set()
        for r in reqs:
            if r.key in seen:
                raise ConfigError(f"duplicate request key {r.key!r}")
            seen.add(r.key)
        return [self._hash(r) for r in reqs]

    def _hash(self, r: JudgeRequest) -> str:
        c = self.config
        params = self._params
        mode = self.server.ladder.current
        if params.get("route") != mode:
            params = {**params, "route": mode}
        if c.cache_scope:
            params = {**params, "judge": c.cache_scope}
        return request_hash(c.provider, c.model_name, params, r.system, r.prompt,
                            r.schema, r.name, repeat=r.repeat)

    def _open_cache(self) -> VerdictCache | None:
        if not self.config.use_cache:
            return None
        path = self.config.resolved_cache_path()
        if self.config.dry_run and not path.exists():
            return None  # a dry run writes nothing, and there is nothing to read
        return VerdictCache(path)

    def _from_cache(self, req: JudgeRequest, hit: CachedVerdict | None) -> ItemOutcome | None:
        """The outcome a cache entry gives ``req``, or None when it must be asked."""
        if hit is None:
            return None
        if hit.state == "unscored" and not self.config.retry_unscored:
            return self._outcome(req, "unscored", reason=hit.reason, tries=hit.tries,
                                 cached=True)
        if hit.verdict is not None and self._checks_pass(req, hit.verdict):
            return self._outcome(req, "valid", verdict=hit.verdict, tries=hit.tries,
                                 cached=True, soft_failures=hit.soft_failures)
        return None

    def _serve_cached(
        self, reqs: list[JudgeRequest], hashes: list[str], cache: VerdictCache | None
    ) -> tuple[list[ItemOutcome | None], dict[str, list[int]]]:
        outcomes: list[ItemOutcome | None] = [None] * len(reqs)
        todo: dict[str, list[int]] = {}
        for i, (req, h) in enumerate(zip(reqs, hashes)):
            self._place(i, req, h, cache, outcomes, todo)
        return outcomes, todo

    def _place(self, i: int, req: JudgeRequest, h: str, cache: VerdictCache | None,
               outcomes: list[ItemOutcome | None], todo: dict[str, list[int]]) -> bool:
        """Request ``i`` is a copy of an item already planned, a cache hit (its outcome is
        filled in) or a new item to ask (True)."""
        if h in todo:
            todo[h].append(i)
            return False
        hit = self._from_cache(req, cache.get(h)) if cache is not None else None
        if hit is not None:
            outcomes[i] = hit
            return False
        todo[h] = [i]
        return True

    def _checks_pass(self, req: JudgeRequest, verdict: dict[str, Any]) -> bool:
        try:
            return not schema_problems(verdict, req.schema) and not (req.check and req.check(verdict))
        except Exception:  # noqa: BLE001  a check that raises is a failed check
            return False

    def _estimate(self, reqs: list[JudgeRequest], todo: dict[str, list[int]], cached: int) -> Estimate:
        """The cost of the calls to make, in the order they go out: with the prompt cache
        on, each request reads the longest prefix sent before it and writes the rest of
        its own (from the model's minimum length on)."""
        c = self.config
        ledger = PrefixLedger(min_cacheable_tokens(c.model_name))
        total = plain = 0.0
        for idxs in todo.values():
            req = reqs[idxs[0]]
            text = req.system + req.prompt + canonical_json(req.schema)
            tokens = estimate_tokens(text) + 50
            output = min(c.max_tokens, EST_OUTPUT_TOKENS)
            usage = Usage(input_tokens=tokens, output_tokens=output)
            plain += self.prices.cost(c.provider, c.model_name, usage, batch=c.batch)
            if c.prompt_cache:
                usage = ledger.usage(req, tokens, output)
            total += self.prices.cost(c.provider, c.model_name, usage, batch=c.batch)
        return Estimate(calls=len(todo), cached=cached, est_cost_usd=round(total, 6),
                        est_cost_without_cache_usd=round(plain, 6))

    # -- the cost cap -----------------------------------------------------------------
    def worst_case(self, req: JudgeRequest) -> float:
        """The most the first call of ``req`` can cost (what the cost cap admits it by)."""
        return self._worst_case(req, [{"role": "user", "content": req.prompt}])

    def _worst_case(self, req: JudgeRequest, messages: list[dict[str, Any]]) -> float:
        """The most one call can cost: every input byte a token at the dearest input price,
        plus ``max_tokens`` of output."""
        c = self.config
        tokens = (max_tokens_of(req.system) + max_tokens_of(canonical_json(messages))
                  + max_tokens_of(canonical_json(req.schema)) + REQUEST_OVERHEAD_TOKENS)
        return self.prices.worst_case(c.provider, c.model_name, tokens, c.max_tokens,
                                      batch=c.batch)

    def _admit(self, worst: float) -> bool:
        limit = self.config.max_cost_usd
        if limit is None:
            return True
        if self._spent + self._reserved + worst > limit:
            if not self._cap_noted:
                self._cap_noted = True
                self._note(f"max cost ${limit:.2f}: no further calls admitted (spent "
                           f"${self._spent:.4f}; the next call could cost up to ${worst:.4f})")
            return False
        self._reserved += worst
        return True

    async def _admit_when_settled(self, worst: float) -> bool:
        """Admit a call of at most ``worst`` dollars; while calls in flight hold
        reservations that may leave room once their real (smaller) cost is known, wait
        for them before saying no."""
        if self.config.max_cost_usd is None or self._settled is None:
            return self._admit(worst)
        limit = self.config.max_cost_usd
        async with self._settled:
            await self._settled.wait_for(
                lambda: self._spent + self._reserved + worst <= limit or self._reserved <= 1e-12)
        return self._admit(worst)

    def _price(self, usage: Usage, *, batch: bool) -> float:
        c = self.config
        if self.server.local:
            return 0.0
        return self.prices.cost(c.provider, c.model_name, usage, batch=batch)

    def _record_spend(self, cost: float, usage: Usage, *, batch: bool) -> None:
        self._spent += cost
        self._spent_uncached += self._price(usage.uncached(), batch=batch)
        self._event(EngineEvent("call", cost=cost))

    # -- calling --------------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def _calling(self, cache: VerdictCache | None) -> Any:
        """The provider and the concurrency limiter of one run, with claims kept alive."""
        settled = self.server.settled
        provider = make_provider(settled)
        limiter = AdaptiveLimiter(settled.concurrency or 1)
        self._settled = asyncio.Condition()
        self._warming = {}
        renewer = (asyncio.create_task(self._renew_claims(cache))
                   if cache is not None and not self.config.batch else None)
        try:
            yield provider, limiter
        finally:
            if self._advancing is not None:
                self._advancing.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._advancing
                self._advancing = None
            if renewer is not None:
                renewer.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await renewer
            self._settled = None
            await provider.aclose()
            await self.server.aclose()

    async def _stream(self, requests: Iterator[JudgeRequest], cache: VerdictCache | None,
                      on_outcome: OnOutcome | None = None) -> list[ItemOutcome]:
        """Ask each request as it is read; the calls get a turn every ``READ_SLICE_SECONDS``."""
        notice = _Notice(on_outcome)
        outcomes: list[ItemOutcome | None] = []
        todo: dict[str, list[int]] = {}
        reqs: list[JudgeRequest] = []
        tasks: list[asyncio.Task[ItemOutcome]] = []
        keys: set[str] = set()
        turn = 0.0
        async with self._calling(cache) as (provider, limiter):
            try:
                for i, req in enumerate(requests):
                    if req.key in keys:
                        raise ConfigError(f"duplicate request key {req.key!r}")
                    keys.add(req.key)
                    reqs.append(req)
                    outcomes.append(None)
                    h = self._hash(req)
                    if self._place(i, req, h, cache, outcomes, todo):
                        task = asyncio.create_task(
                            self._item(provider, limiter, cache, req, h, None))
                        if on_outcome is not None:
                            task.add_done_callback(notice.of(i))
                        tasks.append(task)
                    elif (hit := outcomes[i]) is not None:
                        self._event(EngineEvent("item", cached=True, count=1, state=hit.state))
                        notice(i, hit)
                    if time.perf_counter() >= turn:  # the calls made so far go out
                        await asyncio.sleep(0)
                        turn = time.perf_counter() + READ_SLICE_SECONDS
                self._start_background()
                answers = await asyncio.gather(*tasks)
            except BaseException:
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                raise
        self._fill(reqs, todo, answers, outcomes)
        return [o for o in outcomes if o is not None]

    def _fill(self, reqs: list[JudgeRequest], todo: dict[str, list[int]],
              answers: Sequence[ItemOutcome], outcomes: list[ItemOutcome | None]) -> None:
        """Each item's outcome in its slot; a request asked twice in one run (same hash) is
        asked once and its copies count as cached."""
        for (_, idxs), outcome in zip(todo.items(), answers):
            outcomes[idxs[0]] = outcome
            for i in idxs[1:]:
                outcomes[i] = outcome.model_copy(update={
                    "key": reqs[i].key, "cached": True, "tries": 0, "retries": 0,
                    "usage": Usage(), "cost_usd": 0.0})
            if len(idxs) > 1:
                self._event(EngineEvent("item", cached=True, state=outcome.state,
                                        count=len(idxs) - 1))

    async def _call_all(self, reqs: list[JudgeRequest], todo: dict[str, list[int]],
                        outcomes: list[ItemOutcome | None], cache: VerdictCache | None) -> None:
        read_batches: list[str] = []
        async with self._calling(cache) as (provider, limiter):
            first: dict[str, Completion | str] = {}
            if self.config.batch:
                if cache is None:
                    raise ConfigError("--batch needs the verdict cache (drop --no-cache)")
                items = self._within_budget({h: reqs[idxs[0]] for h, idxs in todo.items()})
                first, read_batches = await batch_api.collect(
                    provider, cache, items, poll_seconds=self.config.batch_poll_seconds,
                    retrying=lambda fn: self._retrying(fn, limiter), note=self._note)
                first.update({h: OVER_BUDGET for h in todo if h not in items})
            self._start_background()
            answers = await asyncio.gather(*(
                self._item(provider, limiter, cache, reqs[idxs[0]], h, first.get(h))
                for h, idxs in todo.items()))
            self._fill(reqs, todo, answers, outcomes)
            if cache is not None:
                for batch_id in read_batches:
                    cache.close_batch(batch_id)

    async def _renew_claims(self, cache: VerdictCache) -> None:
        lease = self.config.claim_lease
        while True:
            await asyncio.sleep(lease / 3)
            with contextlib.suppress(Exception):
                cache.renew(self._owner, lease)

    def _retrying(self, fn: Any, limiter: AdaptiveLimiter, on_retry: Any = None) -> Any:
        c = self.server.settled
        return call_with_retry(fn, limiter=limiter, attempts=c.retry_attempts,
                               base=c.backoff_base, cap=c.backoff_max, on_retry=on_retry,
                               max_timeouts=c.timeout_retries)

    def _within_budget(self, items: dict[str, JudgeRequest]) -> dict[str, JudgeRequest]:
        """The items a batch may hold under ``max_cost_usd``, by worst-case cost, in order."""
        if self.config.max_cost_usd is None:
            return items
        admitted = {}
        for h, req in items.items():
            worst = self.worst_case(req)
            if not self._admit(worst):
                break
            admitted[h] = req
            self._batch_reserved[h] = worst
        return admitted

    async def _item(self, provider: Provider, limiter: AdaptiveLimiter,
                    cache: VerdictCache | None, req: JudgeRequest, h: str,
                    first: Completion | str | None) -> ItemOutcome:
        state = _ItemState()
        state.hash = h
        try:
            if first is None:
                state.leads = await self._warm_turn(req)
            outcome = await self._fitted_converse(provider, limiter, cache, req, first, state)
        except Exception as exc:  # noqa: BLE001  a check that raised, an odd answer shape
            outcome = self._outcome(req, "error", reason=redact(f"{type(exc).__name__}: {exc}")[:400])
        finally:
            state.warmed()
            if cache is not None and state.claimed:
                with contextlib.suppress(Exception):
                    cache.release(state.hash, self._owner)
        if not outcome.cached:
            outcome = outcome.model_copy(update={
                "tries": max(state.tries, 1) if state.sent else state.tries,
                "usage": state.usage, "cost_usd": state.cost, "retries": state.retries,
                "fitted": state.fitted})
        self._event(EngineEvent("item", cached=outcome.cached, state=outcome.state, count=1))
        return outcome

    async def _warm_turn(self, req: JudgeRequest) -> list[asyncio.Event]:
        """Wait until the cache holds the prefixes ``req`` shares with requests before it
        (their first request was answered); the prefixes it is the first to carry are
        its own to warm: the events it sets once it is answered."""
        if not self.config.prompt_cache:
            return []
        leads: list[asyncio.Event] = []
        for key in warm_keys(req, min_cacheable_tokens(self.config.model_name)):
            event = self._warming.get(key)
            if event is None:
                self._warming[key] = event = asyncio.Event()
                leads.append(event)
            elif not leads:
                await event.wait()
        return leads

    async def _fit(self, req: JudgeRequest) -> tuple[JudgeRequest | None, int]:
        """``req`` fitted to the judge model's window (itself when it fits, or when no window
        is known); ``None`` when it cannot fit."""
        budget = self.server.window.prompt_budget
        if budget is None:
            return req, 0
        mode = self.server.ladder.current
        extra = (lambda r: schema_instruction(r.schema)) if mode == "prompt" else (lambda r: "")
        return await fit_request(req, budget, self.server.count, extra)

    async def _fitted_converse(self, provider: Provider, limiter: AdaptiveLimiter,
                               cache: VerdictCache | None, req: JudgeRequest,
                               first: Completion | str | None, st: _ItemState) -> ItemOutcome:
        """Fit the request to the window, then converse; refit when the server says the
        request is too long and names (or implies) a smaller window."""
        original = req
        refits = 0
        while True:
            st.window = self.server.window.tokens
            if not isinstance(first, Completion):  # a batch answer was asked as it is
                fitted, tokens = await self._fit(original)
                if fitted is None:
                    self.server.run.count_skip("too_long_for_context")
                    budget = self.server.window.prompt_budget
                    return self._outcome(original, "unscored", skipped="too_long_for_context",
                                         reason=f"too long for the judge's context window: "
                                                f"about {tokens} tokens where {budget} fit")
                if fitted is not original:
                    if not st.fitted:
                        self.server.run.context.n_fitted += 1
                    st.fitted = True
                    h = self._hash(fitted)
                    if h != st.hash:
                        if cache is not None and st.claimed:
                            cache.release(st.hash, self._owner)
                            st.claimed = False
                        st.hash = h
                        hit = self._from_cache(fitted, cache.get(h)) if cache is not None else None
                        if hit is not None:
                            return hit
                req = fitted
            try:
                return await self._converse(provider, limiter, cache, req, st.hash, first, st)
            except _Refit:
                first = None
                continue
            except TooLong as too_long:
                refits += 1
                window = self.server.window
                learnt = window.learn(
                    too_long.window, too_long.prompt_tokens,
                    len(req.system) + len(req.prompt), "the server's context-length error")
                if learnt and too_long.window:
                    self._note(f"the judge's context window is {window.tokens} tokens (from "
                               "its error); prompts are fitted to it")
                # fitted before the window was known, or the server counts more tokens
                # than the estimate: fit again; otherwise nothing would change
                if refits > MAX_REFITS or not (learnt or st.window != window.tokens):
                    return self._outcome(req, "error", reason=str(too_long))
                first = None

    async def _await_other(self, cache: VerdictCache, req: JudgeRequest,
                           h: str) -> ItemOutcome | None:
        """Wait while another process asks for ``h``: its outcome, or None once the item
        is ours to ask (the other process gave up or died)."""
        while True:
            await asyncio.sleep(CLAIM_POLL_SECONDS)
            done = self._from_cache(req, cache.get(h))
            if done is not None:
                return done
            if cache.claim(h, self._owner, self.config.claim_lease):
                done = self._from_cache(req, cache.get(h))  # finished just before we claimed
                if done is not None:
                    cache.release(h, self._owner)
                return done

    def _call_once(self, provider: Provider, cache: VerdictCache | None, req: JudgeRequest,
                   h: str, messages: list[dict[str, Any]], st: _ItemState) -> Any:
        """The coroutine function of one call: runs once a slot is free."""

        async def call() -> Completion:
            if self.stopped is not None:
                raise Skipped(f"not sent: {self.stopped}")
            if cache is not None and not st.claimed:
                if not cache.claim(h, self._owner, self.config.claim_lease):
                    raise _Busy("claimed by another process")
                st.claimed = True
                done = self._from_cache(req, cache.get(h))
                if done is not None:  # finished elsewhere between our start and our claim
                    raise _Answered(done)
            worst = self._worst_case(req, messages) if self.config.max_cost_usd else 0.0
            if not await self._admit_when_settled(worst):
                raise Skipped(MAX_COST_REASON)
            try:
                if st.window != self.server.window.tokens:
                    raise _Refit()
                async with self.server.ladder.turn() as mode:
                    if mode != st.mode:
                        raise _Restart(mode)
                    comp = await self._send(provider, req, messages, mode, st)
                # recorded before the reservation is given back: spend + reserved never dips
                comp.extra["cost_usd"] = cost = self._price(comp.usage, batch=False)
                self._record_spend(cost, comp.usage, batch=False)
                return comp
            finally:
                self._reserved -= worst
                if self._settled is not None:
                    async with self._settled:
                        self._settled.notify_all()

        return call

    async def _send(self, provider: Provider, req: JudgeRequest,
                    messages: list[dict[str, Any]], mode: Any, st: _ItemState) -> Completion:
        """One request on the wire, counted whatever becomes of it."""
        run = self.server.run
        run.calls += 1
        st.sent += 1
        try:
            comp = await provider.complete(req, messages, mode=mode,
                                           max_tokens=self.server.window.answer_tokens)
        except Exception as exc:
            raise self.server.classify(exc, mode) from None
        self.server.ladder.confirm(mode)
        st.warmed()
        run.answered += 1
        run.input_tokens += comp.usage.input_tokens
        run.output_tokens += comp.usage.output_tokens
        run.cache_read_tokens += comp.usage.cache_read_tokens
        run.cache_write_tokens += comp.usage.cache_write_tokens
        return comp

    def _fresh(self, provider: Provider, req: JudgeRequest, st: _ItemState
               ) -> list[dict[str, Any]]:
        st.mode = self.server.ladder.current
        return provider.start(req, st.mode)

    async def _fits(self, messages: list[dict[str, Any]]) -> bool:
        """Whether a conversation (the repair loop's, grown by answers and re-asks) still
        fits the judge model's window."""
        budget = self.server.window.prompt_budget
        if budget is None:
            return True
        text = "\n".join(_content_text(m.get("content")) + str(m.get("tool_calls") or "")
                         for m in messages)
        return await self.server.count(text) <= budget

    async def _converse(self, provider: Provider, limiter: AdaptiveLimiter,
                        cache: VerdictCache | None, req: JudgeRequest, h: str,
                        first: Completion | str | None, st: _ItemState) -> ItemOutcome:
        batch_answer = first if isinstance(first, Completion) else None
        if first == OVER_BUDGET:
            return self._outcome(req, "unscored", reason=MAX_COST_REASON, skipped_cost=True)
        if isinstance(first, str):
            self._reserved -= self._batch_reserved.pop(h, 0.0)
            return self._outcome(req, "error", reason=redact(first)[:400])
        messages = self._fresh(provider, req, st)
        soft_asked = False
        while True:
            if batch_answer is not None:
                comp, batch_answer, discount = batch_answer, None, True
                self._reserved -= self._batch_reserved.pop(h, 0.0)
            else:
                def on_retry(_: BaseException) -> None:
                    st.retries += 1
                try:
                    comp = await self._retrying(
                        self._call_once(provider, cache, req, h, messages, st), limiter,
                        on_retry)
                except _Restart:
                    messages = self._fresh(provider, req, st)
                    continue
                except ModeRefused as refused:
                    ladder = self.server.ladder
                    if ladder.step_down(refused.mode, str(refused)):  # type: ignore[arg-type]
                        if ladder.current != refused.mode:
                            self._note(f"the judge server refused structured output "
                                       f"{refused.mode!r}; asking with {ladder.current!r}")
                        messages = self._fresh(provider, req, st)
                        continue
                    return self._outcome(req, "error", reason=f"the server refused every "
                                         f"structured-output mode; last: {refused}"[:400])
                except _Answered as answered:
                    return answered.outcome
                except _Busy:
                    assert cache is not None
                    done = await self._await_other(cache, req, h)
                    if done is not None:
                        return done
                    st.claimed = True
                    continue
                except Skipped as skip:
                    if str(skip) == MAX_COST_REASON:
                        reason = (MAX_COST_REASON if st.tries == 0 else
                                  f"{MAX_COST_REASON} before a valid verdict "
                                  f"({st.tries} answers)")
                        return self._outcome(req, "unscored", reason=reason,
                                             skipped_cost=st.tries == 0)
                    return self._outcome(req, "error", reason=str(skip))
                except ProviderRefused as exc:
                    if exc.stops_run and self.stopped is None:
                        self.stopped = str(exc)
                        self._note(f"stopped: {exc}; no further calls are sent")
                    return self._outcome(req, "error", reason=str(exc))
                discount = False
            st.tries += 1
            c = self.config
            if discount:
                cost = self._price(comp.usage, batch=True)
                self._record_spend(cost, comp.usage, batch=True)
            else:
                cost = comp.extra["cost_usd"]
            st.usage, st.cost = st.usage + comp.usage, st.cost + cost
            problems, soft = self._problems(req, comp)
            if not problems and soft and not soft_asked and st.tries < c.max_tries:
                soft_asked = True
                messages = await self._reask(provider, req, messages, comp, soft, st)
                continue
            if not problems:
                verdict = comp.verdict or {}
                if cache is not None:
                    cache.put(h, CachedVerdict(verdict=verdict, tries=st.tries,
                                               model=c.model, usage=st.usage,
                                               cost_usd=st.cost, soft_failures=soft))
                return self._outcome(req, "valid", verdict=verdict, soft_failures=soft)
            if st.tries >= c.max_tries:
                reason = redact(f"no valid verdict after {st.tries} tries: "
                                + "; ".join(problems[:3]))[:400]
                if cache is not None:  # finished: a re-run does not ask again
                    cache.put(h, CachedVerdict(state="unscored", reason=reason, tries=st.tries,
                                               model=c.model, usage=st.usage,
                                               cost_usd=st.cost))
                return self._outcome(req, "unscored", reason=reason)
            messages = await self._reask(provider, req, messages, comp, problems, st)

    async def _reask(self, provider: Provider, req: JudgeRequest,
                     messages: list[dict[str, Any]], comp: Completion, problems: list[str],
                     st: _ItemState) -> list[dict[str, Any]]:
        """The conversation that re-asks after ``problems``; when it would no longer fit
        the judge model's window, the question is asked afresh instead."""
        grown = messages + provider.follow_up(req, comp, problems)
        if await self._fits(grown):
            return grown
        return self._fresh(provider, req, st)

    def _problems(self, req: JudgeRequest, comp: Completion) -> tuple[list[str], list[str]]:
        if comp.verdict is None:
            return [comp.parse_problem or "no verdict found"], []
        problems = schema_problems(comp.verdict, req.schema)
        if not problems and req.check is not None:
            problems = list(req.check(comp.verdict))
        soft = list(req.soft_check(comp.verdict)) if not problems and req.soft_check else []
        return problems, soft

    def _outcome(self, req: JudgeRequest, state: State, **fields: Any) -> ItemOutcome:
        return ItemOutcome(key=req.key, state=state, model=self.config.model, **fields)


def _content_text(content: Any) -> str:
    """The text of a message's content: a string, or the API's list of blocks."""
    if isinstance(content, list):
        return "".join(b.get("text") or str(b.get("content") or b.get("input") or "")
                       if isinstance(b, dict) else str(b) for b in content)
    return str(content or "")


class _ItemState:
    __slots__ = ("claimed", "cost", "fitted", "hash", "leads", "mode", "retries", "sent",
                 "tries", "usage", "window")

    def __init__(self) -> None:
        self.tries, self.usage, self.cost, self.retries = 0, Usage(), 0.0, 0
        self.claimed = False
        self.sent = 0
        self.fitted = False
        self.hash = ""
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
