"""Retries of transient provider failures, and a concurrency bound that backs off.

Transient: 429, 408, 409, 5xx (and Anthropic's 529), timeouts, dropped connections and
answers that are not the API's JSON; they are retried with exponential backoff and
jitter, honouring ``retry-after``. Anything else (400, 401, 403, 404, 422) fails at once
as :class:`ProviderRefused` (a :class:`judgekit.errors.ProviderError`).

Example:
    >>> limiter = AdaptiveLimiter(8)
    >>> limiter.on_rate_limit(); limiter.limit
    4.0
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import sys
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from judgekit.engine.redact import redact
from judgekit.errors import ProviderError

T = TypeVar("T")
#: longest ``retry-after`` honoured, in seconds.
RETRY_AFTER_CAP = 600.0


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


def _sdk_errors(kind: str) -> tuple[type[BaseException], ...]:
    """``kind`` error classes of the SDKs already imported (imported lazily by providers)."""
    found = []
    for module in ("anthropic", "openai"):
        sdk = sys.modules.get(module)
        if sdk is not None:
            found.append(getattr(sdk, kind))
    return tuple(found)


class Skipped(Exception):
    """The call was not made: once a slot was free, the caller decided against it (the
    cost cap, a stopped run, an item another process is asking). ``str()`` says why."""


def status_of(exc: BaseException) -> int | None:
    if isinstance(exc, _sdk_errors("APIStatusError")):
        return int(getattr(exc, "status_code", 0)) or None
    return None


def is_transient(exc: BaseException) -> bool:
    if isinstance(exc, (*_sdk_errors("APIConnectionError"), asyncio.TimeoutError, BadAnswer)):
        return True
    if isinstance(exc, _sdk_errors("APIResponseValidationError")):
        return True
    status = status_of(exc)
    return status is not None and (status in (408, 409, 429) or status >= 500)


def is_rate_limit(exc: BaseException) -> bool:
    return status_of(exc) in (429, 529)


def retry_after(exc: BaseException) -> float | None:
    """Seconds the provider asked us to wait (``retry-after-ms`` / ``retry-after``), if any."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return min(RETRY_AFTER_CAP, max(0.0, float(ms) / 1000))
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return min(RETRY_AFTER_CAP, max(0.0, float(value)))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value) if value else None
        if parsed is None:
            return None
        return min(RETRY_AFTER_CAP, max(0.0, parsed.timestamp() - time.time()))


def backoff_wait(exc: BaseException | None, attempt: int, base: float, cap: float) -> float:
    """Seconds to wait before attempt ``attempt + 1``: the provider's ``retry-after`` when
    given, else exponential backoff with jitter (between half and all of ``base * 2**(n-1)``)."""
    asked = retry_after(exc) if exc is not None else None
    if asked is not None:
        return asked
    ceiling = min(cap, base * (2 ** max(0, attempt - 1)))
    return ceiling * (0.5 + random.random() / 2)


def describe(exc: BaseException) -> str:
    """A short, redacted reason for a provider failure."""
    status = status_of(exc)
    if status is not None:
        body = getattr(exc, "body", None)
        message = _message_of(body) or getattr(exc, "message", "") or str(exc)
        kind = {401: "authentication failed", 403: "permission denied", 400: "bad request",
                404: "not found", 429: "rate limited"}.get(status, "provider error")
        return redact(f"{kind} (HTTP {status}): {message}")[:400]
    if isinstance(exc, BadAnswer):
        return redact(str(exc))[:400]
    if isinstance(exc, _sdk_errors("APIResponseValidationError")):
        return "the provider's answer is not the API's JSON"
    if isinstance(exc, (*_sdk_errors("APITimeoutError"), asyncio.TimeoutError)):
        return "request timed out"
    if isinstance(exc, _sdk_errors("APIConnectionError")):
        return "connection failed"
    return redact(f"{type(exc).__name__}: {exc}")[:400]


def _message_of(body: Any) -> str | None:
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and isinstance(err.get("message"), str):
            return err["message"]
    return None


class BadAnswer(Exception):
    """The provider answered 200 with something that is not its API's JSON (an HTML page
    from a proxy, a cut-off body). Retried like a transient failure; ``describe`` says so."""


class ProviderRefused(ProviderError):
    """A permanent provider failure, with its HTTP status (401, 403, 400, ...) when known."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        #: the failure was transient (429, 5xx, a timeout, a garbled answer) and outlasted
        #: the retries, rather than a refusal
        self.transient = False

    @property
    def stops_run(self) -> bool:
        """Authentication and permission failures: no later call can succeed either."""
        return self.status in (401, 403)


def is_timeout(exc: BaseException) -> bool:
    return isinstance(exc, (*_sdk_errors("APITimeoutError"), asyncio.TimeoutError))


async def call_with_retry(
    fn: Callable[[], Awaitable[T]],
    *,
    limiter: AdaptiveLimiter,
    attempts: int,
    base: float,
    cap: float,
    on_retry: Callable[[BaseException], None] | None = None,
    max_timeouts: int | None = None,
) -> T:
    """Await ``fn()`` under ``limiter``, retrying transient failures.

    ``fn`` runs once a slot is free; it may raise :class:`Skipped` to give the slot back
    without calling (nothing is retried then). A call that timed out is tried again at
    most ``max_timeouts`` times, so a server that never answers costs a bounded wait.
    Raises :class:`ProviderRefused` (redacted reason, HTTP status) for permanent failures
    and once the attempts are spent.
    """
    timeouts = 0
    for attempt in range(1, max(1, attempts) + 1):
        try:
            return await _attempt(fn, limiter)
        except Skipped:
            raise
        except BaseException as exc:
            timeouts += is_timeout(exc)
            spent = attempt >= attempts or (max_timeouts is not None and timeouts > max_timeouts)
            if not is_transient(exc) or spent:
                _raise_provider_error(exc, attempt)
                raise
            if on_retry is not None:
                on_retry(exc)
            await asyncio.sleep(backoff_wait(exc, attempt, base, cap))
    raise AssertionError("unreachable")  # pragma: no cover


async def _attempt(fn: Callable[[], Awaitable[T]], limiter: AdaptiveLimiter) -> T:
    await limiter.acquire()
    try:
        result = await fn()
    except BaseException as exc:
        if is_rate_limit(exc):
            limiter.on_rate_limit()
        raise
    finally:
        limiter.release()
    limiter.on_success()
    return result


def _raise_provider_error(exc: BaseException, attempts: int) -> None:
    """Turn an SDK error into :class:`ProviderRefused` (other exceptions pass through)."""
    if isinstance(exc, (*_sdk_errors("APIError"), asyncio.TimeoutError, BadAnswer)):
        tries = f" after {attempts} attempts" if is_transient(exc) and attempts > 1 else ""
        refused = ProviderRefused(describe(exc) + tries, status_of(exc))
        refused.transient = is_transient(exc)
        raise refused from None
