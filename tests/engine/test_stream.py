"""The engine reads a lazy iterable of requests while its first calls are in flight, and
advances work handed to ``between_calls`` while it waits for answers."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from judgekit.engine import Engine, JudgeRequest
from judgekit.errors import ConfigError
from judgekit.testing import FakeAPIServer
from tests.engine.engine_helpers import config, reqs


def test_calls_go_out_while_later_requests_are_still_being_built(server: FakeAPIServer,
                                                                   tmp_path: Path) -> None:
    received_when_read: list[int] = []

    def slow_to_build() -> Iterator[JudgeRequest]:
        for req in reqs(100):
            received_when_read.append(server.count())
            time.sleep(0.005)  # building a request costs time (rendering, hashing)
            yield req

    engine = Engine(config(server, tmp_path, use_cache=False, concurrency=4))
    outcomes = engine.run(slow_to_build(), total=100)

    assert [o.key for o in outcomes] == [f"k{i}" for i in range(100)]
    assert all(o.state == "valid" for o in outcomes)
    assert server.count() == 100
    # the server had calls before the engine read the last request
    assert received_when_read[-1] >= 1, received_when_read


def test_a_streamed_run_serves_the_cache_and_asks_only_what_is_missing(server: FakeAPIServer,
                                                                       tmp_path: Path) -> None:
    Engine(config(server, tmp_path)).run(reqs(3))
    outcomes = Engine(config(server, tmp_path)).run(iter(reqs(5)), total=5)
    assert [o.cached for o in outcomes] == [True, True, True, False, False]
    assert server.count() == 5


def test_a_duplicate_key_in_a_stream_stops_the_run_and_leaves_no_call_running(
        server: FakeAPIServer, tmp_path: Path) -> None:
    def twice() -> Iterator[JudgeRequest]:
        yield from reqs(3)
        yield reqs(1)[0]

    engine = Engine(config(server, tmp_path, use_cache=False))
    with pytest.raises(ConfigError, match="duplicate request key 'k0'"):
        engine.run(twice(), total=4)


def test_work_between_calls_is_advanced_while_the_calls_wait(tmp_path: Path) -> None:
    steps: list[int] = []

    def work() -> Iterator[None]:
        for i in range(50):
            steps.append(i)
            yield

    with FakeAPIServer(latency=0.2) as slow:
        engine = Engine(config(slow, tmp_path, use_cache=False, concurrency=8))
        engine.between_calls(work())
        outcomes = engine.run(iter(reqs(8)), total=8)
    assert all(o.state == "valid" for o in outcomes)
    assert steps == list(range(50))  # 50 short steps fit in one 0.2 s wait


def test_work_that_fails_between_calls_does_not_fail_the_run(server: FakeAPIServer,
                                                              tmp_path: Path) -> None:
    def broken() -> Iterator[None]:
        yield
        raise RuntimeError("a bug in the caller's work")

    engine = Engine(config(server, tmp_path, use_cache=False))
    engine.between_calls(broken())
    outcomes = engine.run(reqs(3))
    assert [o.state for o in outcomes] == ["valid"] * 3


def test_outcomes_are_announced_as_they_settle_as_the_very_objects_returned(
        server: FakeAPIServer, tmp_path: Path) -> None:
    Engine(config(server, tmp_path)).run(reqs(2))  # k0 and k1 are cache hits below
    heard: list[tuple[int, object, int]] = []

    def on_outcome(i: int, outcome: object) -> None:
        heard.append((i, outcome, server.count()))

    outcomes = Engine(config(server, tmp_path, concurrency=2)).run(
        iter(reqs(6)), total=6, on_outcome=on_outcome)

    assert sorted(i for i, _, _ in heard) == list(range(6))
    assert all(outcomes[i] is outcome for i, outcome, _ in heard)
    # the cache hits are announced when read, before every call has been made
    assert [calls for i, _, calls in heard if i < 2] == [2, 2]


def test_a_notice_that_raises_ends_the_notices_not_the_run(server: FakeAPIServer,
                                                           tmp_path: Path) -> None:
    heard: list[int] = []

    def broken(i: int, _: object) -> None:
        heard.append(i)
        raise RuntimeError("a bug in the caller's notice")

    outcomes = Engine(config(server, tmp_path, use_cache=False)).run(
        iter(reqs(5)), total=5, on_outcome=broken)
    assert [o.state for o in outcomes] == ["valid"] * 5
    assert len(heard) == 1
