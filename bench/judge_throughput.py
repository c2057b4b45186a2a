"""Throughput of the whole ``judgekit judge`` command against a fake API, beside a bare loop.

The fake API (``python -m judgekit.testing``) runs in its own process with a fixed latency
per model call. For each concurrency level the benchmark times, in the same run:

* **bare**: a bare SDK loop (asyncio, a semaphore and ``AsyncAnthropic.messages.create``
  with the very bodies judgekit would send, nothing else), in a subprocess;
* **judge**: the command a user types, ``judgekit judge RUN --judge anthropic:M --no-audit
  --concurrency C --no-cache --out DIR`` in a subprocess (pairwise judging only, two arms,
  one task in ten with identical diffs, which costs no call); with ``--no-out``, the same
  without ``--out`` (the summary table printed, no report written).

Each is run on a small and a large run file; the marginal wall time per call,
``(T_large - T_small) / (calls_large - calls_small)``, removes start-up costs (imports,
loading, scoring, writing the report); each time is the fastest of the rounds for that
command and run file (a shared machine only adds time). The table gives it against the ideal
``latency / concurrency`` and against the bare loop. The machine is usually shared: read
the ratios, which the side-by-side runs keep honest, rather than the absolute times.

Usage::

    python bench/judge_throughput.py [--latency 0.25] [--concurrency 16 32 64 128] [--rounds 2]
    python bench/judge_throughput.py --tree before=/path/to/older/checkout   # before/after
    python bench/judge_throughput.py --no-out      # without --out: no report written
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

MODEL = "anthropic:claude-haiku-4-5"
ROOT = Path(__file__).resolve().parent.parent
#: the secondary diff similarity (torch embeddings of every diff, opt-in with ``--similarity``)
#: is scoring work, not judging: kept out so the figures are about the judge path.
JUDGE_EXTRA: list[str] = []
#: time the command without ``--out`` (the summary table printed, no report written)
NO_OUT = False


def _diff(task: int, marker: str, lines: int = 30) -> str:
    body = "".join(f"+    value_{task}_{i} = compute({i})  # {marker}\n" for i in range(lines))
    return (f"diff --git a/src/mod{task}.py b/src/mod{task}.py\n--- a/src/mod{task}.py\n"
            f"+++ b/src/mod{task}.py\n@@ -10,2 +10,{lines + 2} @@\n def f():\n{body}"
            "     return None\n")


def write_runs(path: Path, n_tasks: int, identical_every: int = 10,
               diff_lines: int = 30) -> int:
    """A native run file: ``n_tasks`` tasks, arms ``base`` and ``ctx``; every
    ``identical_every``-th task has the same diff in both arms. Returns the calls a
    pairwise judgement of it makes (two per non-identical pair)."""
    results = []
    calls = 0
    for t in range(n_tasks):
        same = t % identical_every == 0
        task = {"id": f"task-{t:04d}", "repo": "acme/app", "language": "python",
                "description": f"Function f of module {t} returns the wrong value.",
                "test_command": "pytest -q"}
        for arm in ("base", "ctx"):
            marker = "same" if same else arm
            results.append({
                "task": task, "arm": arm, "attempt": 0, "model": "agent-x",
                "agent_diff": _diff(t, marker, diff_lines),
                "ground_truth_diff": _diff(t, "fix", diff_lines),
                "test": {"exit_code": 0, "output": "===== 3 passed in 0.1s =====",
                         "framework": "pytest"}})
        calls += 0 if same else 2
    path.write_text(json.dumps({"format": "judgekit.run/v1", "results": results}))
    return calls


def start_server(latency: float, *extra: str) -> tuple[subprocess.Popen[str], str]:
    server = subprocess.Popen(
        [sys.executable, "-m", "judgekit.testing", "--latency", str(latency),
         "--until-stdin-closes", *extra],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    port = json.loads(server.stdout.readline())["port"]  # type: ignore[union-attr]
    return server, f"http://127.0.0.1:{port}"


def model_calls(url: str) -> int:
    with urllib.request.urlopen(f"{url}/_fake/stats") as response:
        return int(json.loads(response.read())["model_calls"])


def bodies_of(run_file: Path, url: str) -> list[dict]:
    """The exact request bodies ``judgekit judge`` sends for ``run_file``."""
    from judgekit.engine import EngineConfig
    from judgekit.engine.providers.anthropic import AnthropicProvider
    from judgekit.pairwise.pairs import collect, plan_pairs
    from judgekit.pairwise.step import build_requests
    from judgekit.pairwise.options import PairwiseOptions
    from judgekit.ingest.load import load_runs
    from judgekit.scoring.score import score

    runs = load_runs([run_file])
    tasks, _ = collect(runs, score(runs).results)
    shaper = AnthropicProvider(EngineConfig(model=MODEL), api_key="bench", base_url=url)
    out = []
    for pair in plan_pairs(tasks):
        if pair.identical:
            continue
        for req in build_requests(pair, PairwiseOptions(), None):
            out.append(shaper._body(req, shaper.start(req)))
    return out


_BARE = r"""
import asyncio, json, sys, time
import anthropic
url, conc, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
bodies = json.load(open(path))
async def main():
    client = anthropic.AsyncAnthropic(api_key="bench", base_url=url, max_retries=0)
    sem = asyncio.Semaphore(conc)
    async def one(body):
        async with sem:
            await client.messages.create(**body)
    start = time.perf_counter()
    await asyncio.gather(*(one(b) for b in bodies))
    elapsed = time.perf_counter() - start
    await client.close()
    return elapsed
print(asyncio.run(main()))
"""


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def bare(url: str, concurrency: int, bodies_file: Path) -> float:
    """Wall seconds of the bare loop's calls, timed inside its process (the marginal removes
    the rest anyway)."""
    proc = subprocess.run([sys.executable, "-c", _BARE, url, str(concurrency), str(bodies_file)],
                          check=True, capture_output=True, text=True)
    return float(proc.stdout.strip().splitlines()[-1])


def judge(url: str, concurrency: int, run_file: Path, out: Path, *extra: str,
          env: dict[str, str] | None = None, tree: Path = ROOT
          ) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Wall seconds of ``judgekit judge`` as a user runs it (from the checkout ``tree``)."""
    full_env = {**os.environ, "ANTHROPIC_API_KEY": "bench-key", "ANTHROPIC_BASE_URL": url,
                **(env or {})}
    if tree != ROOT:
        full_env["PYTHONPATH"] = str(tree)
    cmd = [sys.executable, "-m", "judgekit", "judge", str(run_file), "--judge", MODEL,
           "--no-audit", "--concurrency", str(concurrency),
           *([] if NO_OUT else ["--out", str(out)]), *JUDGE_EXTRA, *extra]
    if "--cache" not in extra:
        cmd.append("--no-cache")
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=full_env, capture_output=True, text=True, cwd=tree)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"judgekit judge failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return elapsed, proc


def throughput(args: argparse.Namespace, tmp: Path) -> None:
    trees: list[tuple[str, Path]] = [("judge", ROOT)]
    for spec in args.tree:
        name, _, path = spec.partition("=")
        trees.append((name, Path(path).resolve()))
    server, url = start_server(args.latency)
    try:
        print(f"fake API latency {args.latency * 1000:.0f} ms (own process); "
              f"{os.cpu_count()} CPUs, shared; best of {args.rounds} rounds")
        print("marginal wall ms per call between a small and a large run file, and marginal "
              "client CPU ms per call (user+sys of the process)")
        print(f"{'conc':>4} {'calls':>10} {'what':>10} {'wall ms':>8} {'/ideal':>7} {'/bare':>6} "
              f"{'calls/s':>8} {'cpu ms':>7}")
        for c in args.concurrency:
            files = {}
            for size, per_slot in (("small", args.small), ("large", args.large)):
                n_tasks = max(2, round(per_slot * c / 1.8))  # 1.8 calls per task on average
                run_file = tmp / f"runs-{c}-{size}.json"
                calls = write_runs(run_file, n_tasks, diff_lines=args.diff_lines)
                bodies_file = tmp / f"bodies-{c}-{size}.json"
                bodies_file.write_text(json.dumps(bodies_of(run_file, url)))
                files[size] = (run_file, bodies_file, calls)
            kinds = ["bare", *(name for name, _ in trees)]
            # the fastest of the rounds for each kind and size: a shared machine only ever
            # adds time, so each minimum is the run least disturbed
            fastest: dict[tuple[str, str], float] = {}
            least_cpu: dict[tuple[str, str], float] = {}
            for _ in range(args.rounds):
                for kind in kinds:  # interleaved, so every kind meets the same load
                    for size, (run_file, bodies_file, calls) in files.items():
                        before = model_calls(url)
                        cpu_before = _child_cpu()
                        if kind == "bare":
                            took = bare(url, c, bodies_file)
                        else:
                            tree = dict(trees)[kind]
                            took = judge(url, c, run_file, tmp / f"out-{c}-{size}", tree=tree)[0]
                        fastest[kind, size] = min(fastest.get((kind, size), float("inf")), took)
                        least_cpu[kind, size] = min(least_cpu.get((kind, size), float("inf")),
                                                    _child_cpu() - cpu_before)
                        made = model_calls(url) - before
                        assert made == calls, f"{kind} made {made} calls, expected {calls}"
            d_calls = files["large"][2] - files["small"][2]
            best = {k: (fastest[k, "large"] - fastest[k, "small"]) / d_calls for k in kinds}
            cpu = {k: (least_cpu[k, "large"] - least_cpu[k, "small"]) / d_calls for k in kinds}
            ideal = args.latency / c
            calls = f"{files['small'][2]}/{files['large'][2]}"
            for kind in kinds:
                print(f"{c:>4} {calls:>10} {kind:>10} {best[kind] * 1e3:>8.2f} "
                      f"{best[kind] / ideal:>7.2f} {best[kind] / best['bare']:>6.2f} "
                      f"{1 / best[kind]:>8.0f} {cpu[kind] * 1e3:>7.2f}", flush=True)
    finally:
        server.stdin.close()  # type: ignore[union-attr]
        server.wait(timeout=10)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.25)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[16, 32, 64, 128])
    parser.add_argument("--small", type=float, default=4, help="calls per slot, small run")
    parser.add_argument("--large", type=float, default=20, help="calls per slot, large run")
    parser.add_argument("--rounds", type=int, default=2, help="best of N")
    parser.add_argument("--tree", action="append", default=[], metavar="NAME=DIR",
                        help="also time judgekit judge from another checkout (e.g. "
                             "before=/path/to/old/tree), interleaved with this one")
    parser.add_argument("--judge-arg", action="append", default=[],
                        help="extra argument for judgekit judge (repeatable), e.g. "
                             "--judge-arg=--no-similarity on versions where similarity is on")
    parser.add_argument("--diff-lines", type=int, default=30,
                        help="added lines in each diff of the generated run files")
    parser.add_argument("--no-out", action="store_true",
                        help="run judgekit judge without --out: the summary table is printed "
                             "and no report is written")
    args = parser.parse_args()
    JUDGE_EXTRA.extend(args.judge_arg)
    global NO_OUT
    NO_OUT = args.no_out
    with tempfile.TemporaryDirectory(prefix="judgekit-judge-throughput-") as tmp:
        throughput(args, Path(tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
