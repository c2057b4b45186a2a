"""What an engine spends, and the cost cap that bounds it.

Every call is priced as it is answered (cache reads and writes at their own prices, a
batch at the batch price); a call is admitted only when the spend so far, the worst cases
of the calls in flight and its own worst case fit under ``max_cost_usd``. A worst case
counts every input byte a token at the dearest input price, plus ``max_tokens`` of output.

Example:
    >>> from judgekit.engine.config import EngineConfig
    >>> from judgekit.engine.pricing import PriceTable
    >>> spend = Spending(EngineConfig(model="anthropic:claude-haiku-4-5", max_cost_usd=1.0),
    ...                  PriceTable.load(), local=False, emit=lambda event: None)
    >>> spend.admit(0.6), spend.admit(0.6), spend.reserved
    (True, False, 0.6)
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from judgekit.engine.config import EngineConfig
from judgekit.engine.events import EngineEvent
from judgekit.engine.pricing import PriceTable
from judgekit.engine.structured import canonical_json
from judgekit.engine.tokens import REQUEST_OVERHEAD_TOKENS, max_tokens_of
from judgekit.engine.types import JudgeRequest, Usage
from judgekit.errors import ConfigError


class Spending:
    """One engine's dollars: spent, reserved by calls in flight, and the cap on both.

    The cap holds across every run of the engine (pairwise, then the audit).
    """

    def __init__(self, config: EngineConfig, prices: PriceTable, *, local: bool,
                 emit: Callable[[EngineEvent], None]) -> None:
        self.config, self.prices, self.local = config, prices, local
        self._emit = emit
        self.spent = 0.0
        #: what the same calls would have cost without the prompt cache.
        self.spent_uncached = 0.0
        #: worst cases of the calls admitted and not yet priced.
        self.reserved = 0.0
        #: per request hash: the worst case reserved for an item of a submitted batch.
        self.batch_reserved: dict[str, float] = {}
        self._settled: asyncio.Condition | None = None
        self._cap_noted = False
        known = local or prices.known(config.provider, config.model_name)
        if config.max_cost_usd is not None and not known and not config.dry_run:
            raise ConfigError(f"{{option:max_cost}} cannot be held: no price is known for "
                              f"{config.model} (see judgekit/engine/prices.json)")
        #: no price is known for the model: its calls count as $0 (said once).
        self.unknown_price = not known

    # -- a run's calls ------------------------------------------------------------------
    def open(self) -> None:
        """A run begins: admissions may wait for the calls in flight to be priced."""
        self._settled = asyncio.Condition()

    def close(self) -> None:
        self._settled = None

    # -- worst cases and admission ------------------------------------------------------
    def worst_case(self, req: JudgeRequest, messages: list[dict[str, Any]] | None = None
                   ) -> float:
        """The most one call of ``req`` can cost (``messages``: its conversation so far;
        default the first question)."""
        c = self.config
        if messages is None:
            messages = [{"role": "user", "content": req.prompt}]
        tokens = (max_tokens_of(req.system) + max_tokens_of(canonical_json(messages))
                  + max_tokens_of(canonical_json(req.schema)) + REQUEST_OVERHEAD_TOKENS)
        return self.prices.worst_case(c.provider, c.model_name, tokens, c.max_tokens,
                                      batch=c.batch)

    def admit(self, worst: float) -> bool:
        """Reserve ``worst`` dollars for a call if the cap leaves room for them."""
        limit = self.config.max_cost_usd
        if limit is None:
            return True
        if self.spent + self.reserved + worst > limit:
            if not self._cap_noted:
                self._cap_noted = True
                self._note(f"max cost ${limit:.2f}: no further calls admitted (spent "
                           f"${self.spent:.4f}; the next call could cost up to ${worst:.4f})")
            return False
        self.reserved += worst
        return True

    async def admit_when_settled(self, worst: float) -> bool:
        """Admit a call of at most ``worst`` dollars; while calls in flight hold
        reservations that may leave room once their real (smaller) cost is known, wait
        for them before saying no."""
        limit = self.config.max_cost_usd
        if limit is None or self._settled is None:
            return self.admit(worst)
        async with self._settled:
            await self._settled.wait_for(
                lambda: self.spent + self.reserved + worst <= limit or self.reserved <= 1e-12)
        return self.admit(worst)

    async def release(self, worst: float) -> None:
        """Give back a call's reservation (its real cost is recorded by now)."""
        self.reserved -= worst
        if self._settled is not None:
            async with self._settled:
                self._settled.notify_all()

    def release_batch(self, request_hash: str) -> None:
        """Give back the reservation of a batch item (answered, or failed)."""
        self.reserved -= self.batch_reserved.pop(request_hash, 0.0)

    def within_budget(self, items: dict[str, JudgeRequest]) -> dict[str, JudgeRequest]:
        """The items a batch may hold under ``max_cost_usd``, by worst-case cost, in order."""
        if self.config.max_cost_usd is None:
            return items
        admitted = {}
        for h, req in items.items():
            worst = self.worst_case(req)
            if not self.admit(worst):
                break
            admitted[h] = req
            self.batch_reserved[h] = worst
        return admitted

    # -- pricing ------------------------------------------------------------------------
    def price(self, usage: Usage, *, batch: bool) -> float:
        """Dollars of ``usage`` (nothing on a self-hosted server)."""
        c = self.config
        if self.local:
            return 0.0
        return self.prices.cost(c.provider, c.model_name, usage, batch=batch)

    def record(self, cost: float, usage: Usage, *, batch: bool) -> None:
        """Count one answered call."""
        self.spent += cost
        self.spent_uncached += self.price(usage.uncached(), batch=batch)
        self._emit(EngineEvent("call", cost=cost))

    def _note(self, text: str) -> None:
        self._emit(EngineEvent("note", text=text))
