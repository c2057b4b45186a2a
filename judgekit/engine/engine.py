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
import sys
from collections.abc import Sequence
from typing import Any

from judgekit.engine import batch as batch_api
from judgekit.engine.cache import CachedVerdict, VerdictCache, request_hash
from judgekit.engine.options import EngineConfig, split_model
from judgekit.engine.pricing import PriceTable
from judgekit.engine.progress import RunProgress
from judgekit.engine.providers import Completion, Provider, make_provider, params_for
from judgekit.engine.redact import redact
from judgekit.engine.retry import AdaptiveLimiter, Skipped, call_with_retry
from judgekit.engine.structured import canonical_json, schema_problems
from judgekit.engine.types import Estimate, ItemOutcome, JudgeRequest, Usage
from judgekit.errors import ConfigError, ProviderError

#: batch answer placeholder of an item left out of a batch by ``--max-cost``.
OVER_BUDGET = "over budget"
#: output tokens assumed per call by :meth:`Engine.estimate`.
EST_OUTPUT_TOKENS = 400


class Engine:
    """Runs judge requests: cache, structured route, repair loop, retries, cost bound."""

    def __init__(self, config: EngineConfig) -> None:
        split_model(config.model)
        self.config = config
        self.prices = PriceTable.load()
        self._params = params_for(config)
        self._spent = 0.0
        self._budget_hit = False

    # -- public ---------------------------------------------------------------------
    def run(self, requests: Sequence[JudgeRequest]) -> list[ItemOutcome]:
        """Synchronous :meth:`arun` (not from inside a running event loop)."""
        return asyncio.run(self.arun(requests))

    async def arun(self, requests: Sequence[JudgeRequest]) -> list[ItemOutcome]:
        """One outcome per request, in the same order."""
        reqs = list(requests)
        hashes = self._hashes(reqs)
        cache = self._open_cache()
        try:
            outcomes, todo = self._serve_cached(reqs, hashes, cache)
            if self.config.dry_run:
                print(self._estimate(reqs, todo, len(reqs) - sum(map(len, todo.values()))),
                      file=sys.stderr)
                for idxs in todo.values():
                    for i in idxs:
                        outcomes[i] = self._outcome(reqs[i], "unscored", reason="dry run")
                return [o for o in outcomes if o is not None]
            progress = RunProgress(len(reqs), self.config.progress)
            progress.item(cached=True, failed=False, count=len(reqs) - sum(map(len, todo.values())))
            try:
                if todo:
                    await self._call_all(reqs, todo, outcomes, cache, progress)
            finally:
                progress.stop()
            return [o for o in outcomes if o is not None]
        finally:
            if cache is not None:
                cache.close()

    def estimate(self, requests: Sequence[JudgeRequest]) -> Estimate:
        """Calls a run would make, items already cached, and the estimated cost."""
        reqs = list(requests)
        hashes = self._hashes(reqs)
        cache = self._open_cache()
        try:
            _, todo = self._serve_cached(reqs, hashes, cache)
        finally:
            if cache is not None:
                cache.close()
        return self._estimate(reqs, todo, len(reqs) - sum(map(len, todo.values())))

    # -- planning -------------------------------------------------------------------
    def _hashes(self, reqs: list[JudgeRequest]) -> list[str]:
        seen: set[str] = set()
        for r in reqs:
            if r.key in seen:
                raise ConfigError(f"duplicate request key {r.key!r}")
            seen.add(r.key)
        provider, model = split_model(self.config.model)
        return [request_hash(provider, model, self._params, r.system, r.prompt, r.schema, r.name)
                for r in reqs]

    def _open_cache(self) -> VerdictCache | None:
        if not self.config.use_cache:
            return None
        path = self.config.resolved_cache_path()
        if self.config.dry_run and not path.exists():
            return None  # a dry run writes nothing, and there is nothing to read
        return VerdictCache(path)

    def _serve_cached(
        self, reqs: list[JudgeRequest], hashes: list[str], cache: VerdictCache | None
    ) -> tuple[list[ItemOutcome | None], dict[str, list[int]]]:
        outcomes: list[ItemOutcome | None] = [None] * len(reqs)
        todo: dict[str, list[int]] = {}
        for i, (req, h) in enumerate(zip(reqs, hashes)):
            if h in todo:
                todo[h].append(i)
                continue
            hit = cache.get(h) if cache is not None else None
            if hit is not None and hit.state == "unscored" and not self.config.retry_unscored:
                outcomes[i] = self._outcome(req, "unscored", reason=hit.reason, tries=hit.tries,
                                            cached=True)
            elif hit is not None and hit.verdict is not None and \
                    self._checks_pass(req, hit.verdict):
                outcomes[i] = self._outcome(req, "valid", verdict=hit.verdict, tries=hit.tries,
                                            cached=True, soft_failures=hit.soft_failures)
            else:
                todo[h] = [i]
        return outcomes, todo

    def _checks_pass(self, req: JudgeRequest, verdict: dict[str, Any]) -> bool:
        try:
            return not schema_problems(verdict, req.schema) and not (req.check and req.check(verdict))
        except Exception:  # noqa: BLE001  a check that raises is a failed check
            return False

    def _estimate(self, reqs: list[JudgeRequest], todo: dict[str, list[int]], cached: int) -> Estimate:
        total = sum(self._estimate_one(reqs[idxs[0]]) for idxs in todo.values())
        return Estimate(calls=len(todo), cached=cached, est_cost_usd=round(total, 6))

    def _estimate_one(self, req: JudgeRequest) -> float:
        provider, model = split_model(self.config.model)
        chars = len(req.system) + len(req.prompt) + len(canonical_json(req.schema))
        usage = Usage(input_tokens=chars // 4 + 50,
                      output_tokens=min(self.config.max_tokens, EST_OUTPUT_TOKENS))
        return self.prices.cost(provider, model, usage, batch=self.config.batch)

    # -- calling --------------------------------------------------------------------
    async def _call_all(self, reqs: list[JudgeRequest], todo: dict[str, list[int]],
                        outcomes: list[ItemOutcome | None], cache: VerdictCache | None,
                        progress: RunProgress) -> None:
        provider = make_provider(self.config)
        limiter = AdaptiveLimiter(self.config.concurrency)
        read_batches: list[str] = []
        try:
            first: dict[str, Completion | str] = {}
            if self.config.batch:
                if cache is None:
                    raise ConfigError("--batch needs the verdict cache (drop --no-cache)")
                items = self._within_budget({h: reqs[idxs[0]] for h, idxs in todo.items()})
                first, read_batches = await batch_api.collect(
                    provider, cache, items, poll_seconds=self.config.batch_poll_seconds,
                    retrying=lambda fn: self._retrying(fn, limiter))
            if self.config.batch:
                first.update({h: OVER_BUDGET for h in todo if h not in items})
            answers = await asyncio.gather(*(
                self._item(provider, limiter, cache, progress, reqs[idxs[0]], h, first.get(h))
                for h, idxs in todo.items()))
            for (h, idxs), outcome in zip(todo.items(), answers):
                for n, i in enumerate(idxs):
                    outcomes[i] = outcome if n == 0 else outcome.model_copy(
                        update={"key": reqs[i].key})
            if cache is not None:
                for batch_id in read_batches:
                    cache.close_batch(batch_id)
        finally:
            await provider.aclose()

    def _retrying(self, fn: Any, limiter: AdaptiveLimiter, on_retry: Any = None,
                  gate: Any = None) -> Any:
        c = self.config
        return call_with_retry(fn, limiter=limiter, attempts=c.retry_attempts,
                               base=c.backoff_base, cap=c.backoff_max, on_retry=on_retry,
                               gate=gate)

    def _within_budget(self, items: dict[str, JudgeRequest]) -> dict[str, JudgeRequest]:
        """The items a batch may hold under ``max_cost_usd``, by estimated cost, in order."""
        if self.config.max_cost_usd is None:
            return items
        admitted, total = {}, 0.0
        for h, req in items.items():
            total += self._estimate_one(req)
            if total > self.config.max_cost_usd:
                break
            admitted[h] = req
        return admitted

    def _over_budget(self, force: bool = False) -> bool:
        limit = self.config.max_cost_usd
        if limit is None or (self._spent < limit and not force and not self._budget_hit):
            return False
        if not self._budget_hit:
            self._budget_hit = True
            print(f"judgekit: max cost ${limit:.2f} reached (spent ${self._spent:.4f} so far); "
                  "no further calls scheduled", file=sys.stderr)
        return True

    async def _item(self, provider: Provider, limiter: AdaptiveLimiter,
                    cache: VerdictCache | None, progress: RunProgress, req: JudgeRequest,
                    h: str, first: Completion | str | None) -> ItemOutcome:
        state = _ItemState()
        try:
            outcome = await self._converse(provider, limiter, cache, progress, req, h, first, state)
        except Exception as exc:  # noqa: BLE001  a check that raised, an odd answer shape
            outcome = self._outcome(req, "error", reason=redact(f"{type(exc).__name__}: {exc}")[:400])
        outcome = outcome.model_copy(update={"tries": state.tries, "usage": state.usage,
                                             "cost_usd": state.cost, "retries": state.retries})
        progress.item(cached=False, failed=outcome.state != "valid")
        return outcome

    async def _converse(self, provider: Provider, limiter: AdaptiveLimiter,
                        cache: VerdictCache | None, progress: RunProgress, req: JudgeRequest,
                        h: str, first: Completion | str | None, st: _ItemState) -> ItemOutcome:
        batch_answer = first if isinstance(first, Completion) else None
        if first == OVER_BUDGET:
            self._over_budget(force=True)
            return self._outcome(req, "unscored", reason="max cost reached")
        messages = provider.start(req)
        soft_asked = False
        while True:
            if batch_answer is not None:
                comp, batch_answer, discount = batch_answer, None, True
            else:
                def on_retry(_: BaseException) -> None:
                    st.retries += 1
                gate = (lambda: not self._over_budget()) if st.tries == 0 else None
                try:
                    comp = await self._retrying(lambda m=messages: provider.complete(req, m),
                                                limiter, on_retry, gate)
                except Skipped:
                    return self._outcome(req, "unscored", reason="max cost reached")
                except ProviderError as exc:
                    return self._outcome(req, "error", reason=str(exc))
                discount = False
            st.tries += 1
            cost = self.prices.cost(provider.name, provider.model, comp.usage, batch=discount)
            st.usage, st.cost = st.usage + comp.usage, st.cost + cost
            self._spent += cost
            progress.call(cost)
            problems, soft = self._problems(req, comp)
            if not problems and soft and not soft_asked and st.tries < self.config.max_tries:
                soft_asked = True
                messages = messages + provider.follow_up(req, comp, soft)
                continue
            if not problems:
                verdict = comp.verdict or {}
                if cache is not None:
                    cache.put(h, CachedVerdict(verdict=verdict, tries=st.tries,
                                               model=self.config.model, usage=st.usage,
                                               cost_usd=st.cost, soft_failures=soft))
                return self._outcome(req, "valid", verdict=verdict, soft_failures=soft)
            if st.tries >= self.config.max_tries:
                reason = redact(f"no valid verdict after {st.tries} tries: "
                                + "; ".join(problems[:3]))[:400]
                if cache is not None:  # finished: a re-run does not ask again
                    cache.put(h, CachedVerdict(state="unscored", reason=reason, tries=st.tries,
                                               model=self.config.model, usage=st.usage,
                                               cost_usd=st.cost))
                return self._outcome(req, "unscored", reason=reason, tries=st.tries)
            messages = messages + provider.follow_up(req, comp, problems)

    def _problems(self, req: JudgeRequest, comp: Completion) -> tuple[list[str], list[str]]:
        if comp.verdict is None:
            return [comp.parse_problem or "no verdict found"], []
        problems = schema_problems(comp.verdict, req.schema)
        if not problems and req.check is not None:
            problems = list(req.check(comp.verdict))
        soft = list(req.soft_check(comp.verdict)) if not problems and req.soft_check else []
        return problems, soft

    def _outcome(self, req: JudgeRequest, state: str, **fields: Any) -> ItemOutcome:
        return ItemOutcome(key=req.key, state=state, model=self.config.model, **fields)  # type: ignore[arg-type]


class _ItemState:
    __slots__ = ("cost", "retries", "tries", "usage")

    def __init__(self) -> None:
        self.tries, self.usage, self.cost, self.retries = 0, Usage(), 0.0, 0
