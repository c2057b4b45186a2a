"""A judge answering enormous reasoning fields: every verdict is stored with its fields cut
to the cap, the output stays small, and summary.json counts the cuts."""

from __future__ import annotations

import json
from pathlib import Path

from judgekit.engine.structured import MAX_FIELD_CHARS
from judgekit.testing import FakeAPIServer, Reply
from tests.clirun import judgekit
from tests.pairwise.helpers import DIMS, diff, result, write_runs


def test_huge_reasoning_fields_are_cut_stored_small_and_counted(tmp_path: Path) -> None:
    runs = []
    for t in ("t1", "t2"):
        runs += [result(t, "base", diff("plain " + t)), result(t, "ctx", diff("new " + t))]
    path = write_runs(tmp_path / "runs.json", runs)
    huge = {d: {"winner": "A", "reasoning": "because " * 250_000} for d in DIMS}  # 2 MB each
    out = tmp_path / "out"
    with FakeAPIServer(lambda api, body: Reply.ok(huge)) as server:
        env = {**server.env(), "ANTHROPIC_API_KEY": "test-key-123",
               "JUDGEKIT_CACHE": str(tmp_path / "cache.sqlite")}
        proc = judgekit("judge", path, "--no-similarity", "--judge",
                        "anthropic:claude-haiku-4-5", "--out", out, "--no-audit", env=env)
        assert proc.returncode == 0, proc.stderr
        calls = server.count("anthropic")
    assert calls == 4  # two pairs, two orders
    summary = json.loads((out / "summary.json").read_text())
    assert summary["judge"]["fields_truncated"] == calls * len(DIMS)
    records = [json.loads(x) for x in (out / "pairwise.jsonl").read_text().splitlines()]
    assert len(records) == 2
    assert all(d["state"] == "valid" for r in records for d in r["dimensions"].values())
    total = sum(f.stat().st_size for f in out.iterdir())
    assert total < 40 * MAX_FIELD_CHARS  # the answers were 24 MB
