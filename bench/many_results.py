"""Many small results: seconds and peak memory of ``judgekit score`` on 10^6 results.

Each result is small (a one-file diff, a one-line ``pytest`` summary, about 400 bytes), so
what is measured is what judgekit keeps per result, not the size of the text. The run is
written as JSON lines in ``--dir`` and scored in a child process by ``judgekit score FILE``
with ``--out DIR`` (``--mode out``), ``--json`` (``--mode json``, stdout to /dev/null) or
neither (``--mode plain``: the terminal table); ``--mode all`` (the default) runs the three,
one child each, in that order. Each child's peak memory is measured two ways: the peak RSS
the kernel reports for the command's main process (``ru_maxrss`` of that child alone, from
``wait4``, as ``/usr/bin/time -v`` reports it), and the peak of the summed RSS of its whole
process tree (worker processes included), sampled every 0.2 s. The limit the project holds
these to is 1.5 GiB for every mode (``within_limit``).

    python bench/many_results.py                  # 1,000,000 results, the three modes
    python bench/many_results.py --results 100000 --mode json
    python bench/many_results.py --out bench/results/many_results_1m.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DIFF = ("diff --git a/src/m{m}.py b/src/m{m}.py\n--- a/src/m{m}.py\n+++ b/src/m{m}.py\n"
        "@@ -1 +1 @@\n-a = {m}\n+a = {n}\n")


def write_run(path: Path, n: int) -> None:
    """``n`` results: 2 arms, 10 attempts a task, tasks from 50 repositories."""
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(n):
            task, attempt = divmod(i // 2, 10)
            row = {"run_id": "r1", "task": {"id": f"t{task}", "repo": f"org/repo{task % 50}"},
                   "arm": ("baseline", "context")[i % 2], "attempt": attempt,
                   "agent_diff": DIFF.format(m=task % 7, n=i % 3),
                   "ground_truth_diff": DIFF.format(m=task % 7, n=1),
                   "test": {"exit_code": i % 3 and 1, "output": "=== 3 passed in 0.12s ==="
                            if i % 3 == 0 else "=== 1 failed, 2 passed in 0.2s ==="},
                   "duration_s": 12.5, "model": "m1"}
            fh.write(json.dumps(row, separators=(",", ":")) + "\n")


def _tree_rss(pid: int) -> int:
    """Summed RSS (bytes) of ``pid`` and its descendants."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        p = int(entry.name)
        children.setdefault(int(fields[1]), []).append(p)
        rss[p] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
    total, stack = 0, [pid]
    while stack:
        p = stack.pop()
        total += rss.get(p, 0)
        stack.extend(children.get(p, []))
    return total


LIMIT_MIB = 1536
"""The peak memory every mode is held to on 10^6 small results: 1.5 GiB."""


def measure(argv: list[str]) -> dict[str, float]:
    """Run ``argv``; its exit code, seconds, and the peak RSS of its main process (its own
    ``ru_maxrss``) and of its process tree (sampled)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.monotonic()
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.2):
            peak[0] = max(peak[0], _tree_rss(proc.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    done.set()
    sampler.join()
    wall = time.monotonic() - start
    main_mib = usage.ru_maxrss / 1024
    tree_mib = max(peak[0] / 2**20, main_mib)
    return {"exit_code": proc.returncode, "wall_s": round(wall, 1),
            "main_peak_rss_mib": round(main_mib, 1), "tree_peak_rss_mib": round(tree_mib, 1),
            "within_limit": tree_mib <= LIMIT_MIB}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", type=int, default=1_000_000)
    ap.add_argument("--dir", type=Path, default=None)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--mode", choices=("all", "plain", "json", "out"), default="all")
    args = ap.parse_args()
    work = args.dir or Path(tempfile.mkdtemp(prefix="judgekit-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    run = work / "run.jsonl"
    if not run.exists() or run.stat().st_size == 0:
        write_run(run, args.results)
    out_dir = work / "out"
    extra = {"out": ["--out", str(out_dir), "--force"], "json": ["--json"], "plain": []}
    modes = ("plain", "json", "out") if args.mode == "all" else (args.mode,)
    rows = {}
    for mode in modes:
        rows[mode] = measure([sys.executable, "-m", "judgekit", "score", str(run),
                              "--no-similarity", *extra[mode]])
        print(mode, json.dumps(rows[mode]), file=sys.stderr, flush=True)
    report = {"results": args.results, "file_mib": round(run.stat().st_size / 2**20, 1),
              "limit_mib": LIMIT_MIB, "cpus": os.cpu_count(),
              "python": platform.python_version(), "modes": rows}
    print(json.dumps(report, indent=1))
    if args.out:
        args.out.write_text(json.dumps(report, indent=1) + "\n")
    return 0 if all(r["exit_code"] == 0 for r in rows.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
