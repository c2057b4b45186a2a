"""``judgekit judge`` under faults, as a user runs it, against the fake API."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from judgekit.testing import FakeAPIServer, Reply, fault_mix
from tests.clirun import ROOT, judgekit
from tests.pairwise.helpers import DIMS, diff, prefers, result, write_runs

MODEL = "anthropic:claude-haiku-4-5"


def _runs(tmp_path: Path, n: int) -> Path:
    runs = [r for t in range(n) for r in (result(f"t{t}", "base", diff(f"plain {t}")),
                                          result(f"t{t}", "ctx", diff(f"GOOD {t}")))]
    return write_runs(tmp_path / "runs.json", runs)


def _env(server: FakeAPIServer, tmp_path: Path) -> dict[str, str]:
    return {**server.env(), "ANTHROPIC_API_KEY": "test-key-123",
            "JUDGEKIT_CACHE": str(tmp_path / "cache.sqlite")}


def test_fault_mix_at_concurrency_16_keeps_every_verdict(tmp_path: Path) -> None:
    runs = _runs(tmp_path, 150)
    with FakeAPIServer(fault_mix(3, then=prefers("GOOD"), retry_after=0.2,
                                 slow_seconds=0.5)) as server:
        proc = judgekit("judge", runs, "--no-similarity", "--judge", MODEL, "--no-audit",
                        "--concurrency", "16", "--out", tmp_path / "out",
                        env=_env(server, tmp_path))
        calls = server.count("anthropic")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    records = [json.loads(x) for x in (tmp_path / "out" / "pairwise.jsonl").read_text().splitlines()]
    dims = [d for r in records for d in r["dimensions"].values()]
    assert len(records) == 150 and len(dims) == 450  # every item accounted for
    valid = [d for d in dims if d["state"] == "valid"]
    assert len(valid) / len(dims) >= 0.995
    assert all(d["winner"] == "ctx" for d in valid)  # every valid verdict is right
    assert calls > 300  # faults were met and retried


def test_401_stops_at_once_and_exits_1(tmp_path: Path) -> None:
    with FakeAPIServer(lambda api, body: Reply.fault(401)) as server:
        proc = judgekit("judge", _runs(tmp_path, 40), "--no-similarity", "--judge", MODEL,
                        "--concurrency", "4", "--out", tmp_path / "out",
                        env=_env(server, tmp_path))
        calls = server.count("anthropic")
    assert proc.returncode == 1
    assert calls <= 4  # one call per concurrent slot at most, audit included
    # A run that lasts over PLAIN_AFTER_S on a loaded machine also writes plain progress
    # lines to a non-terminal stderr (cli/_progress.py); the error is the only other line.
    lines = [line for line in proc.stderr.strip().splitlines()
             if not line.startswith("judging: ")]
    assert len(lines) == 1 and "authentication failed" in lines[0], proc.stderr
    assert "test-key-123" not in proc.stderr


def test_an_html_page_with_status_200_is_named(tmp_path: Path) -> None:
    with FakeAPIServer(lambda api, body: Reply.html_page()) as server:
        proc = judgekit("judge", _runs(tmp_path, 2), "--no-similarity", "--judge", MODEL,
                        "--no-audit", "--max-retries", "1", "--out", tmp_path / "out",
                        env=_env(server, tmp_path))
    assert proc.returncode == 1
    assert "HTML page" in proc.stderr and "AttributeError" not in proc.stderr
    assert "Traceback" not in proc.stderr


def test_timeout_and_max_retries_bound_the_wait(tmp_path: Path) -> None:
    with FakeAPIServer(lambda api, body: Reply.slow(60.0)) as server:
        proc = judgekit("judge", _runs(tmp_path, 2), "--no-similarity", "--judge", MODEL,
                        "--no-audit", "--timeout", "0.5", "--max-retries", "1",
                        "--out", tmp_path / "out", env=_env(server, tmp_path))
        calls = server.count("anthropic")
    assert proc.returncode == 1 and "timed out" in proc.stderr
    assert calls == 8  # 2 pairs x 2 orders x 2 attempts


def test_two_processes_on_one_cache_pay_once(tmp_path: Path) -> None:
    runs = _runs(tmp_path, 40)
    with FakeAPIServer(prefers("GOOD"), latency=0.1) as server:
        env = {**os.environ, **_env(server, tmp_path)}
        env = {k: v for k, v in env.items() if k != "OPENAI_API_KEY"}
        shared = tmp_path / "shared.sqlite"
        procs = [subprocess.Popen(
            [sys.executable, "-m", "judgekit", "judge", str(runs), "--no-similarity",
             "--judge", MODEL, "--no-audit", "--concurrency", "8", "--cache", str(shared),
             "--out", str(tmp_path / f"out{i}")],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for i in range(2)]
        for p in procs:
            _, err = p.communicate(timeout=300)
            assert p.returncode == 0, err
        calls = server.count("anthropic")
    assert calls <= 1.05 * 80  # 40 pairs x 2 orders, asked once between the two
    for i in range(2):
        records = [json.loads(x) for x in
                   (tmp_path / f"out{i}" / "pairwise.jsonl").read_text().splitlines()]
        assert {d["winner"] for r in records for d in r["dimensions"].values()} == {"ctx"}
        assert all(set(r["dimensions"]) == set(DIMS) for r in records)
