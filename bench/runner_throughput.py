"""Attempts per minute of ``judgekit run``: local executor vs Ray, no sandbox vs bwrap.

A synthetic suite (a small git project with a real bug-fix commit, ``--tasks`` copies of
one task) is run with an agent that is a short shell script (it applies the fix), so the
figure measures the runner itself: workspace creation, sandbox start, diff, test run and
writing the run file. Every configuration runs the same units in the same process, one
after the other, and is reported as a ratio to the first one (local, one job, no sandbox),
which cancels most of the load of a shared machine.

    python bench/runner_throughput.py                # 8 tasks x 2 arms x 1 attempt
    python bench/runner_throughput.py --tasks 20 --no-ray
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from judgekit.execute import AgentCommand, RunPlan, load_suite, run_suite
from judgekit.execute.sandbox import Bwrap, NoSandbox, bwrap_problem

BUGGY = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
TEST = ("import sys\nsys.path.insert(0, '.')\nfrom calc import add\n"
        "assert add(2, 3) == 5\nprint('1 passed')\n")
AGENT = "sed -i 's/a - b/a + b/' calc/__init__.py"


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=b", "-c", "user.email=b@b", *args], cwd=cwd,
                          check=True, capture_output=True, text=True).stdout.strip()


def make_suite(root: Path, tasks: int) -> Path:
    repo = root / "calc"
    (repo / "calc").mkdir(parents=True)
    (repo / "tests").mkdir()
    git(repo, "init", "-q")
    for i in range(50):  # some history and files, like a small real project
        (repo / "calc" / f"mod{i}.py").write_text(f"X{i} = {i}\n" * 20)
    (repo / "calc" / "__init__.py").write_text(BUGGY)
    (repo / "tests" / "check_add.py").write_text("print('placeholder')\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "initial")
    (repo / "calc" / "__init__.py").write_text(FIXED)
    (repo / "tests" / "check_add.py").write_text(TEST)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "fix add")
    fix = git(repo, "rev-parse", "HEAD")
    entries = [{"id": f"calc-{n:03d}", "repo": str(repo), "commit": fix,
                "description": "add() subtracts.",
                "test_command": f"{sys.executable} tests/check_add.py"} for n in range(tasks)]
    suite = root / "suite.yaml"
    suite.write_text(yaml.safe_dump({"name": "synthetic", "tasks": entries}))
    return suite


def measure(suite: Path, out: Path, **plan_kw: object) -> tuple[float, int]:
    plan = RunPlan(agents={"*": AgentCommand(AGENT)}, arms=["a", "b"],
                   **plan_kw)  # type: ignore[arg-type]
    started = time.perf_counter()
    summary = run_suite(load_suite(suite), plan, out)
    elapsed = time.perf_counter() - started
    assert summary.harness_failures == 0, "a synthetic attempt failed"
    return elapsed, summary.written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=8)
    parser.add_argument("--attempts", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--no-ray", action="store_true")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="judgekit-bench-"))
    suite = make_suite(root, args.tasks)
    configs: list[tuple[str, dict[str, object]]] = [
        ("local, 1 job, no sandbox", {"jobs": 1, "sandbox": NoSandbox()}),
        (f"local, {args.jobs} jobs, no sandbox", {"jobs": args.jobs, "sandbox": NoSandbox()}),
    ]
    if bwrap_problem() is None:
        configs += [("local, 1 job, bwrap", {"jobs": 1, "sandbox": Bwrap()}),
                    (f"local, {args.jobs} jobs, bwrap", {"jobs": args.jobs, "sandbox": Bwrap()})]
    ray_init_s = None
    if not args.no_ray:
        try:
            import ray
        except ImportError:
            print("ray not installed: Ray rows skipped (pip install 'judgekit[ray]')")
        else:
            started = time.perf_counter()
            ray.init(num_cpus=args.jobs, include_dashboard=False, log_to_driver=False,
                     configure_logging=False)
            ray_init_s = time.perf_counter() - started
            configs += [(f"ray, {args.jobs} CPUs, 1 per attempt, no sandbox",
                         {"executor": "ray", "sandbox": NoSandbox()})]
            if bwrap_problem() is None:
                configs += [(f"ray, {args.jobs} CPUs, 1 per attempt, bwrap",
                             {"executor": "ray", "sandbox": Bwrap()})]
    print(f"synthetic suite: {args.tasks} tasks x 2 arms x {args.attempts} attempt(s); "
          "agent: a sed one-liner")
    if ray_init_s is not None:
        print(f"ray.init (local, {args.jobs} CPUs): {ray_init_s:.1f} s, not counted below")
    base = None
    try:
        for n, (label, kw) in enumerate(configs):
            secs, units = measure(suite, root / f"run-{n}.jsonl", attempts=args.attempts, **kw)
            rate = units / secs * 60
            base = base or rate
            print(f"{label:<42} {units:>4} attempts {secs:7.1f} s {rate:7.1f} /min  "
                  f"x{rate / base:.2f}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
