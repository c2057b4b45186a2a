"""Structured routes of both providers, the text fallback and the repair loop."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgekit.engine import Engine
from judgekit.engine.structured import extract_json, schema_problems
from judgekit.testing import FakeAPIServer, Reply, scripted
from tests.engine.engine_helpers import BAD, GOOD, config, reqs


def test_anthropic_route_forces_tool_and_caches_system(server: FakeAPIServer, tmp_path: Path) -> None:
    server.responder = lambda api, body: Reply.ok(GOOD)
    [out] = Engine(config(server, tmp_path)).run(reqs(1))
    assert (out.state, out.verdict, out.tries, out.cached) == ("valid", GOOD, 1, False)
    body = server.requests[0].body
    assert server.requests[0].api == "anthropic"
    assert body["tool_choice"] == {"type": "tool", "name": "submit_verdict"}
    assert body["tools"][0]["input_schema"]["required"] == ["winner", "confidence"]
    assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert body["messages"] == [{"role": "user", "content": "item 0"}]


def test_openai_json_schema_route(server: FakeAPIServer, tmp_path: Path) -> None:
    server.responder = lambda api, body: Reply.ok(GOOD)
    [out] = Engine(config(server, tmp_path, "openai")).run(reqs(1))
    assert (out.state, out.verdict) == ("valid", GOOD)
    body = server.requests[0].body
    assert server.requests[0].api == "openai"
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["strict"] is False
    assert body["messages"][0] == {"role": "system", "content": "You judge patches."}


def test_openai_forced_function_route(server: FakeAPIServer, tmp_path: Path) -> None:
    server.responder = scripted(Reply.ok(BAD), Reply.ok(GOOD))
    [out] = Engine(config(server, tmp_path, "openai", openai_route="tool")).run(reqs(1))
    assert (out.state, out.verdict, out.tries) == ("valid", GOOD, 2)
    first, second = (r.body for r in server.requests)
    assert first["tool_choice"] == {"type": "function", "function": {"name": "submit_verdict"}}
    tool_turn = second["messages"][-1]
    assert tool_turn["role"] == "tool" and tool_turn["tool_call_id"].startswith("call_")
    assert "is not one of" in tool_turn["content"]


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_text_fallback_reads_fenced_json(server: FakeAPIServer, tmp_path: Path, provider: str) -> None:
    server.responder = lambda api, body: Reply.raw(
        "My verdict:\n```json\n" + json.dumps(GOOD) + "\n```\nThanks.")
    [out] = Engine(config(server, tmp_path, provider)).run(reqs(1))
    assert (out.state, out.verdict, out.tries) == ("valid", GOOD, 1)


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_schema_repair_loop_succeeds_in_same_conversation(
        server: FakeAPIServer, tmp_path: Path, provider: str) -> None:
    server.responder = scripted(Reply.ok(BAD), Reply.invalid_json(), Reply.ok(GOOD))
    [out] = Engine(config(server, tmp_path, provider)).run(reqs(1))
    assert (out.state, out.verdict, out.tries) == ("valid", GOOD, 3)
    last = server.requests[-1].body["messages"]
    assert len(last) == 5 + (provider == "openai")  # (system,) user, 2 x (assistant, feedback)
    feedback = json.dumps(last)
    assert "is not one of" in feedback and "no verdict" in feedback.lower()


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_schema_repair_exhaustion_is_unscored(server: FakeAPIServer, tmp_path: Path, provider: str) -> None:
    server.responder = lambda api, body: Reply.ok(BAD)
    [out] = Engine(config(server, tmp_path, provider, max_tries=3)).run(reqs(1))
    assert out.state == "unscored" and out.verdict is None
    assert out.tries == 3 and len(server.requests) == 3
    assert "after 3 tries" in out.reason and "winner" in out.reason


def test_check_problems_are_reasked_then_unscored(server: FakeAPIServer, tmp_path: Path) -> None:
    server.responder = lambda api, body: Reply.ok(GOOD)
    check = lambda v: ["a draw was expected"] if v["winner"] != "draw" else []
    [out] = Engine(config(server, tmp_path, max_tries=2)).run(reqs(1, check=check))
    assert (out.state, out.tries) == ("unscored", 2)
    assert "a draw was expected" in json.dumps(server.requests[-1].body["messages"][-1])


def test_soft_check_reasks_once_then_accepts(server: FakeAPIServer, tmp_path: Path) -> None:
    server.responder = lambda api, body: Reply.ok(GOOD)
    soft = lambda v: ["reason is short"]
    [out] = Engine(config(server, tmp_path, max_tries=5)).run(reqs(1, soft_check=soft))
    assert (out.state, out.verdict, out.tries) == ("valid", GOOD, 2)
    assert out.soft_failures == ["reason is short"]


def test_extract_json_variants() -> None:
    assert extract_json('{"a": 1}') == {"a": 1}
    assert extract_json('so {"a": {"b": 2}} done') == {"a": {"b": 2}}
    assert extract_json("```\n{\"a\": 1}\n```") == {"a": 1}
    assert extract_json('{"a": ') is None
    assert extract_json("no json here") is None


def test_schema_problems_name_the_field() -> None:
    from tests.engine.engine_helpers import SCHEMA

    problems = schema_problems(BAD, SCHEMA)
    assert any(p.startswith("winner:") for p in problems)
    assert any(p.startswith("confidence:") for p in problems)
    assert schema_problems(GOOD, SCHEMA) == []
