"""``judgekit transcript`` at scale: seconds and peak memory on generated sessions.

Claude Code session files (``~/.claude/projects/<slug>/<session>.jsonl``, its lines in the
shape Claude Code 2.1 writes: the same metadata on every line, a ``tool_use`` line and a
``tool_result`` line a call, every tenth call failing) of 20,000 and 200,000 tool calls are
generated, and, in the same run, each is shown by a child process as a user would:
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
SESSION = "bc05e90d-929b-48e2-9ceb-79e22db797cf"
META = {"isSidechain": False, "userType": "external", "entrypoint": "sdk-cli",
        "cwd": "/home/user/calc", "sessionId": SESSION, "version": "2.1.197",
        "gitBranch": "master"}
USAGE = {"input_tokens": 200, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 3,
         "output_tokens": 20, "service_tier": "standard",
         "cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0}}
#: Runs the command after it; prints its wall seconds and peak RSS (bytes) as JSON.
_MEASURE = ("import json, resource, subprocess, sys, time; t = time.perf_counter(); "
            "rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL); "
            "u = resource.getrusage(resource.RUSAGE_CHILDREN); "
            "print(json.dumps({'rc': rc, 'seconds': time.perf_counter() - t, "
            "'cpu': u.ru_utime + u.ru_stime, 'peak': u.ru_maxrss * 1024}))")


def _uuid(n: int) -> str:
    return f"{n:08x}-93f2-4bf6-88cd-cc7d3cdaa556"


def write_session(path: Path, calls: int) -> None:
    """A Claude Code session file of ``calls`` Bash calls."""
    with path.open("w") as fh:
        first = {"parentUuid": None, "type": "user", "message": {"role": "user",
                 "content": "Fix calc.py"}, "uuid": _uuid(0),
                 "timestamp": "2026-11-27T16:27:06.478Z", **META}
        fh.write(json.dumps(first) + "\n")
        for i in range(calls):
            fails = i % 10 == 9
            command = f"python3 -m pytest tests/test_calc.py -k case_{i}"
            use = {"parentUuid": _uuid(2 * i), "type": "assistant", "message": {
                "id": f"msg_{i:08d}", "type": "message", "role": "assistant",
                "model": "claude-sonnet-4-5", "content": [
                    {"type": "tool_use", "id": f"toolu_{i:08d}", "name": "Bash",
                     "input": {"command": command, "description": "Run the test"}}],
                "stop_reason": "tool_use", "stop_sequence": None, "usage": USAGE},
                "requestId": f"req_{i:08d}", "uuid": _uuid(2 * i + 1),
                "timestamp": "2026-11-27T16:27:07.000Z", **META}
            output = ("Exit code 1\nFAILED tests/test_calc.py::test_case - assert 8 == 6"
                      if fails else f"1 passed in 0.0{i % 10}s")
            result = {"parentUuid": _uuid(2 * i + 1), "type": "user", "message": {
                "role": "user", "content": [{"tool_use_id": f"toolu_{i:08d}",
                                             "type": "tool_result", "content": output,
                                             "is_error": fails}]},
                "uuid": _uuid(2 * i + 2), "timestamp": "2026-11-27T16:27:08.000Z",
                "toolUseResult": {"stdout": output, "stderr": "", "interrupted": False,
                                  "isImage": False}, **META}
            fh.write(json.dumps(use) + "\n" + json.dumps(result) + "\n")
        last = {"parentUuid": _uuid(2 * calls), "type": "assistant", "message": {
            "id": "msg_last", "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": "Done."}],
            "stop_reason": "end_turn", "usage": USAGE}, "uuid": _uuid(2 * calls + 1),
            "timestamp": "2026-11-27T16:27:09.000Z", **META}
        fh.write(json.dumps(last) + "\n")


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
