"""Cost accounting, prompt-cache tokens, --max-cost and --dry-run."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgekit.engine import Engine, EngineConfig, EngineEvent, JudgeRequest, NotSent, Usage
from judgekit.engine.pricing import PriceTable
from judgekit.errors import ConfigError
from judgekit.testing import FakeAPIServer, Reply
from tests.engine.engine_helpers import GOOD, SCHEMA, config, reqs


def test_cost_prices_cache_tokens_apart(server: FakeAPIServer, tmp_path: Path) -> None:
    usage = {"input_tokens": 1000, "output_tokens": 100, "cache_write_tokens": 4000}
    server.responder = lambda a, b: Reply.ok(GOOD, usage=dict(usage))
    [first] = Engine(config(server, tmp_path, use_cache=False)).run(reqs(1))
    usage.update(cache_write_tokens=0, cache_read_tokens=4000)
    [second] = Engine(config(server, tmp_path, use_cache=False)).run(reqs(1))
    assert first.usage == Usage(input_tokens=1000, output_tokens=100, cache_write_tokens=4000)
    assert second.usage.cache_read_tokens == 4000
    # claude-sonnet-4-6: $3 in, $15 out, $3.75 cache write, $0.30 cache read per million
    assert first.cost_usd == pytest.approx((1000 * 3 + 100 * 15 + 4000 * 3.75) / 1e6)
    assert second.cost_usd == pytest.approx((1000 * 3 + 100 * 15 + 4000 * 0.3) / 1e6)


def test_fake_server_reports_prompt_cache_reads_for_repeated_system(server: FakeAPIServer,
                                                                     tmp_path: Path) -> None:
    outs = Engine(config(server, tmp_path, concurrency=1)).run(reqs(3))
    assert outs[0].usage.cache_write_tokens > 0 and outs[0].usage.cache_read_tokens == 0
    assert all(o.usage.cache_read_tokens > 0 for o in outs[1:])


def test_openai_cached_tokens_are_split_from_input(server: FakeAPIServer, tmp_path: Path) -> None:
    server.responder = lambda a, b: Reply.ok(GOOD, usage={"input_tokens": 300,
                                                          "cache_read_tokens": 1200})
    [out] = Engine(config(server, tmp_path, "openai")).run(reqs(1))
    assert (out.usage.input_tokens, out.usage.cache_read_tokens) == (300, 1200)


def _listener(events: list[EngineEvent]):
    return events.append


@pytest.mark.parametrize("concurrency", [1, 4])
def test_max_cost_is_a_cap_recorded_spend_never_exceeds_it(
        server: FakeAPIServer, tmp_path: Path, concurrency: int) -> None:
    # answers as long as max_tokens allows: real costs close to the worst case
    server.responder = lambda a, b: Reply.ok(GOOD, usage={"output_tokens": 2000})
    probe = Engine(config(server, tmp_path))
    worst = probe.worst_case(reqs(1)[0])
    events: list[EngineEvent] = []
    cap = worst * 3.5
    engine = Engine(config(server, tmp_path, concurrency=concurrency, max_cost_usd=cap,
                           on_event=_listener(events)))
    outs = engine.run(reqs(40))
    spent = sum(o.cost_usd for o in outs)
    assert 0 < spent <= cap and engine.spent_usd == pytest.approx(spent)
    asked = [o for o in outs if o.state == "valid"]
    skipped = [o for o in outs if o.skipped_cost]
    assert len(asked) + len(skipped) == 40 and skipped  # every item accounted for
    assert {o.reason for o in skipped} == {"max cost reached"}
    assert {(o.not_sent.reason, o.not_sent.answers) for o in skipped if o.not_sent} == {
        (NotSent.COST_CAP, 0)} and all(o.not_sent for o in skipped)
    assert len(server.requests) == len(asked)
    assert len(asked) >= 3  # three worst cases fit under 3.5 of them
    assert sum("max cost" in e.text for e in events if e.kind == "note") == 1


def test_cost_cap_holds_across_runs_of_one_engine(server: FakeAPIServer, tmp_path: Path) -> None:
    server.responder = lambda a, b: Reply.ok(GOOD, usage={"output_tokens": 2000})
    worst = Engine(config(server, tmp_path)).worst_case(reqs(1)[0])
    engine = Engine(config(server, tmp_path, use_cache=False, max_cost_usd=worst * 1.5))
    first = engine.run(reqs(3))
    second = engine.run([JudgeRequest(key=f"x{i}", system="S", prompt=f"other {i}",
                                      schema=SCHEMA) for i in range(30)])
    assert engine.spent_usd <= worst * 1.5
    assert any(o.skipped_cost for o in second) or all(o.skipped_cost for o in first)


def test_a_tighter_cap_given_between_runs_holds_for_the_next(
        server: FakeAPIServer, tmp_path: Path) -> None:
    server.responder = lambda a, b: Reply.ok(GOOD, usage={"output_tokens": 2000})
    engine = Engine(config(server, tmp_path, use_cache=False, max_cost_usd=10.0))
    assert all(o.state == "valid" for o in engine.run(reqs(2)))
    engine.config = engine.config.model_copy(update={"max_cost_usd": engine.spent_usd + 1e-9})
    assert all(o.skipped_cost for o in engine.run(reqs(2)))
    assert len(server.requests) == 2


def test_non_positive_cap_is_refused() -> None:
    from pydantic import ValidationError

    for bad in (0, -1):
        with pytest.raises(ValidationError):
            EngineConfig(model="anthropic:claude-haiku-4-5", max_cost_usd=bad)


def test_cap_on_a_model_without_price_is_refused() -> None:
    with pytest.raises(ConfigError, match="no price"):
        Engine(EngineConfig(model="openai:my-local-llama", max_cost_usd=1.0))


def test_dry_run_sends_nothing(server: FakeAPIServer, tmp_path: Path) -> None:
    Engine(config(server, tmp_path)).run(reqs(2))
    events: list[EngineEvent] = []
    engine = Engine(config(server, tmp_path, dry_run=True, on_event=_listener(events)))
    outs = engine.run(reqs(5))
    assert len(server.requests) == 2
    assert [o.state for o in outs] == ["valid"] * 2 + ["unscored"] * 3
    assert {o.reason for o in outs[2:]} == {"dry run"}
    assert {o.not_sent.reason for o in outs[2:] if o.not_sent} == {NotSent.DRY_RUN}
    est = engine.estimate(reqs(5))
    assert (est.calls, est.cached) == (3, 2) and est.est_cost_usd > 0
    assert [e.text for e in events if e.kind == "estimate"] == [
        f"3 calls, ~${est.est_cost_usd:.2f} estimated"]


def test_one_count_of_calls_for_estimate_events_and_outcomes(server: FakeAPIServer,
                                                             tmp_path: Path) -> None:
    """Duplicate requests are asked once: the estimate, the call events and the outcomes'
    tries all say the same number of calls; every item is counted by the progress."""
    dup = [JudgeRequest(key=f"d{i}", system="You judge patches.", prompt="same item",
                        schema=SCHEMA) for i in range(3)]
    batch = reqs(4) + dup
    estimate = Engine(config(server, tmp_path, use_cache=False)).estimate(batch)
    events: list[EngineEvent] = []
    outs = Engine(config(server, tmp_path, use_cache=False, on_event=_listener(events))).run(batch)
    calls = sum(e.kind == "call" for e in events)
    items = sum(e.count for e in events if e.kind == "item")
    assert estimate.calls == calls == sum(o.tries for o in outs if not o.cached) == 5
    assert items == len(batch) == [e.items for e in events if e.kind == "start"][0]
    assert len(server.requests) == 5


def test_dry_run_without_a_cache_creates_no_file(server: FakeAPIServer, tmp_path: Path) -> None:
    engine = Engine(config(server, tmp_path, dry_run=True, cache_path=tmp_path / "new.sqlite"))
    outs = engine.run(reqs(2))
    assert [o.state for o in outs] == ["unscored"] * 2 and not server.requests
    assert engine.estimate(reqs(2)).calls == 2
    assert not list(tmp_path.glob("new.sqlite*"))


def test_batch_estimate_is_half(server: FakeAPIServer, tmp_path: Path) -> None:
    full = Engine(config(server, tmp_path, use_cache=False)).estimate(reqs(4))
    half = Engine(config(server, tmp_path, use_cache=False, batch=True)).estimate(reqs(4))
    assert half.est_cost_usd == pytest.approx(full.est_cost_usd / 2, rel=1e-3)


def test_unknown_model_costs_zero_and_is_said_once(server: FakeAPIServer,
                                                   tmp_path: Path) -> None:
    table = PriceTable({})
    assert table.cost("anthropic", "claude-unreleased-9", Usage(input_tokens=10)) == 0.0
    events: list[EngineEvent] = []
    cfg = config(server, tmp_path, model="anthropic:claude-unreleased-9",
                 on_event=_listener(events))
    engine = Engine(cfg)
    engine.run(reqs(2))
    engine.run(reqs(3))
    notes = [e.text for e in events if e.kind == "note"]
    assert sum("no price known for anthropic:claude-unreleased-9" in n for n in notes) == 1


def test_self_hosted_server_costs_nothing_and_needs_no_price(server: FakeAPIServer,
                                                           tmp_path: Path) -> None:
    """A model served on this machine is not billed: $0, no warning, and --max-cost holds."""
    events: list[EngineEvent] = []
    cfg = config(server, tmp_path, "openai", model="openai:my-local-llama",
                 on_event=_listener(events), max_cost_usd=0.01)
    engine = Engine(cfg)
    outcomes = engine.run(reqs(2))
    assert all(o.state == "valid" and o.cost_usd == 0.0 for o in outcomes)
    assert not any("no price known" in e.text for e in events if e.kind == "note")
    assert engine.judge_run().local and engine.judge_run().calls == 2


def test_dated_snapshot_priced_as_base() -> None:
    table = PriceTable.load()
    assert table.price("anthropic", "claude-sonnet-4-5-20250929") == table.price(
        "anthropic", "claude-sonnet-4-5")
    assert table.price("openai", "gpt-5.5") is None  # no guessing across versions
