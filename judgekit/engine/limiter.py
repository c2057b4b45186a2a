"""An asyncio concurrency bound that backs off when the server rate-limits.

Example:
    >>> limiter = AdaptiveLimiter(8)
    >>> limiter.on_rate_limit(); limiter.limit
    4.0
"""

from __future__ import annotations

import asyncio
import time
from collections import deque


class AdaptiveLimiter:
    """An asyncio concurrency bound with additive increase, multiplicative decrease.

    ``on_rate_limit`` halves the bound (at most once a second, never below 1);
    ``on_success`` grows it by ``1/limit`` back toward ``maximum``.
    """

    def __init__(self, maximum: int) -> None:
        self.maximum = max(1, maximum)
        self.limit = float(self.maximum)
        self.in_use = 0
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._last_cut = 0.0

    async def acquire(self) -> None:
        if self.in_use < int(self.limit) and not self._waiters:
            self.in_use += 1
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(fut)
        try:
            await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():
                self.release()
            raise

    def release(self) -> None:
        self.in_use -= 1
        self._wake()

    def _wake(self) -> None:
        while self._waiters and self.in_use < int(self.limit):
            fut = self._waiters.popleft()
            if not fut.done():
                self.in_use += 1
                fut.set_result(None)

    def on_rate_limit(self) -> None:
        now = time.monotonic()
        if now - self._last_cut >= 1.0:
            self._last_cut = now
            self.limit = max(1.0, self.limit / 2)

    def on_success(self) -> None:
        if self.limit < self.maximum:
            self.limit = min(float(self.maximum), self.limit + 1.0 / self.limit)
            self._wake()

    async def __aenter__(self) -> None:
        await self.acquire()

    async def __aexit__(self, *exc: object) -> None:
        self.release()
