"""The verdict cache: re-runs are free, resumable after kill -9, and hold no key."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from judgekit.engine import Engine
from judgekit.testing import FakeAPIServer, Reply, prompt_of
from tests.engine.engine_helpers import BAD, FAKE_KEY, GOOD, OPENAI_KEY, config, reqs

ROOT = Path(__file__).resolve().parents[2]


def test_rerun_sends_zero_requests(server: FakeAPIServer, tmp_path: Path) -> None:
    server.responder = lambda a, b: Reply.ok(GOOD)
    first = Engine(config(server, tmp_path)).run(reqs(5))
    assert len(server.requests) == 5 and all(o.state == "valid" for o in first)
    again = Engine(config(server, tmp_path)).run(reqs(5))
    assert len(server.requests) == 5
    assert [(o.state, o.cached, o.tries, o.cost_usd) for o in again] == [("valid", True, 1, 0.0)] * 5
    assert [o.verdict for o in again] == [o.verdict for o in first]


def test_no_cache_flag_calls_again(server: FakeAPIServer, tmp_path: Path) -> None:
    Engine(config(server, tmp_path)).run(reqs(2))
    Engine(config(server, tmp_path, use_cache=False)).run(reqs(2))
    assert len(server.requests) == 4


def test_cached_verdict_failing_check_is_a_miss(server: FakeAPIServer, tmp_path: Path) -> None:
    server.responder = lambda a, b: Reply.ok(GOOD)
    Engine(config(server, tmp_path)).run(reqs(1))
    server.responder = lambda a, b: Reply.ok({"winner": "draw", "confidence": 0.5})
    check = lambda v: [] if v["winner"] == "draw" else ["draw expected"]
    [out] = Engine(config(server, tmp_path)).run(reqs(1, check=check))
    assert (out.state, out.cached, out.verdict["winner"]) == ("valid", False, "draw")
    assert len(server.requests) == 2


def test_unscored_items_are_asked_again_unless_told_not_to(server: FakeAPIServer,
                                                          tmp_path: Path) -> None:
    server.responder = lambda a, b: Reply.ok(BAD)
    [out] = Engine(config(server, tmp_path, max_tries=1)).run(reqs(1))
    assert out.state == "unscored"
    server.responder = lambda a, b: Reply.ok(GOOD)
    kept = Engine(config(server, tmp_path, max_tries=1, retry_unscored=False))
    [out] = kept.run(reqs(1))
    assert (out.state, out.cached, len(server.requests)) == ("unscored", True, 1)
    assert out.reason and "no valid verdict" in out.reason
    assert (kept.judge_run().from_cache, kept.judge_run().from_cache_unscored) == (1, 1)
    asked = Engine(config(server, tmp_path, max_tries=1))
    [out] = asked.run(reqs(1))
    assert (out.state, out.cached, len(server.requests)) == ("valid", False, 2)
    assert asked.judge_run().from_cache == 0


def test_errors_are_not_cached(server: FakeAPIServer, tmp_path: Path) -> None:
    server.responder = lambda a, b: Reply.fault(401)
    [out] = Engine(config(server, tmp_path)).run(reqs(1))
    assert out.state == "error"
    server.responder = lambda a, b: Reply.ok(GOOD)
    [out] = Engine(config(server, tmp_path)).run(reqs(1))
    assert (out.state, out.cached, len(server.requests)) == ("valid", False, 2)


def test_api_keys_never_reach_the_cache_file(server: FakeAPIServer, tmp_path: Path) -> None:
    server.responder = lambda a, b: Reply.ok(GOOD)
    Engine(config(server, tmp_path)).run(reqs(3))
    Engine(config(server, tmp_path, "openai")).run(reqs(3))
    assert FAKE_KEY in json.dumps(server.requests[0].headers)  # the key was really sent
    files = list(tmp_path.glob("v.sqlite*"))
    assert files
    for path in files:
        data = path.read_bytes()
        assert FAKE_KEY.encode() not in data and OPENAI_KEY.encode() not in data


def _completed_items(cache: Path) -> set[str]:
    if not cache.exists():
        return set()
    db = sqlite3.connect(f"file:{cache}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT data FROM verdicts").fetchall()
    except sqlite3.OperationalError:
        return set()
    finally:
        db.close()
    return {json.loads(data)["verdict"]["item"] for (data,) in rows}


def test_kill_9_resume_finishes_every_item_once(tmp_path: Path) -> None:
    n = 60
    item_of = lambda body: prompt_of(body)
    responder = lambda api, body: Reply.ok({"item": item_of(body), "winner": "A"})
    cache, out = tmp_path / "kill.sqlite", tmp_path / "out.jsonl"
    with FakeAPIServer(responder, latency=0.05) as server:
        env = {**os.environ, "ANTHROPIC_BASE_URL": server.url, "PYTHONPATH": str(ROOT)}
        cmd = [sys.executable, "-m", "judgekit.testing.demo_run", "--items", str(n),
               "--cache", str(cache), "--out", str(out), "--concurrency", "2"]
        proc = subprocess.Popen(cmd, env=env, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while len(_completed_items(cache)) < 8 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert proc.returncode == -signal.SIGKILL and not out.exists()
        done = _completed_items(cache)
        assert 8 <= len(done) < n
        before = len(server.requests)
        subprocess.run(cmd, env=env, check=True, capture_output=True)
        rerun = [item_of(r.body) for r in server.requests[before:]]
    assert not done & set(rerun)  # nothing completed was asked again
    assert len(rerun) == len(set(rerun)) == n - len(done)
    outcomes = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(o["key"] for o in outcomes) == [f"item-{i:04d}" for i in range(n)]
    assert all(o["state"] == "valid" for o in outcomes)
    assert {o["key"] for o in outcomes if o["cached"]} == done


def test_identical_requests_in_one_run_are_sent_once(server: FakeAPIServer, tmp_path: Path) -> None:
    from judgekit.engine import JudgeRequest
    from tests.engine.engine_helpers import SCHEMA

    same = [JudgeRequest(key=f"dup{i}", system="s", prompt="p", schema=SCHEMA) for i in range(3)]
    outs = Engine(config(server, tmp_path)).run(same)
    assert [o.key for o in outs] == ["dup0", "dup1", "dup2"]
    assert all(o.state == "valid" for o in outs) and len(server.requests) == 1


def test_the_request_hash_is_the_sha256_of_the_fields_canonical_json() -> None:
    # Caches written by earlier versions stay valid: the key is defined by the fields alone.
    import hashlib

    from judgekit.engine.cache import request_hash
    from judgekit.engine.structured import canonical_json

    schema = {"type": "object", "properties": {"w\u00e9": {"enum": ["A", "\u2028"]}}}
    for repeat in (0, 2):
        fields = {"provider": "anthropic", "model": "m", "params": {"max_tokens": 8},
                  "system": "Judge \u00fc.", "prompt": 'Diff "a"\n\u2028', "schema": schema,
                  "name": "submit"}
        if repeat:
            fields["repeat"] = repeat
        expected = hashlib.sha256(canonical_json(fields).encode("utf-8")).hexdigest()
        assert request_hash(fields["provider"], fields["model"], fields["params"],
                            fields["system"], fields["prompt"], schema, fields["name"],
                            repeat=repeat) == expected
