"""The review app's labeller behind thousands of idle connections.

Starts ``judgekit review OUT --no-browser`` as a user does (over a small judged output made
here with the scripted model server), then, in the same run:

* **alone**: the labeller's requests (``GET /api/queue``, ``GET /api/item``, ``POST
  /api/label``, with the token) timed with no other connection;
* **held**: the same requests while ``--idle`` connections (default 2,000) that send
  nothing are opened and held, the requests interleaved with the opening and then again
  once all are open;

and reports each phase's slowest and median request, the ratio held/alone of the slowest,
the server's threads and open descriptors at the end (from ``/proc``), how many of the
idle connections it closed, and the status a 16,000-deep JSON body gets. ``--nofile N``
starts the server under a file limit of N (the issue's case: 256).

Usage::

    python bench/review_idle_connections.py [--idle 2000] [--nofile 256] [--json OUT.json]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judgekit.testing import FakeAPIServer, Reply  # noqa: E402

URL = re.compile(r"^http://127\.0\.0\.1:(\d+)/\?token=(\S+)$")
DIMS = ("consistency", "completeness", "minimality")


def _diff(marker: str) -> str:
    return (f"diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n@@ -1,1 +1,2 @@\n x = 1\n"
            f"+# {marker}\n")


def judged_output(tmp: Path) -> Path:
    """``judgekit judge`` over 20 tasks of two arms against the scripted model server."""
    results = []
    for t in range(20):
        for arm in ("base", "ctx"):
            results.append({"task": {"id": f"t{t}", "repo": "acme/m", "description": "fix m",
                                     "test_command": "pytest"},
                            "arm": arm, "agent_diff": _diff(f"{arm}{t}"),
                            "test": {"exit_code": 0, "output": "1 passed"}})
    runs = tmp / "runs.json"
    runs.write_text(json.dumps({"format": "judgekit.run/v1", "results": results}))
    verdict = {d: {"reasoning": "r", "winner": "A"} for d in DIMS}
    out = tmp / "out"
    with FakeAPIServer(lambda api, body: Reply.ok(verdict)) as server:
        env = {**os.environ, **server.env(), "ANTHROPIC_API_KEY": "bench",
               "JUDGEKIT_CACHE": str(tmp / "cache.sqlite")}
        subprocess.run([sys.executable, "-m", "judgekit", "judge", str(runs), "--judge",
                        "anthropic:claude-haiku-4-5", "--out", str(out), "--no-audit",
                        "--no-similarity"], env=env, check=True, capture_output=True)
    return out


class Labeller:
    def __init__(self, port: int, token: str) -> None:
        self.port, self.token = port, token
        self.n = 0

    def request(self, method: str, path: str, body: bytes | None = None) -> tuple[int, float]:
        start = time.perf_counter()
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            headers = {"Host": f"127.0.0.1:{self.port}", "X-Review-Token": self.token}
            if body is not None:
                headers["Content-Type"] = "application/json"
            conn.request(method, path, body=body, headers=headers)
            resp = conn.getresponse()
            resp.read()
            return resp.status, time.perf_counter() - start
        finally:
            conn.close()

    def round(self) -> list[float]:
        """The three requests of one label; their times."""
        i, dim = divmod(self.n, 3)
        self.n += 1
        times = []
        for method, path, body in (
                ("GET", "/api/queue", None), ("GET", f"/api/item?i={i % 20}", None),
                ("POST", "/api/label", json.dumps({"i": i % 20, "dimension": DIMS[dim],
                                                   "choice": "left"}).encode())):
            status, took = self.request(method, path, body)
            if status != 200:
                raise SystemExit(f"{method} {path}: HTTP {status}")
            times.append(took)
        return times


def _summary(times: list[float]) -> dict[str, float]:
    return {"requests": len(times), "median_s": round(statistics.median(times), 4),
            "max_s": round(max(times), 4)}


def _proc_status(pid: int) -> dict[str, int]:
    threads = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Threads:"):
            threads = int(line.split()[1])
    return {"threads": threads, "open_fds": len(os.listdir(f"/proc/{pid}/fd"))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--idle", type=int, default=2000, help="idle connections to hold")
    ap.add_argument("--nofile", type=int, default=None,
                    help="the server's file descriptor limit (default: inherited)")
    ap.add_argument("--json", type=Path, default=None, help="write the figures here too")
    args = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, args.idle + 256)), hard))

    with tempfile.TemporaryDirectory() as tmpdir:
        out = judged_output(Path(tmpdir))

        def limit() -> None:
            if args.nofile:
                resource.setrlimit(resource.RLIMIT_NOFILE, (args.nofile, args.nofile))

        proc = subprocess.Popen([sys.executable, "-m", "judgekit", "review", str(out),
                                 "--no-browser"], cwd=ROOT, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True, preexec_fn=limit)
        try:
            assert proc.stdout is not None
            m = URL.match(proc.stdout.readline().strip())
            if m is None:
                raise SystemExit("the review server printed no URL")
            port, token = int(m.group(1)), m.group(2)
            who = Labeller(port, token)
            alone = [t for _ in range(10) for t in who.round()]
            during: list[float] = []
            idle: list[socket.socket] = []
            refused = 0
            for n in range(args.idle):
                try:
                    idle.append(socket.create_connection(("127.0.0.1", port), timeout=10))
                except OSError:
                    refused += 1
                if n % max(1, args.idle // 20) == 0:
                    during.extend(who.round())
            held = [t for _ in range(10) for t in who.round()]
            closed = 0
            for s in idle:
                s.setblocking(False)
                try:
                    closed += s.recv(1) == b""
                except BlockingIOError:
                    pass
                except OSError:
                    closed += 1
            status = _proc_status(proc.pid)
            deep = who.request("POST", "/api/label", b"[" * 16_000)[0]
            for s in idle:
                s.close()
        finally:
            proc.kill()
            proc.wait()
    worst_held = max(max(during), max(held))
    figures: dict[str, Any] = {
        "idle_connections": args.idle, "server_nofile": args.nofile,
        "alone": _summary(alone), "while_opening": _summary(during),
        "all_open": _summary(held),
        "slowest_held_over_slowest_alone": round(worst_held / max(alone), 2),
        "idle_closed_by_server": closed, "connections_refused_to_client": refused,
        "server_at_end": status, "deep_body_status": deep}
    print(json.dumps(figures, indent=2))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
