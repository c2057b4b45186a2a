"""Deadlines, not read timeouts: a request is bounded body included, the capability probe
has a total deadline, a ``retry-after`` is honoured up to a bound, and a server that falls
silent is said to be silent. Each runs the CLI as a user does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgekit.testing import FakeAPIServer, Reply
from tests.clirun import judgekit
from tests.engine.rawserver import RawServer, announced, chunked, trickle
from tests.pairwise.helpers import diff, result, write_runs

MODEL = "anthropic:claude-haiku-4-5"


def _runs(tmp_path: Path, n: int) -> Path:
    runs = [r for t in range(n) for r in (result(f"t{t}", "base", diff(f"plain {t}")),
                                          result(f"t{t}", "ctx", diff(f"GOOD {t}")))]
    return write_runs(tmp_path / "runs.json", runs)


def _records(out: Path) -> list[dict]:
    return [json.loads(x) for x in (out / "pairwise.jsonl").read_text().splitlines()]


def _states(out: Path) -> list[str]:
    return [d["state"] for r in _records(out) for d in r["dimensions"].values()]


def test_a_trickling_body_is_cut_by_the_timeout_on_calls_and_probe(tmp_path: Path) -> None:
    # 200 with Content-Length 1000000, then a byte every half second: each read succeeds,
    # so only a deadline on the whole request ends it
    with RawServer(trickle(every=0.5)) as server:
        proc = judgekit("judge", _runs(tmp_path, 1), "--no-similarity", "--judge",
                        "openai:m1", "--base-url", f"{server.url}/v1", "--no-audit",
                        "--timeout", "2", "--max-retries", "0", "--no-cache",
                        "--out", tmp_path / "out", timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    # the capability probe (a self-hosted server) was cut by its own deadline
    assert "did not finish answering what it can do" in proc.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    judge = summary["judge"]
    assert judge["calls"] == 2 and judge["failed_calls"] == {"timeout": 2}
    assert set(_states(tmp_path / "out")) == {"error"}
    chats = [r for r in server.requests if "chat/completions" in r]
    assert len(chats) == judge["calls"]


def test_a_huge_retry_after_is_cut_and_said(tmp_path: Path) -> None:
    with FakeAPIServer(lambda api, body: Reply.fault(429, retry_after=999999)) as server:
        proc = judgekit("judge", _runs(tmp_path, 2), "--no-similarity", "--judge", MODEL,
                        "--no-audit", "--max-retries", "2", "--timeout", "5",
                        "--out", tmp_path / "out",
                        env={**server.env(), "ANTHROPIC_API_KEY": "test-key-123",
                             "JUDGEKIT_CACHE": str(tmp_path / "c.sqlite")}, timeout=120)
        calls = server.count("anthropic")
    assert proc.returncode == 1, proc.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    judge = summary["judge"]
    assert judge["calls"] == calls and judge["failed_calls"] == {"rate_limited": calls}
    retries = judge["retries"]
    # every wait asked for was over the bound; none could end within the call's deadline
    # (3 attempts x 5 s and 3 s of backoff), so no call waited: each failed with its rate limit
    assert retries["largest_retry_after_s"] == 999999
    assert retries["cut_to_bound"] == calls and retries["cut_by_deadline"] == calls
    assert retries["waited_s"] == 0
    assert set(_states(tmp_path / "out")) == {"error"}
    reasons = {o["reason"] for r in _records(tmp_path / "out") for o in r["orders"]}
    assert all("rate limited (HTTP 429)" in r for r in reasons)
    assert "retry-after" in proc.stderr and "cut" in proc.stderr


def test_a_server_that_stops_answering_is_said_to(tmp_path: Path) -> None:
    answered = 0

    def respond(api: str, body: dict) -> Reply:
        nonlocal answered
        answered += 1
        return Reply() if answered <= 4 else Reply.slow(60.0)

    with FakeAPIServer(respond) as server:
        proc = judgekit("judge", _runs(tmp_path, 4), "--no-similarity", "--judge", MODEL,
                        "--no-audit", "--timeout", "14", "--max-retries", "0",
                        "--out", tmp_path / "out",
                        env={**server.env(), "ANTHROPIC_API_KEY": "test-key-123",
                             "JUDGEKIT_CACHE": str(tmp_path / "c.sqlite")}, timeout=120)
    assert "Traceback" not in proc.stderr
    silent = [line for line in proc.stderr.splitlines() if "has not answered for" in line]
    assert len(silent) == 1 and server.url in silent[0], proc.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["judge"]["failed_calls"] == {"timeout": 4}


def test_a_run_deadline_leaves_later_items_unsent(tmp_path: Path) -> None:
    with FakeAPIServer(lambda api, body: Reply.slow(3.0)) as server:
        proc = judgekit("judge", _runs(tmp_path, 3), "--no-similarity", "--judge", MODEL,
                        "--no-audit", "--concurrency", "1", "--deadline", "2",
                        "--out", tmp_path / "out",
                        env={**server.env(), "ANTHROPIC_API_KEY": "test-key-123",
                             "JUDGEKIT_CACHE": str(tmp_path / "c.sqlite")}, timeout=120)
        calls = server.count("anthropic")
    assert "Traceback" not in proc.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    judge = summary["judge"]
    assert judge["calls"] == calls
    # the one call in flight at the deadline timed out; the rest were never sent
    assert judge["skipped"].get("deadline", 0) >= 1
    assert calls + judge["skipped"]["deadline"] <= 6



@pytest.mark.parametrize("answer", [announced(200 * 1024 * 1024), chunked(80 * 1024 * 1024)],
                         ids=["announced", "chunked"])
def test_an_answer_over_the_bound_is_not_read(tmp_path: Path, answer: object) -> None:
    with RawServer(answer) as server:  # type: ignore[arg-type]
        proc = judgekit("judge", _runs(tmp_path, 1), "--no-similarity", "--judge",
                        "openai:m1", "--base-url", f"{server.url}/v1", "--no-audit",
                        "--max-retries", "3", "--no-cache", "--out", tmp_path / "out",
                        timeout=120)
    assert proc.returncode == 1, proc.stderr
    judge = json.loads((tmp_path / "out" / "summary.json").read_text())["judge"]
    # not retried (the same server answers the same), counted as a bad answer
    assert judge["calls"] == 2 and judge["failed_calls"] == {"bad_answer": 2}
    reasons = {o["reason"] for r in _records(tmp_path / "out") for o in r["orders"]}
    assert all("larger than 64 MiB" in r for r in reasons), reasons
    written = sum(p.stat().st_size for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert written < 10 * 1024 * 1024
