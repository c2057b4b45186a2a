"""Faults: a fault mix costs no verdict, 401/403 stop the run, timeouts are bounded,
answers that are not the API's JSON are named, and a shared cache is paid once."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest

from judgekit.engine import Engine, EngineEvent, Failed, NotSent
from judgekit.engine.types import stop_of
from judgekit.engine.cache import VerdictCache
from judgekit.testing import FakeAPIServer, Reply, fault_mix, scripted
from tests.engine.engine_helpers import GOOD, config, reqs


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_fault_mix_costs_no_verdict(server: FakeAPIServer, tmp_path: Path, provider: str) -> None:
    server.responder = fault_mix(7, retry_after=0.01, slow_seconds=0.05,
                                 then=lambda a, b: Reply.ok(GOOD))
    outs = Engine(config(server, tmp_path, provider, concurrency=16, use_cache=False)).run(
        reqs(200))
    assert sum(o.state == "valid" for o in outs) >= 199
    assert all(o.verdict == GOOD for o in outs if o.state == "valid")
    assert sum(o.retries for o in outs) > 40  # the faults happened, and were retried


@pytest.mark.parametrize("status", [401, 403])
def test_auth_failure_stops_scheduling_at_once(server: FakeAPIServer, tmp_path: Path,
                                               status: int) -> None:
    server.responder = lambda a, b: Reply.fault(status)
    events: list[EngineEvent] = []
    engine = Engine(config(server, tmp_path, concurrency=4, on_event=events.append))
    outs = engine.run(reqs(50))
    assert len(server.requests) <= 4  # one call per concurrent slot at most
    assert all(o.state == "error" for o in outs)
    sent = [o for o in outs if o.not_sent is None]  # the calls made: refused, typed
    assert sent and all(o.failure is Failed.REFUSED for o in sent)
    assert all(o.failure is None and o.not_sent.reason is NotSent.STOPPED
               for o in outs if o.not_sent is not None)
    assert engine.stopped is not None and engine.stopped.reason is NotSent.STOPPED
    assert str(status) in engine.stopped.detail
    assert sum(e.text.startswith("stopped:") for e in events if e.kind == "note") == 1
    again = engine.run(reqs(3))  # the same engine sends nothing more (e.g. the audit step)
    assert len(server.requests) <= 4 and all(o.state == "error" for o in again)
    stop = stop_of(again)  # why, typed: the items not sent say so
    assert stop is not None and stop.reason is NotSent.STOPPED and stop.detail == engine.stopped.detail
    assert all(o.reason == f"not sent: {engine.stopped.detail}" for o in again)  # as records store it


def test_a_server_that_never_answers_costs_a_bounded_wait(server: FakeAPIServer,
                                                          tmp_path: Path) -> None:
    server.responder = lambda a, b: Reply.slow(30.0, GOOD)
    [out] = Engine(config(server, tmp_path, timeout=0.3, retry_attempts=10,
                          timeout_retries=1)).run(reqs(1))
    assert out.state == "error" and "timed out" in out.reason
    assert out.failure is Failed.UNAVAILABLE  # transient, outlasted the retries
    assert len(server.requests) == 2  # one timeout retried once, then given up


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_an_html_page_is_reported_as_such(server: FakeAPIServer, tmp_path: Path,
                                          provider: str) -> None:
    server.responder = lambda a, b: Reply.html_page()
    [out] = Engine(config(server, tmp_path, provider, retry_attempts=2)).run(reqs(1))
    assert out.state == "error"
    assert "HTML page" in out.reason and "not the API's" in out.reason
    assert out.failure is Failed.UNAVAILABLE
    assert "AttributeError" not in out.reason


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_json_of_another_shape_is_reported_as_not_the_apis(server: FakeAPIServer,
                                                           tmp_path: Path, provider: str) -> None:
    server.responder = lambda a, b: Reply(body='{"status": "ok", "items": []}')
    [out] = Engine(config(server, tmp_path, provider, retry_attempts=2)).run(reqs(1))
    assert out.state == "error" and "JSON of another shape, not the API's" in out.reason
    assert len(server.requests) == 2  # retried like any answer that is not the API's JSON


def test_answers_that_never_pass_the_schema_are_unscored_typed(server: FakeAPIServer,
                                                                tmp_path: Path) -> None:
    server.responder = lambda a, b: Reply.ok({"verdict": "not one of the choices"})
    [out] = Engine(config(server, tmp_path, use_cache=False)).run(reqs(1))
    assert out.state == "unscored" and out.reason.startswith("no valid verdict after")
    assert out.failure is Failed.NO_VALID_VERDICT and out.not_sent is None
    assert out.tries == len(server.requests) > 1  # re-asked, then given up


def test_malformed_json_is_asked_again(server: FakeAPIServer, tmp_path: Path) -> None:
    server.responder = scripted(Reply.malformed_body(), then=lambda a, b: Reply.ok(GOOD))
    [out] = Engine(config(server, tmp_path)).run(reqs(1))
    assert (out.state, out.retries, len(server.requests)) == ("valid", 1, 2)


def test_claims_are_exclusive_and_expire(tmp_path: Path) -> None:
    with VerdictCache(tmp_path / "v.sqlite") as one, VerdictCache(tmp_path / "v.sqlite") as two:
        assert one.claim("h", "p1", lease=30) and one.claim("h", "p1", lease=30)
        assert not two.claim("h", "p2", lease=30)
        one.release("h", "p1")
        assert two.claim("h", "p2", lease=0.05)
        time.sleep(0.1)
        assert one.claim("h", "p1", lease=30)  # p2's lease ran out (a killed process)


def test_two_engines_on_one_cache_pay_once(tmp_path: Path) -> None:
    with FakeAPIServer(lambda a, b: Reply.ok(GOOD), latency=0.05) as srv:
        results: list[list] = []

        def work() -> None:
            results.append(Engine(config(srv, tmp_path, concurrency=8)).run(reqs(60)))

        threads = [threading.Thread(target=work) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert srv.count() <= 63  # at most 1.05x the 60 calls of one engine
    assert len(results) == 2  # both engines finished (opening one new cache together)
    for outs in results:
        assert all(o.state == "valid" and o.verdict == GOOD for o in outs)
    assert sum(not o.cached for outs in results for o in outs) == srv.count()


def test_repeat_index_is_its_own_cache_entry(server: FakeAPIServer, tmp_path: Path) -> None:
    base = reqs(1)[0]
    from dataclasses import replace

    again = [replace(base, key=f"k0/r{k}", repeat=k) for k in (1, 2)]
    Engine(config(server, tmp_path)).run([base, *again])
    assert len(server.requests) == 3
    Engine(config(server, tmp_path)).run([base, *again])
    assert len(server.requests) == 3


def test_events_never_print(server: FakeAPIServer, tmp_path: Path,
                            capsys: pytest.CaptureFixture[str]) -> None:
    server.responder = lambda a, b: Reply.fault(401)
    Engine(config(server, tmp_path, max_cost_usd=1.0)).run(reqs(3))
    Engine(config(server, tmp_path, dry_run=True)).run(reqs(3))
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


def test_asyncio_entry_point_still_works(server: FakeAPIServer, tmp_path: Path) -> None:
    outs = asyncio.run(Engine(config(server, tmp_path)).arun(reqs(2)))
    assert [o.state for o in outs] == ["valid", "valid"]


def test_a_401_during_the_audit_ends_the_command_in_one_line(tmp_path: Path) -> None:
    """The command learns that the engine stopped from the audit's typed reason (not from
    the words of its records) and says nothing more than the engine's own notice."""
    from tests.clirun import judgekit
    from tests.pairwise.helpers import diff, result, write_runs

    runs = write_runs(tmp_path / "runs.json", [
        r for t in range(6) for r in (result(f"t{t}", "base", diff(f"plain {t}"), passed=False),
                                      result(f"t{t}", "ctx", diff(f"other {t}"), passed=False))])
    with FakeAPIServer(lambda api, body: Reply.fault(401)) as server:
        proc = judgekit("judge", runs, "--no-similarity", "--no-pairwise", "--judge",
                        "anthropic:claude-haiku-4-5", "--concurrency", "2", "--out",
                        tmp_path / "out", env={**server.env(), "ANTHROPIC_API_KEY": "k-401",
                                               "JUDGEKIT_CACHE": str(tmp_path / "c.sqlite")})
        calls = server.count("anthropic")
    assert proc.returncode == 1 and calls <= 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "authentication failed" in lines[0], proc.stderr
