"""Throughput of the judge engine against a fake API with a fixed latency per call.

The fake server runs in its own process. For each concurrency, a bare loop (asyncio, a
semaphore and the same SDK call, nothing else) and the judgekit Engine (cache on, fresh
file) make the same number of calls. The marginal wall time per call is taken between a
small and a large run, (T_large - T_small) / (N_large - N_small), which removes start-up
costs, and compared with the ideal ``latency / concurrency`` and with the bare loop.
Finally the engine re-runs the large set against its cache: it must make zero calls.

Usage::

    python bench/engine_throughput.py [--latency 0.05] [--concurrency 32 64] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import anthropic

from judgekit.engine import Engine, EngineConfig, JudgeRequest
from judgekit.engine.providers.anthropic import AnthropicProvider

MODEL = "anthropic:claude-haiku-4-5"
SCHEMA = {"type": "object", "required": ["winner", "reason"],
          "properties": {"winner": {"enum": ["A", "B", "draw"]}, "reason": {"type": "string"}}}
SYSTEM = "You compare two candidate patches for the same task and pick the better one. " * 8


def requests(n: int, tag: str) -> list[JudgeRequest]:
    return [JudgeRequest(key=f"{tag}-{i}", system=SYSTEM, prompt=f"{tag} item {i}: patch A vs B",
                         schema=SCHEMA) for i in range(n)]


def config(url: str, concurrency: int, cache: Path) -> EngineConfig:
    return EngineConfig(model=MODEL, base_url=url, concurrency=concurrency, cache_path=cache,
                        progress=False)


async def bare_loop(url: str, concurrency: int, reqs: list[JudgeRequest]) -> float:
    shaper = AnthropicProvider(config(url, concurrency, Path("unused")), api_key="bench",
                               base_url=url)
    bodies = [shaper._body(r, shaper.start(r)) for r in reqs]
    await shaper.aclose()
    start = time.perf_counter()
    client = anthropic.AsyncAnthropic(api_key="bench", base_url=url, max_retries=0)
    sem = asyncio.Semaphore(concurrency)

    async def one(body: dict) -> None:
        async with sem:
            await client.messages.create(**body)

    await asyncio.gather(*(one(b) for b in bodies))
    await client.close()
    return time.perf_counter() - start


def engine_run(url: str, concurrency: int, reqs: list[JudgeRequest], cache: Path) -> float:
    start = time.perf_counter()
    outcomes = Engine(config(url, concurrency, cache)).run(reqs)
    elapsed = time.perf_counter() - start
    assert all(o.state == "valid" for o in outcomes), "engine run had failures"
    return elapsed


def model_calls(url: str) -> int:
    with urllib.request.urlopen(f"{url}/_fake/stats") as response:
        return int(json.loads(response.read())["model_calls"])


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[32, 64])
    parser.add_argument("--small", type=int, default=10, help="calls per slot, small run")
    parser.add_argument("--large", type=int, default=40, help="calls per slot, large run")
    parser.add_argument("--rounds", type=int, default=3, help="best of N")
    args = parser.parse_args()
    os.environ.setdefault("ANTHROPIC_API_KEY", "bench-key")
    server = subprocess.Popen(
        [sys.executable, "-c",
         ("import sys; from judgekit.testing.cli import main; sys.exit(main(sys.argv[1:] + ['--until-stdin-closes']))"),
         "--latency", str(args.latency)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        port = json.loads(server.stdout.readline())["port"]  # type: ignore[union-attr]
        url = f"http://127.0.0.1:{port}"
        tmp_holder = tempfile.TemporaryDirectory(prefix="judgekit-bench-")
        tmp = Path(tmp_holder.name)
        print(f"fake API latency {args.latency * 1000:.0f} ms, server in pid {server.pid}")
        print("marginal wall ms per call (best of rounds); client CPU ms per call alongside")
        print(f"{'conc':>4} {'ideal ms':>9} {'bare ms':>8} {'engine ms':>10} "
              f"{'bare/ideal':>10} {'engine/ideal':>12} {'engine/bare':>11} "
              f"{'bare cpu':>9} {'engine cpu':>10}")
        run_id = 0
        last_cache, last_reqs = None, None
        for c in args.concurrency:
            n_small, n_large = args.small * c, args.large * c
            best: dict[str, float] = {}
            cpu: dict[str, float] = {}
            for _ in range(args.rounds):
                for kind in ("bare", "engine"):
                    times = []
                    for n in (n_small, n_large):
                        run_id += 1
                        reqs = requests(n, f"r{run_id}")
                        cpu_start = time.process_time()
                        if kind == "bare":
                            times.append(asyncio.run(bare_loop(url, c, reqs)))
                        else:
                            cache = tmp / f"cache-{run_id}.sqlite"
                            times.append(engine_run(url, c, reqs, cache))
                            last_cache, last_reqs = cache, reqs
                        per_call = (time.process_time() - cpu_start) / n
                        cpu[kind] = min(cpu.get(kind, float("inf")), per_call)
                    marginal = (times[1] - times[0]) / (n_large - n_small)
                    best[kind] = min(best.get(kind, float("inf")), marginal)
            ideal = args.latency / c
            print(f"{c:>4} {ideal * 1000:>9.3f} {best['bare'] * 1000:>8.3f} "
                  f"{best['engine'] * 1000:>10.3f} {best['bare'] / ideal:>10.3f} "
                  f"{best['engine'] / ideal:>12.3f} {best['engine'] / best['bare']:>11.3f} "
                  f"{cpu['bare'] * 1000:>9.3f} {cpu['engine'] * 1000:>10.3f}")
        assert last_cache is not None and last_reqs is not None
        before = model_calls(url)
        elapsed = engine_run(url, args.concurrency[-1], last_reqs, last_cache)
        calls = model_calls(url) - before
        print(f"cached re-run of {len(last_reqs)} items: {calls} calls, {elapsed:.3f} s")
        tmp_holder.cleanup()
    finally:
        server.stdin.close()  # type: ignore[union-attr]
        server.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
