"""A judge's answer field is stored bounded: a text field of a valid verdict over the cap
keeps its head and a note of the cut, in the outcome and the cache alike, and the cuts are
counted in ``summary["judge"]["fields_truncated"]``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judgekit.engine import Engine, JudgeRequest
from judgekit.engine.structured import MAX_FIELD_CHARS
from judgekit.testing import FakeAPIServer, Reply
from tests.engine.engine_helpers import config

SCHEMA: dict[str, Any] = {
    "type": "object", "required": ["winner", "reasoning"],
    "properties": {"winner": {"enum": ["A", "B"]}, "reasoning": {"type": "string"},
                   "evidence": {"type": "array", "items": {"type": "string"}}},
}


def _reqs(n: int) -> list[JudgeRequest]:
    return [JudgeRequest(key=f"k{i}", system="You judge patches.", prompt=f"item {i}",
                         schema=SCHEMA) for i in range(n)]


def test_a_huge_reasoning_is_cut_counted_and_cached_cut(server: FakeAPIServer,
                                                        tmp_path: Path) -> None:
    huge = {"winner": "A", "reasoning": "why " * 3_000_000, "evidence": ["e" * 100_000, "ok"]}
    server.responder = lambda a, b: Reply.ok(huge)
    engine = Engine(config(server, tmp_path))
    [out] = engine.run(_reqs(1))
    assert out.state == "valid" and out.verdict["winner"] == "A"
    reasoning = out.verdict["reasoning"]
    assert reasoning.startswith("why why") and len(reasoning) < MAX_FIELD_CHARS + 100
    assert reasoning.endswith(f"[... {12_000_000 - MAX_FIELD_CHARS} characters cut by judgekit]")
    assert len(out.verdict["evidence"][0]) < MAX_FIELD_CHARS + 100
    assert out.verdict["evidence"][1] == "ok"
    assert engine.judge_run().fields_truncated == 2
    again = Engine(config(server, tmp_path))  # the cache holds the verdict as cut
    [cached] = again.run(_reqs(1))
    assert len(server.requests) == 1 and cached.verdict == out.verdict
    assert again.judge_run().fields_truncated == 0  # nothing new was cut


def test_short_fields_are_kept_whole(server: FakeAPIServer, tmp_path: Path) -> None:
    answer = {"winner": "B", "reasoning": "r" * MAX_FIELD_CHARS}
    server.responder = lambda a, b: Reply.ok(answer)
    engine = Engine(config(server, tmp_path, use_cache=False))
    [out] = engine.run(_reqs(1))
    assert out.verdict == answer and engine.judge_run().fields_truncated == 0
