"""Transient failures are retried (honouring retry-after); permanent ones fail fast."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace

import pytest

from judgekit.engine import Engine
from judgekit.engine.limiter import AdaptiveLimiter
from judgekit.engine.retry import RetryPolicy
from judgekit.testing import FakeAPIServer, Reply, scripted
from tests.engine.engine_helpers import FAKE_KEY, GOOD, OPENAI_KEY, config, reqs


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_429_with_retry_after_then_success(server: FakeAPIServer, tmp_path: Path, provider: str) -> None:
    server.responder = scripted(Reply.fault(429, retry_after=0.01), then=lambda a, b: Reply.ok(GOOD))
    [out] = Engine(config(server, tmp_path, provider)).run(reqs(1))
    assert (out.state, out.verdict, out.tries, out.retries) == ("valid", GOOD, 1, 1)
    assert len(server.requests) == 2


def test_retry_after_header_sets_the_wait() -> None:
    policy = RetryPolicy(attempts=3, base=1, cap=60, retry_after_max=30)
    exc = SimpleNamespace(response=SimpleNamespace(headers={"retry-after": "7"}))
    assert policy.wait_for(exc, attempt=1) == 7.0  # type: ignore[arg-type]
    ms = SimpleNamespace(response=SimpleNamespace(headers={"retry-after-ms": "250"}))
    assert policy.wait_for(ms, attempt=1) == 0.25  # type: ignore[arg-type]
    bare = SimpleNamespace(response=SimpleNamespace(headers={}))
    assert 0.5 <= policy.wait_for(bare, attempt=3) <= 4.0  # type: ignore[arg-type]
    assert policy.wait_for(bare, attempt=30) <= 60  # type: ignore[arg-type]
    assert policy.stats.cut_to_bound == 0


def test_retry_after_over_the_bound_is_cut_and_counted() -> None:
    policy = RetryPolicy(attempts=3, base=1, cap=60, retry_after_max=30)
    huge = SimpleNamespace(response=SimpleNamespace(headers={"retry-after": "999999"}))
    assert policy.wait_for(huge, attempt=1) == 30.0  # type: ignore[arg-type]
    assert (policy.stats.cut_to_bound, policy.stats.largest_asked_s) == (1, 999999.0)


def test_500s_are_retried(server: FakeAPIServer, tmp_path: Path) -> None:
    server.responder = scripted(Reply.fault(500), Reply.fault(503), Reply.fault(529),
                                then=lambda a, b: Reply.ok(GOOD))
    [out] = Engine(config(server, tmp_path)).run(reqs(1))
    assert (out.state, out.retries, len(server.requests)) == ("valid", 3, 4)


def test_dropped_connection_and_timeout_are_retried(server: FakeAPIServer, tmp_path: Path) -> None:
    server.responder = scripted(Reply.dropped(), Reply.slow(2.0, GOOD),
                                then=lambda a, b: Reply.ok(GOOD))
    [out] = Engine(config(server, tmp_path, timeout=0.3)).run(reqs(1))
    assert (out.state, out.retries, len(server.requests)) == ("valid", 2, 3)


def test_transient_failures_exhausted_is_error(server: FakeAPIServer, tmp_path: Path) -> None:
    server.responder = lambda a, b: Reply.fault(500)
    [out] = Engine(config(server, tmp_path, retry_attempts=3)).run(reqs(1))
    assert out.state == "error" and "after 3 attempts" in out.reason
    assert len(server.requests) == 3


@pytest.mark.parametrize("provider,key", [("anthropic", FAKE_KEY), ("openai", OPENAI_KEY)])
@pytest.mark.parametrize("status", [401, 403, 400])
def test_client_errors_fail_fast_without_key(server: FakeAPIServer, tmp_path: Path,
                                             provider: str, key: str, status: int) -> None:
    server.responder = lambda a, b: Reply.fault(status, message=f"invalid x-api-key {key}")
    # both calls in flight at once (a server on this machine is otherwise asked one at a time)
    outs = Engine(config(server, tmp_path, provider, concurrency=16)).run(reqs(2))
    assert [o.state for o in outs] == ["error", "error"]
    assert len(server.requests) == 2  # one per item, no retry
    assert f"HTTP {status}" in outs[0].reason
    assert key not in outs[0].reason and "sk-" not in outs[0].reason
    if status == 401:
        assert "authentication failed" in outs[0].reason


def test_limiter_halves_on_rate_limit_and_recovers() -> None:
    limiter = AdaptiveLimiter(8)
    limiter.on_rate_limit()
    assert limiter.limit == 4
    limiter.on_rate_limit()  # within a second of the last cut: ignored
    assert limiter.limit == 4
    for _ in range(40):
        limiter.on_success()
    assert limiter.limit == 8


def test_limiter_bounds_concurrency() -> None:
    async def main() -> int:
        limiter = AdaptiveLimiter(3)
        peak = 0

        async def work() -> None:
            nonlocal peak
            async with limiter:
                peak = max(peak, limiter.in_use)
                await asyncio.sleep(0)

        await asyncio.gather(*(work() for _ in range(20)))
        assert limiter.in_use == 0
        return peak

    assert asyncio.run(main()) == 3
