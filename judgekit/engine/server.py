"""One engine's knowledge of its judge server, gathered once and kept: the structured-output
mode it accepts, its context window, how many requests it serves at once, how it counts
tokens, and the count of every request it received (:class:`~judgekit.engine.accounting.JudgeRun`).

What was learnt by asking (the mode, a window from an error message) is kept in the
verdict cache per (provider, base URL, model), so a resumed run does not ask again.

Example:
    >>> from judgekit.engine.config import EngineConfig
    >>> s = ServerState(EngineConfig(model="openai:gpt-4.1", use_cache=False))
    >>> s.ladder.current, s.ladder.confirmed, s.window.tokens
    ('json_schema', True, 1047576)
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from judgekit.engine.accounting import (
    ContextBudget,
    JudgeRun,
    ModeStep,
    RetryReport,
    StructuredOutput,
)
from judgekit.engine.config import EngineConfig
from judgekit.engine.fitting import Window
from judgekit.engine.health import Health
from judgekit.engine.modes import (
    SET_BY_CALLER,
    ModeLadder,
    StepDown,
    context_limit,
    is_context_error,
    is_mode_rejection,
)
from judgekit.engine.reach import CHECK_DEADLINE_S, check_server
from judgekit.engine.registry import spec_for
from judgekit.engine.retry import (
    RetryPolicy,
    RetryStats,
    describe,
    is_rate_limit,
    is_timeout,
    status_of,
    too_large,
)
from judgekit.engine.serving import PROBE_DEADLINE_S, count_tokens, known_window, probe
from judgekit.engine.urls import redact_url


class ModeRefused(Exception):
    """The server refused the request's structured-output mode."""

    def __init__(self, mode: str, reason: str) -> None:
        super().__init__(reason)
        self.mode = mode


class TooLong(Exception):
    """The server refused the request for its length; what it said of the window."""

    def __init__(self, reason: str, window: int | None, prompt_tokens: int | None) -> None:
        super().__init__(reason)
        self.window, self.prompt_tokens = window, prompt_tokens


def _message(exc: BaseException) -> str:
    body = getattr(exc, "body", None)
    parts = [str(getattr(exc, "message", "") or exc)]
    if body is not None:
        parts.append(str(body))
    return " ".join(parts)


class ServerState:
    """The judge server as this engine knows it (see the module docstring)."""

    def __init__(self, config: EngineConfig) -> None:
        self.config = config
        base_url = config.resolved_base_url()
        self.base_url = base_url
        self.local = config.local
        fixed = "tool" if config.provider in ("anthropic", "bedrock", "vertex") or (
            config.openai_route == "tool") else config.structured_output
        self.ladder = ModeLadder.start(fixed, confirmed=fixed != "auto")
        if fixed == "auto" and base_url is None and config.provider == "openai":
            self.ladder.confirmed, self.ladder.source = True, "provider"  # OpenAI's own API
        window, source = config.context_window, SET_BY_CALLER
        if window is None and not self.local:
            window, source = known_window(config.provider, config.model_name), "table of hosted models"
        self.window = Window(tokens=window, source=source if window else None,
                             max_tokens=config.max_tokens)
        self.tokenizer: str | None = None
        self.settled = config.settled()
        self.retry_stats = RetryStats()
        self.retry = self._policy()
        self.run = JudgeRun(model=config.model,
                            base_url=redact_url(base_url) if base_url else None,
                            local=self.local)
        self._prepared = False
        self._client: Any = None
        #: lines worth showing the user, said by the engine once it runs.
        self.notes: list[str] = []
        self.health = Health()

    # -- setting up -------------------------------------------------------------------
    @property
    def server_key(self) -> str:
        c = self.config
        url = redact_url(self.base_url) if self.base_url else ""
        return f"{c.provider}|{url}|{c.model_name}"

    async def prepare(self, cache: Any, api_key: str | None) -> None:
        """Once per engine: what the cache remembers, then what a self-hosted server says."""
        if self._prepared:
            return
        self._prepared = True
        await self.check(api_key)
        remembered = cache.capability(self.server_key) if cache is not None else None
        if remembered:
            self._resume(remembered)
        slots = None
        if self.local and self.base_url:
            info = await probe(self.base_url, self.config.model_name, api_key)
            if self.config.context_window is None and info.context_window and (
                    self.window.tokens is None or info.context_window < self.window.tokens):
                self.window.tokens, self.window.source = info.context_window, info.window_source
            slots = info.slots
            if info.cut_short:
                self.notes.append(f"the server at {redact_url(self.base_url)} did not finish "
                                  f"answering what it can do within {PROBE_DEADLINE_S:g} s; "
                                  "what it did not say is assumed")
            self.tokenizer = info.tokenizer
            self.run.concurrency_source = info.slots_source
        self.settled = self.config.settled(slots)
        self.retry = self._policy()
        self.run.concurrency = self.settled.concurrency or 1
        if self.config.concurrency is not None:
            self.run.concurrency_source = SET_BY_CALLER
        elif not self.local:
            self.run.concurrency_source = "default for a hosted API"
        elif slots is None:
            self.run.concurrency_source = "one at a time (the server reports no slots)"
        self.run.timeout_s = float(self.settled.timeout or 0)

    async def check(self, api_key: str | None) -> None:
        """Fail fast when the base URL given is not a server of the API named
        (:class:`~judgekit.engine.reach.ServerUnreachable`); hosted APIs' own addresses
        and providers without a list of models are not checked."""
        spec = spec_for(self.config.provider)
        if not self.base_url or spec.models_path is None:
            return
        headers: dict[str, str] = {}
        if api_key:
            headers = ({"x-api-key": api_key, "anthropic-version": "2023-06-01"}
                       if spec.models_path == "/v1/models" else
                       {"Authorization": f"Bearer {api_key}"})
        found = await check_server(self.config.model, self.base_url, spec.models_path, headers)
        if found.slow:
            self.notes.append(f"the server at {redact_url(self.base_url)} did not answer a list "
                              f"of models within {CHECK_DEADLINE_S:g} s; going on")

    def _policy(self) -> RetryPolicy:
        """How calls are retried, from the settled options (see :meth:`call_budget`)."""
        s = self.settled
        return RetryPolicy(attempts=s.retry_attempts, base=s.backoff_base, cap=s.backoff_max,
                           max_timeouts=s.timeout_retries, retry_after_max=s.retry_after_max,
                           call_budget=self.call_budget(), deadline=s.deadline_at,
                           stats=self.retry_stats)

    def call_budget(self) -> float | None:
        """Seconds a call may take, its retries and waits included: each attempt's timeout,
        plus the backoff ceilings between them (a ``retry-after`` longer than that leaves
        is not waited)."""
        s = self.settled
        if not s.timeout:
            return None
        backoff = sum(min(s.backoff_max, s.backoff_base * 2 ** n)
                      for n in range(s.retry_attempts - 1))
        return float(s.retry_attempts * s.timeout + backoff)

    def _resume(self, data: dict[str, Any]) -> None:
        mode = data.get("mode")
        steps = [StepDown(s["mode"], s["reason"]) for s in data.get("stepped", [])
                 if isinstance(s, dict) and "mode" in s and "reason" in s]
        if isinstance(mode, str) and self.ladder.source == "auto":
            self.ladder.resume(mode, steps)  # type: ignore[arg-type]
        window = data.get("window")
        ratio = data.get("chars_per_token")
        if self.config.context_window is None and isinstance(window, int) and window > 0 and (
                self.window.tokens is None or window < self.window.tokens):
            self.window.tokens = window
            self.window.source = str(data.get("window_source") or "the server's error (cached)")
        if isinstance(ratio, (int, float)) and 0 < ratio < self.window.chars_per_token:
            self.window.chars_per_token = float(ratio)

    def remember(self, cache: Any) -> None:
        """Keep what was learnt by asking for the next run."""
        if cache is None:
            return
        data: dict[str, Any] = {"chars_per_token": self.window.chars_per_token}
        if self.ladder.confirmed and self.ladder.source in ("auto", "cache"):
            data["mode"] = self.ladder.current
            data["stepped"] = [{"mode": s.mode, "reason": s.reason} for s in self.ladder.stepped]
        if self.window.tokens is not None and self.window.source and "error" in self.window.source:
            data["window"], data["window_source"] = self.window.tokens, self.window.source
        try:
            cache.put_capability(self.server_key, data)
        except Exception:  # noqa: BLE001  the cache is an aid, never a failure
            pass

    # -- counting tokens ----------------------------------------------------------------
    async def count(self, text: str) -> int:
        """Tokens of ``text``: the server's count where it has a tokenizer, else an estimate
        on the safe side."""
        if self.tokenizer and self.base_url:
            if self._client is None:
                import httpx

                self._client = httpx.AsyncClient(timeout=30.0)
            got = await count_tokens(self.base_url, self.config.model_name, None,
                                     self.tokenizer, text, self._client)
            if got is not None:
                return got
        return self.window.estimate(text)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    def cut_waits_line(self, to_bound: int, by_deadline: int) -> str:
        """What a run says of the waits it did not take as asked."""
        s = self.settled
        parts = []
        if to_bound:
            parts.append(f"{to_bound} retry-after waits cut to {s.retry_after_max:g} s (the "
                         f"server asked up to {self.retry_stats.largest_asked_s:g} s)")
        if by_deadline:
            parts.append(f"{by_deadline} calls given up rather than wait past their deadline "
                         f"({self.call_budget() or 0:g} s: {{option:max_retries}} + 1 "
                         "attempts of {option:timeout} and the backoff between them)")
        return "; ".join(parts)

    async def watch(self, say: Callable[[str], None], every: float = 1.0) -> None:
        """Say when the server falls silent while calls wait, and when it answers again
        (runs until cancelled)."""
        url = redact_url(self.base_url) if self.base_url else self.config.model
        self.health.last_answer = time.monotonic()
        while True:
            await asyncio.sleep(every)
            line = self.health.check(url)
            if line is not None:
                say(line)

    # -- what a failed call means ---------------------------------------------------------
    def classify(self, exc: BaseException, mode: str) -> BaseException:
        """Count a failed call by cause; the exception the engine acts on (a mode refusal
        or a length refusal become :class:`ModeRefused` / :class:`TooLong`)."""
        status = status_of(exc)
        message = _message(exc)
        if status is not None and is_context_error(status, message):
            self.run.count_failure("context_exceeded")
            window, prompt = context_limit(message)
            return TooLong(describe(exc), window, prompt)
        if status is not None and mode != "tool" and is_mode_rejection(status, message):
            self.run.count_failure("rejected_mode")
            return ModeRefused(mode, describe(exc))
        self.health.failed(describe(exc), alive=status is not None or too_large(exc) is not None)
        if is_timeout(exc):
            self.run.count_failure("timeout")
        elif is_rate_limit(exc):
            self.run.count_failure("rate_limited")
        elif status is not None and status >= 500:
            self.run.count_failure("server_error")
        elif status is not None:
            self.run.count_failure("refused")
        elif type(exc).__name__ == "BadAnswer" or too_large(exc) is not None:
            self.run.count_failure("bad_answer")
        elif not isinstance(exc, asyncio.CancelledError):
            self.run.count_failure("connection")
        return exc

    # -- the summary ----------------------------------------------------------------------
    def report(self, spent: float, spent_uncached: float | None = None) -> JudgeRun:
        run = self.run.model_copy(deep=True)
        run.cost_usd = round(spent, 6)
        run.cost_without_cache_usd = round(spent if spent_uncached is None else spent_uncached, 6)
        run.prompt_cache = self.config.prompt_cache
        stats = self.retry_stats
        run.retries = RetryReport(
            waited_s=round(stats.waited_s, 3), retry_after_max_s=self.settled.retry_after_max,
            cut_to_bound=stats.cut_to_bound, cut_by_deadline=stats.cut_by_deadline,
            largest_retry_after_s=round(stats.largest_asked_s, 3))
        run.structured_output = StructuredOutput(
            mode=self.ladder.current, source=self.ladder.source,
            confirmed=self.ladder.confirmed,
            stepped_down=[ModeStep(mode=s.mode, reason=s.reason) for s in self.ladder.stepped])
        run.context = ContextBudget(
            window_tokens=self.window.tokens, source=self.window.source,
            answer_tokens=self.window.answer_tokens,
            token_count=f"server ({self.tokenizer})" if self.tokenizer else
            f"estimate ({self.window.chars_per_token:.2f} characters a token)",
            n_fitted=self.run.context.n_fitted)
        return run
