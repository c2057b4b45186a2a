"""``judgekit transcript`` at scale: seconds and peak memory on generated sessions.

Claude Code sessions as ``claude -p --output-format stream-json --verbose`` prints them
(its lines in the shape Claude Code 2.1.197 prints: a ``tool_use`` line and a
``tool_result`` line a call, about 1 KB, every tenth call failing; 200,000 calls stay under
the 256 MB a session file may have) of 20,000 and 200,000 tool calls are generated, and, in the same run, each is shown by a child process as a user would:
``judgekit transcript FILE`` and ``judgekit transcript FILE --json`` (stdout discarded).
Each child's wall and CPU seconds and peak resident memory come from ``resource.getrusage``
of a small parent that runs only it (CPU seconds say more than wall seconds on a shared
machine).

The contract: the 200,000-call session takes at most 12 times the 20,000-call one (the
work is linear in the calls), and peak memory stays at most 4 times the file's size.

    python bench/transcript_scale.py                  # 20,000 and 200,000 calls
    python bench/transcript_scale.py --calls 2000 20000
    python bench/transcript_scale.py --out bench/results/transcript_scale.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SESSION = "4df29513-537d-492c-8072-926781b8e631"
USAGE = {"input_tokens": 153, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 21,
         "output_tokens": 33, "service_tier": "standard"}
#: Runs the command after it; prints its wall seconds and peak RSS (bytes) as JSON.
_MEASURE = ("import json, resource, subprocess, sys, time; t = time.perf_counter(); "
            "rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL); "
            "u = resource.getrusage(resource.RUSAGE_CHILDREN); "
            "print(json.dumps({'rc': rc, 'seconds': time.perf_counter() - t, "
            "'cpu': u.ru_utime + u.ru_stime, 'peak': u.ru_maxrss * 1024}))")


def _uuid(n: int) -> str:
    return f"{n:08x}-b981-4b44-a84c-00974284aa03"


def write_session(path: Path, calls: int) -> None:
    """What ``claude -p --output-format stream-json --verbose`` prints for a session of
    ``calls`` Bash calls (its lines in the shape Claude Code 2.1.197 prints them)."""
    with path.open("w") as fh:
        fh.write(json.dumps({"type": "system", "subtype": "init", "cwd": "/home/user/calc",
                             "session_id": SESSION, "tools": ["Bash", "Read", "Edit"],
                             "model": "claude-sonnet-4-5", "permissionMode": "acceptEdits",
                             "uuid": _uuid(0)}, separators=(",", ":")) + "\n")
        for i in range(calls):
            fails = i % 10 == 9
            command = f"python3 -m pytest tests/test_calc.py -k case_{i}"
            use = {"type": "assistant", "message": {
                "model": "claude-sonnet-4-5", "id": f"msg_{i:08d}", "type": "message",
                "role": "assistant", "content": [
                    {"type": "tool_use", "id": f"toolu_{i:08d}", "name": "Bash",
                     "input": {"command": command, "description": "Run the test"}}],
                "stop_reason": None, "stop_sequence": None, "usage": USAGE,
                "context_management": None}, "parent_tool_use_id": None,
                "session_id": SESSION, "uuid": _uuid(2 * i + 1)}
            output = ("Exit code 1\nFAILED tests/test_calc.py::test_case - assert 8 == 6"
                      if fails else f"1 passed in 0.0{i % 10}s")
            result = {"type": "user", "message": {"role": "user", "content": [
                {"tool_use_id": f"toolu_{i:08d}", "type": "tool_result", "content": output,
                 "is_error": fails}]}, "parent_tool_use_id": None, "session_id": SESSION,
                "uuid": _uuid(2 * i + 2), "timestamp": "2026-11-28T19:45:05.314Z",
                "tool_use_result": {"stdout": output, "stderr": "", "interrupted": False,
                                    "isImage": False, "noOutputExpected": False}}
            fh.write(json.dumps(use, separators=(",", ":")) + "\n"
                     + json.dumps(result, separators=(",", ":")) + "\n")
        fh.write(json.dumps({"type": "result", "subtype": "success", "is_error": False,
                             "duration_ms": 4884, "num_turns": calls + 1, "result": "Done.",
                             "session_id": SESSION, "total_cost_usd": 0.96, "usage": USAGE,
                             "uuid": _uuid(2 * calls + 1)}, separators=(",", ":")) + "\n")


def measure(path: Path, *extra: str) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", _MEASURE, sys.executable, "-m", "judgekit",
                           "transcript", str(path), *extra], capture_output=True, text=True,
                          env=env, check=True)
    out: dict[str, float] = json.loads(proc.stdout)
    if out["rc"] != 0:
        raise SystemExit(f"judgekit transcript {path} {' '.join(extra)}: exit {out['rc']}")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calls", type=int, nargs=2, default=[20_000, 200_000])
    ap.add_argument("--dir", type=Path, default=None)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    work = args.dir or Path(tempfile.mkdtemp(prefix="transcript-scale-"))
    rows = []
    for calls in args.calls:
        path = work / f"session-{calls}.jsonl"
        write_session(path, calls)
        size = path.stat().st_size
        for view in ("text", "json"):
            got = measure(path, *(["--json"] if view == "json" else []))
            rows.append({"calls": calls, "view": view, "file_bytes": size,
                         "seconds": round(got["seconds"], 2),
                         "cpu_seconds": round(got["cpu"], 2), "peak_bytes": int(got["peak"]),
                         "peak_over_file": round(got["peak"] / size, 2)})
            print(f"{calls:>7} calls  {view:<4}  file {size / 2**20:7.1f} MiB  "
                  f"{got['seconds']:7.2f} s ({got['cpu']:.2f} s CPU)  peak {got['peak'] / 2**20:7.1f} MiB "
                  f"({got['peak'] / size:.2f}x the file)", flush=True)
        path.unlink()
    small, large = args.calls
    verdict = {}
    for view in ("text", "json"):
        a = next(r for r in rows if r["calls"] == small and r["view"] == view)
        b = next(r for r in rows if r["calls"] == large and r["view"] == view)
        ratio = b["seconds"] / a["seconds"] if a["seconds"] else float("inf")
        cpu = b["cpu_seconds"] / a["cpu_seconds"] if a["cpu_seconds"] else float("inf")
        verdict[view] = {"time_ratio": round(ratio, 2), "cpu_ratio": round(cpu, 2),
                         "calls_ratio": large / small,
                         "max_peak_over_file": max(a["peak_over_file"], b["peak_over_file"])}
        print(f"{view}: {large} calls take {ratio:.2f}x the time ({cpu:.2f}x the CPU) of {small} "
              f"({large / small:.0f}x the calls); peak at most "
              f"{verdict[view]['max_peak_over_file']:.2f}x the file")
    if args.out:
        args.out.write_text(json.dumps({"rows": rows, "verdict": verdict,
                                        "measured_at": time.strftime("%Y-%m-%d %H:%M")},
                                       indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
