"""What the parts of one engine share.

:class:`EngineContext` lives as long as its engine: the config, the judge server as the
engine knows it, the spend and the cost cap, the engine's name as a claimant of cache
entries, and why it stopped sending calls, if it did. :class:`Session` lives for one run's
calls: the provider's client, the concurrency bound, the verdict cache and the prompt-cache
prefixes being warmed.

Example:
    >>> from judgekit.engine.config import EngineConfig
    >>> ctx = EngineContext(EngineConfig(model="anthropic:claude-haiku-4-5"))
    >>> ctx.skipped(JudgeRequest("k", "", "q", {}), "unscored", Skip(reason=NotSent.DRY_RUN)).reason
    'dry run'
"""

from __future__ import annotations

import asyncio
import os
import uuid
from dataclasses import dataclass, field
from typing import Any

from judgekit.engine.cache import VerdictCache
from judgekit.engine.config import EngineConfig
from judgekit.engine.events import EngineEvent, emit
from judgekit.engine.pricing import PriceTable
from judgekit.engine.providers import Provider
from judgekit.engine.limiter import AdaptiveLimiter
from judgekit.engine.redact import redact_data
from judgekit.engine.retry import ProviderRefused
from judgekit.engine.server import ServerState
from judgekit.engine.spending import Spending
from judgekit.engine.types import ItemOutcome, JudgeRequest, NotSent, Skip, State


class EngineContext:
    """One engine's shared state (see the module docstring)."""

    def __init__(self, config: EngineConfig) -> None:
        self._config = config
        self.prices = PriceTable.load()
        #: the request parameters that shape answers, as cache keys record them.
        self.params: dict[str, Any] = config.request_params()
        #: the judge server: mode, window, slots, and the count of every request it got.
        self.server = ServerState(config)
        self.spending = Spending(config, self.prices, local=self.server.local,
                                 emit=self.event)
        #: this engine as a claimant of items in a shared verdict cache.
        self.owner = f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
        #: why scheduling stopped (an authentication or permission failure), if it did.
        self.stopped: Skip | None = None

    @property
    def config(self) -> EngineConfig:
        """How the engine calls the model; a caller may tighten it between runs (the cost
        cap a jury leaves the audit, say), and every part reads the new one."""
        return self._config

    @config.setter
    def config(self, config: EngineConfig) -> None:
        self._config = config
        self.spending.config = config

    def event(self, event: EngineEvent) -> None:
        emit(self.config.on_event, event)

    def note(self, text: str) -> None:
        self.event(EngineEvent("note", text=text))

    def stop_after(self, refused: ProviderRefused) -> None:
        """A call was refused; after an authentication or permission failure no further
        call is sent (said once)."""
        if refused.stops_run and self.stopped is None:
            self.stopped = Skip(reason=NotSent.STOPPED, detail=str(refused))
            self.note(f"stopped: {refused}; no further calls are sent")

    def outcome(self, req: JudgeRequest, state: State, **fields: Any) -> ItemOutcome:
        """The outcome of ``req``; a secret in its verdict or words (a server may echo the
        key it received; an old cache entry may hold one) is redacted."""
        for name in ("verdict", "reason", "soft_failures"):
            if fields.get(name) is not None:
                fields[name] = redact_data(fields[name])
        return ItemOutcome(key=req.key, state=state, model=self.config.model, **fields)

    def skipped(self, req: JudgeRequest, state: State, skip: Skip) -> ItemOutcome:
        """The outcome of an item whose call was not sent, for the reason ``skip`` gives."""
        return self.outcome(req, state, reason=skip.describe(), not_sent=skip)

    def stop_skip(self, answers: int) -> Skip:
        """Why a call is not sent once the engine stopped."""
        stopped = self.stopped or Skip(reason=NotSent.STOPPED)
        return stopped.model_copy(update={"answers": answers})


@dataclass
class Session:
    """One run's calls: the client, the concurrency bound, the cache, the warm prefixes."""

    provider: Provider
    limiter: AdaptiveLimiter
    cache: VerdictCache | None
    #: per cacheable prefix: set once the first request carrying it is answered.
    warming: dict[str, asyncio.Event] = field(default_factory=dict)
