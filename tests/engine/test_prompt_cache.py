"""Prompt caching, checked from outside: the real CLI and the real SDKs against the fake
API, whose Anthropic prompt cache counts reads and writes as the real one does (a marked
prefix of 1,024 tokens or more, readable once the request that wrote it was answered)."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from judgekit.engine import Engine, JudgeRequest
from judgekit.engine.pricing import PriceTable
from judgekit.testing import FakeAPIServer, Reply, prompt_of
from tests.audit.helpers import agent_verdict
from tests.audit.helpers import result as audit_result
from tests.audit.helpers import write_runs as write_audit_runs
from tests.clirun import judgekit
from tests.engine.engine_helpers import GOOD, SCHEMA, config
from tests.pairwise.helpers import diff, prefers, result, write_runs

MODEL = "anthropic:claude-sonnet-4-6"
MIN_TOKENS = 1_024
#: a task description long enough that a pair's shared prefix is worth caching.
LONG = "When div is called with a zero divisor it raises instead of returning None. " * 80


def _env(server: FakeAPIServer, tmp_path: Path) -> dict[str, str]:
    return {**server.env(), "ANTHROPIC_API_KEY": "test-key", "OPENAI_API_KEY": "test-key",
            "JUDGEKIT_CACHE": str(tmp_path / "cache.sqlite")}


def _pair_runs(tmp_path: Path) -> Path:
    runs = []
    for t in ("t1", "t2", "t3"):
        runs += [result(t, "base", diff("plain " + t), description=LONG + t),
                 result(t, "ctx", diff("GOOD " + t), description=LONG + t)]
    return write_runs(tmp_path / "runs.json", runs)


def _audit_runs(tmp_path: Path) -> Path:
    runs = [audit_result(t, arm, "failed") for t in ("calc-001", "calc-002") for arm in "ab"]
    runs = [r.model_copy(update={"transcript": r.transcript + "\n" + LONG}) for r in runs]
    return write_audit_runs(tmp_path / "audit-runs.json", runs)


def _marked(body: dict[str, Any]) -> list[str]:
    """The texts of the blocks marked ``cache_control``, in order."""
    blocks = list(body.get("system") or [])
    for message in body.get("messages") or []:
        content = message.get("content")
        blocks += content if isinstance(content, list) else []
    return [b["text"] for b in blocks if isinstance(b, dict) and b.get("cache_control")]


def _prefix(body: dict[str, Any]) -> str:
    """Everything of a request up to and including its last marked block."""
    first = body["messages"][0]["content"]
    head = []
    for block in first:
        head.append(block["text"])
        if block.get("cache_control"):
            break
    return json.dumps([body["tools"], body["system"], head])


def _judge(tmp_path: Path, server: FakeAPIServer, *extra: str) -> dict[str, Any]:
    out = tmp_path / "out"
    proc = judgekit("judge", _pair_runs(tmp_path), "--no-similarity", "--no-audit",
                    "--judge", MODEL, "--no-cache", "--out", out, *extra,
                    env=_env(server, tmp_path))
    assert proc.returncode == 0, proc.stderr
    return json.loads((out / "summary.json").read_text())


def _audit(tmp_path: Path, server: FakeAPIServer, *extra: str) -> dict[str, Any]:
    out = tmp_path / f"out{len(list(tmp_path.glob('out*')))}"
    proc = judgekit("audit", _audit_runs(tmp_path), "--no-similarity", "--judge", MODEL,
                    "--no-cache", "--out", out, *extra, env=_env(server, tmp_path))
    assert proc.returncode == 0, proc.stderr
    return json.loads((out / "summary.json").read_text())


def _input_dollars(usages: list[tuple[str, dict[str, int]]]) -> float:
    price = PriceTable.load().price("anthropic", MODEL.partition(":")[2])
    assert price is not None
    return sum(u["input_tokens"] * price.input + u["cache_read_input_tokens"] * price.cache_read
               + u["cache_creation_input_tokens"] * price.cache_write
               for _, u in usages) / 1e6


def test_every_pairwise_request_marks_a_prefix_shared_by_both_orders(tmp_path: Path) -> None:
    with FakeAPIServer(prefers("GOOD"), cache_min_tokens=MIN_TOKENS, latency=0.2) as server:
        summary = _judge(tmp_path, server)
        bodies = [r.body for r in server.requests if r.api == "anthropic"]
        usages = list(server.usages)
    assert len(bodies) == 6
    by_task: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for body in bodies:
        marked = _marked(body)
        assert len(marked) == 2, "the system part and the prompt's shared part are marked"
        assert marked[0] == body["system"][0]["text"]
        by_task[next(t for t in ("t1", "t2", "t3") if LONG + t in prompt_of(body))].append(body)
    for first, second in by_task.values():
        assert _prefix(first) == _prefix(second), "byte-identical prefix across the orders"
        one, two = prompt_of(first), prompt_of(second)
        shared = len(first["messages"][0]["content"][0]["text"])
        assert one[:shared] == two[:shared] and one[shared:] != two[shared:]
        assert "Test outcome" not in one[:shared], "the solutions come after the prefix"
    # the second order of each pair went out once the first was answered: it reads the cache
    reads = [u["cache_read_input_tokens"] for _, u in usages]
    assert sum(r > 0 for r in reads) >= 3
    assert summary["judge"]["prompt_cache"] is True
    assert summary["pairwise"]["base vs ctx"]["completeness"]["wins_b"] == 3


def test_summary_cache_tokens_and_cost_are_the_servers(tmp_path: Path) -> None:
    with FakeAPIServer(prefers("GOOD"), cache_min_tokens=MIN_TOKENS) as server:
        summary = _judge(tmp_path, server)
        usages = list(server.usages)
    judge = summary["judge"]
    assert judge["cache_read_tokens"] == sum(u["cache_read_input_tokens"] for _, u in usages) > 0
    assert judge["cache_write_tokens"] == sum(
        u["cache_creation_input_tokens"] for _, u in usages) > 0
    assert judge["input_tokens"] == sum(u["input_tokens"] for _, u in usages)
    price = PriceTable.load().price("anthropic", "claude-sonnet-4-6")
    assert price is not None
    assert price.cache_read == pytest.approx(0.1 * price.input)
    assert price.cache_write == pytest.approx(1.25 * price.input)
    output = sum(u["output_tokens"] for _, u in usages) * price.output / 1e6
    assert judge["cost_usd"] == pytest.approx(_input_dollars(usages) + output, abs=2e-6)
    plain = (sum(u["input_tokens"] + u["cache_read_input_tokens"]
                 + u["cache_creation_input_tokens"] for _, u in usages) * price.input / 1e6)
    assert judge["cost_without_cache_usd"] == pytest.approx(plain + output, abs=2e-6)
    assert judge["cost_usd"] < judge["cost_without_cache_usd"]


def test_audit_samples_share_a_prefix_and_cost_at_most_six_tenths(tmp_path: Path) -> None:
    with FakeAPIServer(lambda api, body: Reply.ok(agent_verdict()), cache_min_tokens=MIN_TOKENS,
                       latency=0.05) as server:
        cached = _audit(tmp_path, server, "--samples", "3")
        bodies = [r.body for r in server.requests if r.api == "anthropic"]
        with_cache = list(server.usages)
    with FakeAPIServer(lambda api, body: Reply.ok(agent_verdict()),
                       cache_min_tokens=MIN_TOKENS) as server:
        plain = _audit(tmp_path, server, "--samples", "3", "--no-prompt-cache")
        plain_bodies = [r.body for r in server.requests if r.api == "anthropic"]
        without = list(server.usages)
    assert len(bodies) == len(plain_bodies) == 12
    assert all(len(_marked(b)) == 2 for b in bodies)
    by_item: dict[str, set[str]] = defaultdict(set)
    notes: dict[str, set[str]] = defaultdict(set)
    for body in bodies:
        text = prompt_of(body)
        item = next(f"{t}/{arm}" for t in ("calc-001", "calc-002") for arm in "ab"
                    if f"`{t}`" in text and f"Arm: `{arm}`" in text)
        by_item[item].add(_prefix(body))
        notes[item].add(text[len(body["messages"][0]["content"][0]["text"]):])
    assert len(by_item) == 4 and all(len(p) == 1 for p in by_item.values())
    assert all(len(n) == 3 for n in notes.values()), "only the sample's note varies"
    assert not any("cache_control" in json.dumps(b) for b in plain_bodies)
    assert plain["judge"]["cache_read_tokens"] == plain["judge"]["cache_write_tokens"] == 0
    assert plain["judge"]["prompt_cache"] is False
    ratio = _input_dollars(with_cache) / _input_dollars(without)
    assert ratio <= 0.6, ratio
    assert cached["judge"]["cost_usd"] < plain["judge"]["cost_usd"]


def test_dry_run_estimate_counts_cache_reads(tmp_path: Path) -> None:
    with FakeAPIServer(cache_min_tokens=MIN_TOKENS) as server:
        env = _env(server, tmp_path)
        on = judgekit("audit", _audit_runs(tmp_path), "--no-similarity", "--judge", MODEL,
                      "--no-cache", "--samples", "3", "--dry-run", env=env)
        off = judgekit("audit", _audit_runs(tmp_path), "--no-similarity", "--judge", MODEL,
                       "--no-cache", "--samples", "3", "--dry-run", "--no-prompt-cache",
                       env=env)
        assert not server.requests
    assert on.returncode == off.returncode == 0, on.stderr + off.stderr
    line = next(x for x in on.stderr.splitlines() if "calls, ~$" in x)
    assert "without prompt caching" in line
    cost, without = (float(x.split("$")[1].split(" ")[0].rstrip(")")) for x in line.split("~")[1:])
    assert cost < 0.6 * without
    assert "without prompt caching" not in off.stderr


def test_openai_requests_put_the_shared_prefix_first_without_cache_control(
        tmp_path: Path) -> None:
    out = tmp_path / "out"
    with FakeAPIServer(prefers("GOOD")) as server:
        proc = judgekit("judge", _pair_runs(tmp_path), "--no-similarity", "--no-audit",
                        "--judge", "openai:gpt-4.1-mini", "--no-cache", "--out", out,
                        env=_env(server, tmp_path))
        bodies = [r.body for r in server.requests if r.api == "openai"]
    assert proc.returncode == 0, proc.stderr
    assert not any("cache_control" in json.dumps(b) for b in bodies)
    by_task: dict[str, list[str]] = defaultdict(list)
    for body in bodies:
        assert body["messages"][0]["role"] == "system"
        text = body["messages"][1]["content"]
        by_task[next(t for t in ("t1", "t2", "t3") if LONG + t in text)].append(text)
    for one, two in by_task.values():
        assert one[:one.index("## Solution A")] == two[:two.index("## Solution A")]


# -- the engine -----------------------------------------------------------------------
def _group(n: int, samples: int) -> list[JudgeRequest]:
    prefix = "materials " * 800
    return [JudgeRequest(key=f"k{i}/{s}", system="You judge. " * 500,
                         prompt=f"{prefix}item {i}\n(sample {s})", schema=SCHEMA,
                         shared=len(prefix) + len(f"item {i}\n"))
            for i in range(n) for s in range(samples)]


def test_first_request_of_a_group_is_answered_before_the_others_go(
        server: FakeAPIServer, tmp_path: Path) -> None:
    server.latency = 0.1
    server.state.prompt_cache.min_tokens = MIN_TOKENS
    outs = Engine(config(server, tmp_path, use_cache=False, concurrency=8,
                         model=MODEL)).run(_group(2, 3))
    assert [o.state for o in outs] == ["valid"] * 6
    writes = [u["cache_creation_input_tokens"] > 0 for _, u in server.usages]
    reads = [u["cache_read_input_tokens"] > 0 for _, u in server.usages]
    # the system part is written once, each item's prefix once; every later sample reads
    assert sum(writes) == 2 and sum(reads) == 5
    assert sum(o.usage.cache_read_tokens for o in outs) == sum(
        u["cache_read_input_tokens"] for _, u in server.usages)


def test_no_prompt_cache_marks_nothing_and_sends_all_at_once(server: FakeAPIServer,
                                                             tmp_path: Path) -> None:
    server.state.prompt_cache.min_tokens = MIN_TOKENS
    engine = Engine(config(server, tmp_path, use_cache=False, model=MODEL, prompt_cache=False))
    outs = engine.run(_group(2, 3))
    assert all(o.usage.cache_read_tokens == o.usage.cache_write_tokens == 0 for o in outs)
    assert not any("cache_control" in json.dumps(r.body) for r in server.requests)
    run = engine.judge_run()
    assert run.prompt_cache is False and run.cost_usd == run.cost_without_cache_usd > 0


def test_estimate_follows_the_minimum_and_the_groups(tmp_path: Path, server: FakeAPIServer
                                                     ) -> None:
    on = Engine(config(server, tmp_path, use_cache=False, model=MODEL)).estimate(_group(2, 3))
    off = Engine(config(server, tmp_path, use_cache=False, model=MODEL,
                        prompt_cache=False)).estimate(_group(2, 3))
    assert on.est_cost_without_cache_usd == pytest.approx(off.est_cost_usd)
    assert on.est_cost_usd < 0.8 * off.est_cost_usd
    assert "without prompt caching" in str(on) and "without" not in str(off)
    small = [JudgeRequest(key=f"s{i}", system="Judge.", prompt=f"short {i}", schema=SCHEMA,
                          shared=6) for i in range(3)]
    tiny = Engine(config(server, tmp_path, use_cache=False, model=MODEL)).estimate(small)
    assert tiny.est_cost_usd == tiny.est_cost_without_cache_usd  # below the minimum


def test_small_prefixes_are_not_cached_by_the_simulated_server(server: FakeAPIServer,
                                                               tmp_path: Path) -> None:
    server.state.prompt_cache.min_tokens = MIN_TOKENS
    server.responder = lambda api, body: Reply.ok(GOOD)
    outs = Engine(config(server, tmp_path, use_cache=False, model=MODEL)).run(
        [JudgeRequest(key=f"s{i}", system="Judge.", prompt=f"short {i}", schema=SCHEMA)
         for i in range(3)])
    assert all(o.usage.cache_read_tokens == o.usage.cache_write_tokens == 0 for o in outs)
    assert sum(o.cost_usd for o in outs) > 0


@pytest.mark.parametrize("model", ["bedrock:anthropic.claude-sonnet-4-5-20250929-v1:0",
                                   "vertex:claude-sonnet-4-5@20250929"])
def test_bedrock_and_vertex_mark_the_same_prefix(model: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from judgekit.engine.config import EngineConfig
    from judgekit.engine.connect import make_provider

    for name, value in (("AWS_REGION", "us-east-1"), ("AWS_ACCESS_KEY_ID", "x"),
                        ("AWS_SECRET_ACCESS_KEY", "y"), ("CLOUD_ML_REGION", "us-east5"),
                        ("ANTHROPIC_VERTEX_PROJECT_ID", "p"),
                        ("ANTHROPIC_VERTEX_ACCESS_TOKEN", "t")):
        monkeypatch.setenv(name, value)
    provider: Any = make_provider(EngineConfig(model=model, base_url="http://127.0.0.1:9"))
    [one, two] = _group(1, 2)
    bodies = [provider._body(r, provider.start(r)) for r in (one, two)]
    assert [_prefix(b) for b in bodies][0] == _prefix(bodies[1])
    assert all(len(_marked(b)) == 2 for b in bodies)
    off: Any = make_provider(EngineConfig(model=model, base_url="http://127.0.0.1:9",
                                          prompt_cache=False))
    assert "cache_control" not in json.dumps(off._body(one, off.start(one)))


def test_pairs_cut_to_fit_a_window_keep_a_shared_prefix() -> None:
    from judgekit.pairwise.options import PairwiseOptions
    from judgekit.pairwise.pairs import collect, plan_pairs
    from judgekit.pairwise.step import build_requests
    from judgekit.scoring import score

    long_diff = diff("A") + "".join(f"+    x{i} = {i}\n" for i in range(400))
    runs = [result("t1", "a", long_diff, description=LONG), result("t1", "b", diff("B"))]
    tasks, _ = collect(runs, score(runs).results)
    one, two = build_requests(plan_pairs(tasks)[0], PairwiseOptions(reference=True), None)
    assert one.prefix == two.prefix and "## Reference fix" in one.prefix
    assert one.shared > len(LONG) and "Test outcome" not in one.prefix
    assert one.fit is not None and two.fit is not None
    cut = [r.fit(len(one.system) + len(one.prompt) * 3 // 4) for r in (one, two)]
    assert cut[0] is not None and cut[1] is not None
    assert cut[0].prefix == cut[1].prefix and cut[0].shared > len(LONG)
    assert len(cut[0].prompt) < len(one.prompt)
    assert cut[0].prompt[cut[0].shared:] != cut[1].prompt[cut[1].shared:]


def test_openai_automatic_prefix_cache_is_read_by_the_second_order(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with FakeAPIServer(prefers("GOOD"), openai_prefix_cache=True, latency=0.1) as server:
        proc = judgekit("judge", _pair_runs(tmp_path), "--no-similarity", "--no-audit",
                        "--judge", "openai:gpt-4.1-mini", "--no-cache", "--out", out,
                        env=_env(server, tmp_path))
        usages = [u for api, u in server.usages if api == "openai"]
    assert proc.returncode == 0, proc.stderr
    cached = [u["prompt_tokens_details"]["cached_tokens"] for u in usages]
    assert sum(c > 0 for c in cached) >= 3, "each pair's second order reads the first's prefix"
    judge = json.loads((out / "summary.json").read_text())["judge"]
    assert judge["cache_read_tokens"] == sum(cached)
    assert judge["input_tokens"] == sum(u["prompt_tokens"] for u in usages) - sum(cached)
    assert judge["local"]  # a loopback OpenAI-compatible server: free, so no dollars here
