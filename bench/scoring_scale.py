"""Scoring at scale: seconds and peak memory of ``judgekit score FILE --json`` on generated runs.

A run in the shape of a real Rust benchmark is generated: 2 arms, diffs of five files of about
40 changed lines each, ``cargo test`` output, one serving model, about 22 KB a result. The two
cases of 100,000 results are 5,000 tasks × 10 attempts and 1,000 tasks × 50 attempts (about
2.2 GB each); ``--quick`` runs 10,000 results instead. Each case is written twice, as JSON
lines (``.jsonl``) and as one ``.json`` run document (``{"results": [...]}``).

For each file, in the same run, two child processes are measured one after the other:

* ``judgekit score FILE --json`` (the whole command, its JSON printed to a discarded stdout);
* a plain parse of the same file with orjson (each line of a ``.jsonl``; the whole document
  of a ``.json``), which is the floor any scoring of the file stands on.

Both report wall seconds, CPU seconds and peak RSS; the ratio of the two wall times cancels
much of the machine's speed. The machine may be shared: each line also says how many CPUs
other processes kept busy while the command ran (from ``/proc/stat``).

    python bench/scoring_scale.py                     # both 100,000-result cases
    python bench/scoring_scale.py --quick             # 10,000 results
    python bench/scoring_scale.py --dir DIR           # where the generated files go
    python bench/scoring_scale.py --out bench/results/scoring_scale.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
ARMS = ("baseline", "context")
MODEL = "claude-sonnet-4-5"
DIRS = ("src", "src/engine", "src/io", "crates/core/src", "crates/cli/src", "tests")
WORDS = ("value", "state", "buffer", "index", "count", "config", "reader", "writer", "node",
         "span", "token", "cursor")
HUNKS_PER_FILE = 2
CHANGED_PER_HUNK = 8  # 8 removed, 8 added and 4 context lines a hunk: 40 lines a file


def _code(rng: random.Random) -> str:
    a, b = rng.choice(WORDS), rng.choice(WORDS)
    return f"        let {a}_{rng.randint(0, 999)} = self.{b}.get({rng.randint(0, 9999)})?;"


def _hunk_pool(rng: random.Random, size: int = 4000) -> list[str]:
    """Hunk bodies (after the ``@@`` line) a diff is assembled from."""
    pool = []
    for _ in range(size):
        lines = [" " + _code(rng) for _ in range(2)]
        lines += ["-" + _code(rng) for _ in range(CHANGED_PER_HUNK)]
        lines += ["+" + _code(rng) for _ in range(CHANGED_PER_HUNK)]
        lines += [" " + _code(rng) for _ in range(2)]
        pool.append("\n".join(lines) + "\n")
    return pool


def _file_diff(rng: random.Random, pool: list[str], path: str) -> str:
    parts = [f"diff --git a/{path} b/{path}\n"
             f"index {rng.getrandbits(28):07x}..{rng.getrandbits(28):07x} 100644\n"
             f"--- a/{path}\n+++ b/{path}\n"]
    start = rng.randint(1, 400)
    for _ in range(HUNKS_PER_FILE):
        parts.append(f"@@ -{start},12 +{start},12 @@ impl Engine {{\n")
        parts.append(rng.choice(pool))
        start += rng.randint(40, 200)
    return "".join(parts)


def _paths(rng: random.Random, task: int, n: int) -> list[str]:
    return [f"{rng.choice(DIRS)}/m{task % 97}_{i}.rs" for i in range(n)]


def _cargo_output(rng: random.Random, passed: bool) -> str:
    n = rng.randint(20, 40)
    failing = -1 if passed else rng.randrange(n)
    lines = ["   Compiling example v0.4.1 (/build/example)",
             f"    Finished `test` profile [unoptimized + debuginfo] target(s) in "
             f"{rng.uniform(1, 60):.2f}s",
             f"     Running unittests src/lib.rs (target/debug/deps/example-"
             f"{rng.getrandbits(64):016x})", "", f"running {n} tests"]
    lines += [f"test engine::tests::case_{i:03d} ... {'FAILED' if i == failing else 'ok'}"
              for i in range(n)]
    if not passed:
        lines += ["", "failures:", "", f"---- engine::tests::case_{failing:03d} stdout ----",
                  "thread 'engine::tests' panicked at src/engine.rs:88:9:",
                  "assertion `left == right` failed", "  left: 3", " right: 4", "",
                  "failures:", f"    engine::tests::case_{failing:03d}"]
    verdict = "ok" if passed else "FAILED"
    lines += ["", f"test result: {verdict}. {n - (0 if passed else 1)} passed; "
                  f"{0 if passed else 1} failed; 0 ignored; 0 measured; 0 filtered out; "
                  f"finished in {rng.uniform(0.01, 3):.2f}s", "",
              "   Doc-tests example", "", "running 0 tests", "",
              "test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; "
              "finished in 0.00s", ""]
    return "\n".join(lines)


def _result(rng: random.Random, pool: list[str], task: int, arm: str, attempt: int,
            truth: list[str], truth_diff: str) -> dict:
    agent = truth[: rng.randint(2, len(truth))] + _paths(rng, task + 7, rng.randint(0, 2))
    passed = rng.random() < (0.45 if arm == "baseline" else 0.55)
    return {
        "run_id": f"run-{attempt % 3}",
        "task": {"id": f"task-{task:05d}", "repo": "example/engine",
                 "commit": f"{rng.getrandbits(160):040x}",
                 "test_command": "cargo test", "language": "rust"},
        "arm": arm, "attempt": attempt, "model": MODEL,
        "agent_diff": "".join(_file_diff(rng, pool, p) for p in agent),
        "ground_truth_diff": truth_diff,
        "test": {"exit_code": 0 if passed else 101, "output": _cargo_output(rng, passed)},
        "duration_s": round(rng.uniform(20, 900), 2),
        "usage": {"input_tokens": rng.randint(10_000, 900_000), "output_tokens": 4000,
                  "cost_usd": round(rng.uniform(0.05, 3.0), 4)},
    }


def results(tasks: int, attempts: int, seed: int = 7) -> Iterator[dict]:
    """The generated run's results, in file order (task by task)."""
    rng = random.Random(seed)
    pool = _hunk_pool(rng)
    for task in range(tasks):
        truth = _paths(rng, task, 5)
        truth_diff = "".join(_file_diff(rng, pool, p) for p in truth)  # one fix per task
        for attempt in range(attempts):
            for arm in ARMS:
                yield _result(rng, pool, task, arm, attempt, truth, truth_diff)


def generate(path: Path, tasks: int, attempts: int, seed: int = 7) -> int:
    """Write the run as JSON lines (``.jsonl``) or as one run document (``.json``)."""
    n = 0
    document = path.suffix == ".json"
    with path.open("wb") as fh:
        if document:
            fh.write(b'{"format": "judgekit.run/v1", "results": [\n')
        for result in results(tasks, attempts, seed):
            if document and n:
                fh.write(b",\n")
            fh.write(orjson.dumps(result))
            if not document:
                fh.write(b"\n")
            n += 1
        if document:
            fh.write(b"\n]}\n")
    return n


PLAIN_PARSE = (
    "import sys, orjson\n"
    "path = sys.argv[1]\n"
    "if path.endswith('.jsonl'):\n"
    "    with open(path, 'rb') as fh:\n"
    "        n = sum(1 for line in fh if orjson.loads(line) is not None)\n"
    "else:\n"
    "    with open(path, 'rb') as fh:\n"
    "        n = len(orjson.loads(fh.read())['results'])\n"
    "print(n)\n")


def _busy_seconds() -> float | None:
    """CPU seconds every process of the machine has used since boot (``/proc/stat``)."""
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    except OSError:
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, fields[:8])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def _measure(argv: list[str]) -> dict[str, float]:
    """Wall seconds, CPU seconds (children included) and peak RSS (MiB) of a child process,
    and how many CPUs other processes kept busy meanwhile (the machine may be shared)."""
    busy = _busy_seconds()
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    busy_after = _busy_seconds()
    assert proc.stderr is not None
    err = proc.stderr.read().decode(errors="replace")
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv[:5])} failed: {err[-2000:]}")
    cpu = usage.ru_utime + usage.ru_stime
    others = (busy_after - busy - cpu) / seconds if busy is not None and busy_after else 0.0
    return {"seconds": round(seconds, 2), "cpu": round(cpu, 2),
            "peak_mib": round(usage.ru_maxrss / 1024), "others_cpus": round(max(others, 0), 2)}


def run_file(path: Path) -> dict[str, object]:
    plain = _measure([sys.executable, "-c", PLAIN_PARSE, str(path)])
    command = _measure([sys.executable, "-m", "judgekit", "score", str(path), "--json"])
    return {"file": path.name, "bytes": path.stat().st_size, "score": command,
            "plain_parse": plain, "ratio": round(command["seconds"] / plain["seconds"], 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10,000 results only")
    parser.add_argument("--dir", type=Path, default=None,
                        help="where to write the generated runs (a temporary folder if omitted)")
    parser.add_argument("--formats", default="jsonl,json",
                        help="comma-separated: jsonl, json (default both)")
    parser.add_argument("--out", type=Path, default=None, help="also write the rows as JSON")
    args = parser.parse_args()
    cases = ([("10k", 500, 10)] if args.quick else
             [("100k-10att", 5000, 10), ("100k-50att", 1000, 50)])
    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    rows: list[dict[str, object]] = []
    print(f"python {platform.python_version()}, {os.cpu_count()} CPUs, orjson "
          f"{orjson.__version__}", flush=True)
    with tempfile.TemporaryDirectory(prefix="judgekit-scale-", dir=args.dir) as tmp:
        for name, tasks, attempts in cases:
            for fmt in formats:
                path = Path(tmp) / f"{name}.{fmt}"
                n = generate(path, tasks, attempts)
                row = {"case": name, "results": n, "tasks": tasks, "attempts": attempts,
                       **run_file(path)}
                path.unlink()
                rows.append(row)
                s: dict[str, Any] = row["score"]  # type: ignore[assignment]
                p: dict[str, Any] = row["plain_parse"]  # type: ignore[assignment]
                print(f"{name:>11} .{fmt:<5} {n:>7} results, {row['bytes'] / 1e9:4.2f} GB | "
                      f"judgekit score --json: {s['seconds']:6.2f} s wall, {s['cpu']:6.2f} s "
                      f"CPU, peak {s['peak_mib']:5.0f} MiB | orjson parse: "
                      f"{p['seconds']:5.2f} s wall, peak {p['peak_mib']:5.0f} MiB | "
                      f"ratio {row['ratio']:4.2f}x | other processes kept "
                      f"{s['others_cpus']:.1f} CPUs busy", flush=True)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        command = ("python bench/scoring_scale.py" + (" --quick" if args.quick else "")
                   + (f" --formats {args.formats}" if args.formats != "jsonl,json" else ""))
        record = {"command": command, "machine": _machine(), "date": time.strftime("%Y-%m-%d"),
                  "result": {"python": platform.python_version(),
                             "orjson": orjson.__version__, "rows": rows}}
        args.out.write_text(json.dumps(record, indent=1) + "\n")


def _machine() -> str:
    """The CPU model and the CPUs this process may use."""
    model = platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{len(os.sched_getaffinity(0))} CPUs of {model}"


if __name__ == "__main__":
    main()
