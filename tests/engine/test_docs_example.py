"""The test recipe shown in docs/engine.md works as written."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgekit.engine import Engine, EngineConfig, JudgeRequest
from judgekit.testing import FakeAPIServer, Reply, prompt_of

SCHEMA = {"type": "object", "required": ["winner"],
          "properties": {"winner": {"enum": ["A", "B", "draw"]}}}


def test_my_judging(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key")
    responder = lambda api, body: Reply.ok(
        {"winner": "A" if "flask" in prompt_of(body) else "B"})
    with FakeAPIServer(responder) as server:
        config = EngineConfig(model="anthropic:claude-haiku-4-5", base_url=server.url,
                              cache_path=tmp_path / "v.sqlite", progress=False,
                              backoff_base=0.01)
        outcomes = Engine(config).run([JudgeRequest("flask-1", "Judge.", "flask patch", SCHEMA)])
    assert outcomes[0].verdict == {"winner": "A"}
    assert len(server.requests) == 1


def test_env_points_sdks_at_the_server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    with FakeAPIServer() as server:
        for name, value in server.env().items():
            monkeypatch.setenv(name, value)
        config = EngineConfig(model="openai:gpt-4.1", cache_path=tmp_path / "v.sqlite",
                              progress=False)
        [out] = Engine(config).run([JudgeRequest("k", "Judge.", "x", SCHEMA)])
    assert (out.state, out.verdict) == ("valid", {"winner": "A"})
    assert server.count("openai") == 1
