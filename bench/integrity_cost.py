"""What the integrity checks cost ``judgekit score``: wall time of ``judgekit score FILE
--json`` with the checks (the default) and with ``--no-integrity``, on generated results
that each carry a transcript, in one run; the ratio is what the checks add.

Each result: a task with its test command, a patch of a source file and an additive test
edit, the fix's diff, pytest output, and a session of 24 tool calls (reads, searches, an
edit, test runs, ``git status``/``git diff``/``git log``, ``pip install -e .``), about 6 KB;
one result in twenty cheats (a skip marker, ``git show fix:...``, ``pip download``), so the
records are written too. The two commands run one after the other, ``--repeat`` rounds,
each round starting with the one the last round ended with; ``ratio`` is the median of the
rounds' ratios of wall time, ``cpu_ratio`` of CPU time (the command's and its workers'):
a ratio within a round is taken minutes apart at most, so a machine whose speed drifts
over the run (shared hosts do) moves both of its terms. The machine may be shared: each measurement
says how many CPUs other processes kept busy meanwhile (wall time on a loaded machine
measures the load as much as the command; CPU time does not).

    python bench/integrity_cost.py                  # 100,000 results
    python bench/integrity_cost.py --n 20000 --repeat 3
    python bench/integrity_cost.py --out bench/results/integrity_cost.json
    python bench/integrity_cost.py --instructions 6000   # and instructions, by valgrind

Time on a shared machine moves with what else runs on its host; ``--instructions N`` also
counts the instructions both commands run (the command and its worker processes) on N
results under valgrind's cachegrind, which that does not move.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BUDGET = 1.20  # the checks may add at most 20% to score's wall time

SRC = "src/pkg/mod{n}.py"
TEST = "tests/test_mod{n}.py"


def _diff(path: str, removed: list[str], added: list[str], context: str) -> str:
    body = "".join(f"-{x}\n" for x in removed) + "".join(f"+{x}\n" for x in added)
    n_old, n_new = len(removed) + 1, len(added) + 1
    return (f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
            f"@@ -10,{n_old} +10,{n_new} @@\n {context}\n{body}")


def _calls(rng: random.Random, n: int, cheat: str | None) -> list[dict[str, Any]]:
    src, test = SRC.format(n=n), TEST.format(n=n)
    commands = ["git status", "ls -la src/pkg", f"cat {src}", f"grep -n 'def ' {src}",
                f"cat {test}", "pip install -e .", "python -m pytest -q tests",
                f"sed -n '1,80p' {src}", "git log --oneline -5", "git diff",
                f"sed -i 's/value - 1/value + 1/' {src}", "python -m pytest -q tests",
                "git show HEAD --stat", f"grep -rn 'value' src | head -20",
                f"python -c 'import pkg.mod{n}'", "git diff --stat"]
    while len(commands) < 24:
        commands.append(f"grep -rn 'token_{rng.randint(0, 999)}' src tests")
    if cheat == "peek":
        commands[rng.randint(3, 20)] = f"git show fix:{src}"
    elif cheat == "fetch":
        commands[rng.randint(3, 20)] = "pip download pkg==9.0 --no-deps -d /tmp/later"
    return [{"name": "bash", "arguments": {"command": c}, "exit_code": 0,
             "output": f"line {rng.randint(0, 9999)} of output for {c[:40]}\n" * 2}
            for c in commands]


def result(rng: random.Random, i: int) -> dict[str, Any]:
    n = i % 500
    cheat = {0: "skip", 1: "peek", 2: "fetch"}.get(i % 60) if i % 20 == 0 else None
    src, test = SRC.format(n=n), TEST.format(n=n)
    fix = (_diff(src, ["    return value - 1"], ["    return value + 1"], f"def f{n}(value):")
           + _diff(test, [], [f"    assert f{n}(2) == 3"], f"def test_f{n}():"))
    added_test = ["@pytest.mark.skip"] if cheat == "skip" else [f"    assert f{n}(4) == 5"]
    patch = (_diff(src, ["    return value - 1"], ["    return value + 1"], f"def f{n}(value):")
             + _diff(test, [], added_test, f"def test_f{n}():"))
    passed = rng.random() < 0.6
    return {"run_id": "bench", "task": {"id": f"pkg-{n}", "repo": "acme/pkg",
                                        "test_command": "python -m pytest -q tests"},
            "arm": ("a", "b")[i % 2], "attempt": i // 500, "agent_diff": patch,
            "ground_truth_diff": fix,
            "test": {"exit_code": 0 if passed else 1,
                     "output": "3 passed in 0.12s" if passed else "1 failed, 2 passed in 0.1s"},
            "session": {"format": "claude-code", "tool_calls": _calls(rng, n, cheat),
                        "final_message": "All tests pass (3 passed)." if passed
                        else "1 failed, 2 passed. The bug is not fixed yet.",
                        "exit_status": "completed"}}


def generate(path: Path, n: int, seed: int = 11) -> None:
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            fh.write(json.dumps(result(rng, i)) + "\n")


def _busy_seconds() -> float | None:
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    except OSError:
        return None
    return sum(map(int, fields[:3] + fields[5:8])) / os.sysconf("SC_CLK_TCK")


def measure(argv: list[str]) -> dict[str, float]:
    """Wall and CPU seconds of a child process, and the CPUs others kept busy meanwhile."""
    busy = _busy_seconds()
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    after = _busy_seconds()
    assert proc.stderr is not None
    err = proc.stderr.read().decode(errors="replace")
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv[:6])} failed: {err[-2000:]}")
    cpu = usage.ru_utime + usage.ru_stime
    others = (after - busy - cpu) / seconds if busy is not None and after else 0.0
    return {"seconds": round(seconds, 2), "cpu": round(cpu, 2),
            "others_cpus": round(max(others, 0.0), 2)}


def instructions(argv: list[str], tmp: Path) -> int:
    """Instructions the command and its worker processes ran, counted by valgrind's
    cachegrind (the same on a busy or a quiet machine, unlike time)."""
    logs = tmp / "cachegrind"
    logs.mkdir(exist_ok=True)
    for old in logs.iterdir():
        old.unlink()
    env = {**os.environ, "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1"}
    proc = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no",
                           "--cachegrind-out-file=/dev/null",
                           f"--log-file={logs}/log.%p", *argv], cwd=ROOT, env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if proc.returncode != 0:
        raise SystemExit(f"valgrind {' '.join(argv[:6])} failed: {proc.stderr[-2000:]!r}")
    total = 0
    for log in logs.iterdir():
        m = re.search(r"I\s+refs:\s+([\d,]+)", log.read_text(encoding="utf-8"))
        if m:
            total += int(m.group(1).replace(",", ""))
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--dir", type=Path, default=None)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--instructions", type=int, default=0, metavar="N",
                    help="also count the instructions of both commands on N results "
                         "under valgrind (slow: about 3 minutes for 6,000)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        path = Path(tmp) / "run.jsonl"
        generate(path, args.n)
        size = path.stat().st_size
        base = [sys.executable, "-m", "judgekit", "score", str(path), "--json"]
        runs: dict[str, list[dict[str, float]]] = {"integrity": [], "no_integrity": []}
        arms = [("no_integrity", ["--no-integrity"]), ("integrity", [])]
        for round_ in range(args.repeat):
            # each round runs the two one after the other, in turns first (ABBA...), so
            # that a machine getting faster or slower favours neither
            for arm, extra in (arms if round_ % 2 == 0 else arms[::-1]):
                runs[arm].append(measure([*base, *extra]))
                print(arm, runs[arm][-1], file=sys.stderr, flush=True)
        counted: dict[str, int] = {}
        if args.instructions:
            small = Path(tmp) / "small.jsonl"
            generate(small, args.instructions)
            for arm, extra in arms:
                counted[arm] = instructions([sys.executable, "-m", "judgekit", "score",
                                             str(small), "--json", *extra], Path(tmp))
                print(arm, "instructions", counted[arm], file=sys.stderr, flush=True)
    pairs = list(zip(runs["integrity"], runs["no_integrity"]))
    ratios = [w["seconds"] / o["seconds"] for w, o in pairs]
    cpu_ratios = [w["cpu"] / o["cpu"] for w, o in pairs]
    ratio = statistics.median(ratios)
    cpu_ratio = statistics.median(cpu_ratios)
    report = {"results": args.n, "file_mb": round(size / 2**20, 1), "repeat": args.repeat,
              "median_seconds_integrity": statistics.median(r["seconds"]
                                                            for r in runs["integrity"]),
              "median_seconds_no_integrity": statistics.median(r["seconds"]
                                                               for r in runs["no_integrity"]),
              "ratio": round(ratio, 3), "round_ratios": [round(x, 3) for x in ratios],
              "budget": BUDGET, "within_budget": ratio <= BUDGET,
              "median_cpu_integrity": statistics.median(r["cpu"] for r in runs["integrity"]),
              "median_cpu_no_integrity": statistics.median(r["cpu"]
                                                           for r in runs["no_integrity"]),
              "cpu_ratio": round(cpu_ratio, 3), "round_cpu_ratios": [round(x, 3)
                                                                     for x in cpu_ratios],
              "cpu_within_budget": cpu_ratio <= BUDGET,
              "runs": runs, "cpus": os.cpu_count(), "python": platform.python_version()}
    if counted:
        report["instructions"] = {"results": args.instructions, **counted,
                                  "ratio": round(counted["integrity"]
                                                 / counted["no_integrity"], 3)}
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
