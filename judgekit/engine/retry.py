"""Retries of transient provider failures: one :class:`RetryPolicy` per engine, on tenacity.

Transient (:func:`is_transient`): 429, 408, 409, 5xx (and Anthropic's 529), timeouts,
dropped connections and answers that are not the API's JSON; they are retried with
exponential backoff and jitter, honouring ``retry-after`` up to a bound, until the
attempts or the call's deadline run out. Anything else (400, 401, 403, 404, 422) fails
at once as :class:`ProviderRefused` (a :class:`judgekit.errors.ProviderError`).

Example:
    >>> policy = RetryPolicy(attempts=3, base=0.5, cap=30.0, retry_after_max=30.0)
    >>> class Limited(Exception):
    ...     response = type("R", (), {"headers": {"retry-after": "999999"}})()
    >>> policy.wait_for(Limited(), attempt=1), policy.stats.cut_to_bound
    (30.0, 1)
"""

from __future__ import annotations

import asyncio
import email.utils
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, wait_random_exponential

from judgekit.engine.limiter import AdaptiveLimiter
from judgekit.engine.redact import redact
from judgekit.engine.transport import AnswerTooLarge
from judgekit.errors import ProviderError

T = TypeVar("T")


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


def too_large(exc: BaseException) -> AnswerTooLarge | None:
    """The bound on answers that ``exc`` (or what caused it) says was passed, if any."""
    seen: BaseException | None = exc
    for _ in range(5):
        if seen is None:
            return None
        if isinstance(seen, AnswerTooLarge):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def is_transient(exc: BaseException) -> bool:
    if too_large(exc) is not None:  # asked again, the same server answers the same
        return False
    if isinstance(exc, (*_sdk_errors("APIConnectionError"), asyncio.TimeoutError, BadAnswer)):
        return True
    if isinstance(exc, _sdk_errors("APIResponseValidationError")):
        return True
    status = status_of(exc)
    return status is not None and (status in (408, 409, 429) or status >= 500)


def is_rate_limit(exc: BaseException) -> bool:
    return status_of(exc) in (429, 529)


def retry_after(exc: BaseException) -> float | None:
    """Seconds the provider asked us to wait (``retry-after-ms`` / ``retry-after``), if
    any, as asked (the policy bounds it)."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        try:
            parsed = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        return max(0.0, parsed.timestamp() - time.time())


def describe(exc: BaseException) -> str:
    """A short, redacted reason for a provider failure."""
    if (large := too_large(exc)) is not None:
        return str(large)
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
        message = err.get("message") if isinstance(err, dict) else None
        if isinstance(message, str):
            return message
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


@dataclass
class RetryStats:
    """What the retries of one engine did: seconds slept between attempts, and waits cut
    (a ``retry-after`` over the bound, or a wait that would pass the call's deadline)."""

    waited_s: float = 0.0
    cut_to_bound: int = 0
    cut_by_deadline: int = 0
    largest_asked_s: float = 0.0


@dataclass(frozen=True)
class RetryPolicy:
    """How one engine retries a call, built once from its settled options.

    A call is tried at most ``attempts`` times; a transient failure (:func:`is_transient`)
    is retried after the provider's ``retry-after`` (honoured up to ``retry_after_max``
    seconds) or else exponential backoff with jitter (half to all of
    ``base * 2**(n-1)``, at most ``cap``). A call that timed out is tried again at most
    ``max_timeouts`` times. The call, its retries and waits included, ends by its
    deadline: ``call_budget`` seconds after it starts (and ``deadline``, a
    :func:`time.monotonic` instant for the whole run, when set); a wait that would pass
    it is not slept, and the call fails with its last error.

    Example:
        >>> policy = RetryPolicy(attempts=3, base=1.0, cap=30.0)
        >>> 0.5 <= policy.backoff(1) <= 1.0 and policy.backoff(30) <= 30.0
        True
    """

    attempts: int
    base: float
    cap: float
    max_timeouts: int | None = None
    retry_after_max: float = 30.0
    call_budget: float | None = None
    deadline: float | None = None
    stats: RetryStats = field(default_factory=RetryStats, compare=False)

    def backoff(self, attempt: int) -> float:
        """Exponential backoff with full jitter before attempt ``attempt + 1``: tenacity's
        ``wait_random_exponential``, between half the base and ``base * 2**(n-1)`` (at
        most ``cap``)."""
        state = RetryCallState(None, None, (), {})  # type: ignore[arg-type]
        state.attempt_number = attempt
        wait = wait_random_exponential(multiplier=self.base, max=self.cap,
                                       min=min(self.base / 2, self.cap))
        return float(wait(state))

    def wait_for(self, exc: BaseException | None, attempt: int) -> float:
        """Seconds to wait after failure ``attempt``: the provider's ``retry-after`` up to
        the bound (a cut is counted), else :meth:`backoff`."""
        asked = retry_after(exc) if exc is not None else None
        if asked is None:
            return self.backoff(attempt)
        self.stats.largest_asked_s = max(self.stats.largest_asked_s, asked)
        if asked > self.retry_after_max:
            self.stats.cut_to_bound += 1
            return self.retry_after_max
        return asked

    def _retrying(self, started: float, on_retry: Callable[[BaseException], None] | None,
                  limiter: AdaptiveLimiter) -> AsyncRetrying:
        ends = [t for t in (self.deadline, None if self.call_budget is None
                            else started + self.call_budget) if t is not None]
        end = min(ends) if ends else None

        def wait(state: RetryCallState) -> float:
            assert state.outcome is not None
            return self.wait_for(state.outcome.exception(), state.attempt_number)

        timeouts = 0

        def stop(state: RetryCallState) -> bool:
            if state.attempt_number >= self.attempts:
                return True
            if self.max_timeouts is not None and timeouts > self.max_timeouts:
                return True
            if end is not None and time.monotonic() + (state.upcoming_sleep or 0.0) > end:
                self.stats.cut_by_deadline += 1
                return True
            return False

        def after(state: RetryCallState) -> None:
            nonlocal timeouts
            assert state.outcome is not None
            exc = state.outcome.exception()
            timeouts += exc is not None and is_timeout(exc)
            if exc is not None and is_rate_limit(exc):
                limiter.on_rate_limit()

        def before_sleep(state: RetryCallState) -> None:
            assert state.outcome is not None
            self.stats.waited_s += state.upcoming_sleep
            exc = state.outcome.exception()
            if on_retry is not None and exc is not None:
                on_retry(exc)

        return AsyncRetrying(stop=stop, wait=wait, after=after, before_sleep=before_sleep,
                             retry=retry_if_exception(is_transient), reraise=True)

    async def call(self, fn: Callable[[], Awaitable[T]], *, limiter: AdaptiveLimiter,
                   on_retry: Callable[[BaseException], None] | None = None) -> T:
        """Await ``fn()`` under ``limiter``, retrying transient failures.

        ``fn`` runs once a slot is free; it may raise :class:`Skipped` to give the slot
        back without calling (nothing is retried then). Raises :class:`ProviderRefused`
        (redacted reason, HTTP status) for permanent failures and once the retries end.
        """
        attempts = 0
        try:
            async for attempt in self._retrying(time.monotonic(), on_retry, limiter):
                with attempt:
                    attempts = attempt.retry_state.attempt_number
                    return await _attempt(fn, limiter)
        except Skipped:
            raise
        except BaseException as exc:
            _raise_provider_error(exc, attempts)
            raise
        raise AssertionError("unreachable")  # pragma: no cover


async def _attempt(fn: Callable[[], Awaitable[T]], limiter: AdaptiveLimiter) -> T:
    await limiter.acquire()
    try:
        result = await fn()
    finally:
        limiter.release()
    limiter.on_success()
    return result


def _raise_provider_error(exc: BaseException, attempts: int) -> None:
    """Turn an SDK error into :class:`ProviderRefused` (other exceptions pass through)."""
    if isinstance(exc, (*_sdk_errors("APIError"), asyncio.TimeoutError, BadAnswer,
                        AnswerTooLarge)):
        tries = f" after {attempts} attempts" if is_transient(exc) and attempts > 1 else ""
        refused = ProviderRefused(describe(exc) + tries, status_of(exc))
        refused.transient = is_transient(exc)
        raise refused from None
