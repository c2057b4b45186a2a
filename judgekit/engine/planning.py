"""Which requests need a call: each request's cache key, what the verdict cache already
holds, and the copies of a request asked twice in one run.

A request's key (:func:`judgekit.engine.cache.request_hash`) covers the provider and model,
the server that answers when the judge has a base URL
(:meth:`~judgekit.engine.config.EngineConfig.verdict_scope`), the parameters that shape
answers (the structured-output mode in use among them), the prompt, the schema and the
repetition. A cached valid verdict serves a request only while it still passes the
request's checks; an item the cache holds as unscored is asked again unless
``retry_unscored`` is off.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from judgekit.engine.cache import CachedVerdict, VerdictCache, request_hash
from judgekit.engine.config import EngineConfig
from judgekit.engine.context import EngineContext
from judgekit.engine.events import EngineEvent
from judgekit.engine.structured import schema_problems
from judgekit.engine.types import Failed, ItemOutcome, JudgeRequest, Usage
from judgekit.errors import ConfigError

#: per request hash, the indices of the requests that share it (the first is asked).
Todo = dict[str, list[int]]


class Planner:
    """Cache keys and cache lookups of one engine's requests."""

    def __init__(self, ctx: EngineContext) -> None:
        self.ctx = ctx
        #: the judge's server as cache keys record it, per config it was worked out for.
        self._scope: tuple[EngineConfig, str | None] | None = None

    def open_cache(self) -> VerdictCache | None:
        """The verdict cache of a run (none when it is off, or on a dry run with no file)."""
        config = self.ctx.config
        if not config.use_cache:
            return None
        path = config.resolved_cache_path()
        if config.dry_run and not path.exists():
            return None  # a dry run writes nothing, and there is nothing to read
        return VerdictCache(path)

    def hashes(self, reqs: list[JudgeRequest]) -> list[str]:
        """The cache key of each request; two requests of one key are an error."""
        seen: set[str] = set()
        for r in reqs:
            if r.key in seen:
                raise ConfigError(f"duplicate request key {r.key!r}")
            seen.add(r.key)
        return [self.hash(r) for r in reqs]

    def hash(self, r: JudgeRequest) -> str:
        c = self.ctx.config
        params = self.ctx.params
        mode = self.ctx.server.ladder.current
        if params.get("route") != mode:
            params = {**params, "route": mode}
        scope = self.scope()
        if scope:
            params = {**params, "judge": scope}
        return request_hash(c.provider, c.model_name, params, r.system, r.prompt,
                            r.schema, r.name, repeat=r.repeat)

    def scope(self) -> str | None:
        """The judge's server in cache keys (worked out once per config)."""
        config = self.ctx.config
        if self._scope is None or self._scope[0] is not config:
            self._scope = (config, config.verdict_scope())
        return self._scope[1]

    def from_cache(self, req: JudgeRequest, hit: CachedVerdict | None) -> ItemOutcome | None:
        """The outcome a cache entry gives ``req``, or None when it must be asked."""
        if hit is None:
            return None
        if hit.state == "unscored":
            if self.ctx.config.retry_unscored:
                return None
            return self.ctx.outcome(req, "unscored", reason=hit.reason, tries=hit.tries,
                                    cached=True, failure=Failed.NO_VALID_VERDICT)
        if hit.verdict is not None and _checks_pass(req, hit.verdict):
            return self.ctx.outcome(req, "valid", verdict=hit.verdict, tries=hit.tries,
                                    cached=True, soft_failures=hit.soft_failures)
        return None

    def serve_cached(self, reqs: list[JudgeRequest], hashes: list[str],
                     cache: VerdictCache | None) -> tuple[list[ItemOutcome | None], Todo]:
        """The outcomes the cache gives, and the items left to ask."""
        outcomes: list[ItemOutcome | None] = [None] * len(reqs)
        todo: Todo = {}
        served: set[str] = set()
        for i, (req, h) in enumerate(zip(reqs, hashes)):
            self.place(i, req, h, cache, outcomes, todo, served)
        return outcomes, todo

    def place(self, i: int, req: JudgeRequest, h: str, cache: VerdictCache | None,
              outcomes: list[ItemOutcome | None], todo: Todo,
              served: set[str] | None = None) -> bool:
        """Request ``i`` is a copy of an item already planned, a cache hit (its outcome is
        filled in) or a new item to ask (True). ``served``: the hashes the cache answered
        so far in this run; a second request of one of them is a copy (no tries), as it
        is when the run asks, so a cached run counts the tries the fresh run did."""
        if h in todo:
            todo[h].append(i)
            return False
        hit = self.from_cache(req, cache.get(h)) if cache is not None else None
        if hit is not None:
            if served is not None and h in served:
                hit = hit.model_copy(update={"tries": 0, "retries": 0})
            elif served is not None:
                served.add(h)
            outcomes[i] = hit
            return False
        todo[h] = [i]
        return True

    def fill(self, reqs: list[JudgeRequest], todo: Todo, answers: Sequence[ItemOutcome],
             outcomes: list[ItemOutcome | None]) -> None:
        """Each item's outcome in its slot; a request asked twice in one run (same hash) is
        asked once and its copies count as cached."""
        for (_, idxs), outcome in zip(todo.items(), answers):
            outcomes[idxs[0]] = outcome
            for i in idxs[1:]:
                outcomes[i] = outcome.model_copy(update={
                    "key": reqs[i].key, "cached": True, "tries": 0, "retries": 0,
                    "usage": Usage(), "cost_usd": 0.0})
            if len(idxs) > 1:
                self.ctx.event(EngineEvent("item", cached=True, state=outcome.state,
                                           count=len(idxs) - 1))


def _checks_pass(req: JudgeRequest, verdict: dict[str, Any]) -> bool:
    try:
        return not schema_problems(verdict, req.schema) and not (req.check and req.check(verdict))
    except Exception:  # noqa: BLE001  a check that raises is a failed check
        return False
