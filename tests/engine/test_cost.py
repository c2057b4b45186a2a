"""Cost accounting, prompt-cache tokens, --max-cost and --dry-run."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgekit.engine import Engine, Usage
from judgekit.engine.pricing import PriceTable
from judgekit.testing import FakeAPIServer, Reply
from tests.engine.engine_helpers import GOOD, config, reqs


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


def test_max_cost_stops_scheduling(server: FakeAPIServer, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    server.responder = lambda a, b: Reply.ok(GOOD, usage={"input_tokens": 1_000_000,
                                                          "output_tokens": 0})
    outs = Engine(config(server, tmp_path, concurrency=1, max_cost_usd=7.0)).run(reqs(6))
    assert [o.state for o in outs] == ["valid"] * 3 + ["unscored"] * 3  # $3 per call
    assert {o.reason for o in outs[3:]} == {"max cost reached"}
    assert len(server.requests) == 3
    assert capsys.readouterr().err.count("max cost") == 1


def test_dry_run_sends_nothing(server: FakeAPIServer, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    Engine(config(server, tmp_path)).run(reqs(2))
    engine = Engine(config(server, tmp_path, dry_run=True))
    outs = engine.run(reqs(5))
    assert len(server.requests) == 2
    assert [o.state for o in outs] == ["valid"] * 2 + ["unscored"] * 3
    assert {o.reason for o in outs[2:]} == {"dry run"}
    est = engine.estimate(reqs(5))
    assert (est.calls, est.cached) == (3, 2) and est.est_cost_usd > 0
    assert f"3 calls, ~${est.est_cost_usd:.2f} estimated" in capsys.readouterr().err


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


def test_unknown_model_costs_zero_and_warns_once(capsys: pytest.CaptureFixture[str]) -> None:
    table = PriceTable({})
    assert table.cost("openai", "my-local-llama", Usage(input_tokens=10)) == 0.0
    assert table.cost("openai", "my-local-llama", Usage(input_tokens=10)) == 0.0
    assert capsys.readouterr().err.count("no price known for openai:my-local-llama") == 1


def test_dated_snapshot_priced_as_base() -> None:
    table = PriceTable.load()
    assert table.price("anthropic", "claude-sonnet-4-5-20250929") == table.price(
        "anthropic", "claude-sonnet-4-5")
    assert table.price("openai", "gpt-5.5") is None  # no guessing across versions
