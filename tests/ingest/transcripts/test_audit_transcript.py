"""The audit shows the judge the agent's session (its tool calls, failed ones and the final
claim first) and verifies an evidence quote taken from a tool's output."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from judgekit.cli import main
from judgekit.testing import FakeAPIServer, Reply, prompt_of
from tests.audit.helpers import agent_verdict

from .conftest import write_older_swe_agent_run

# a line of the SWE-agent trajectory's output of its `find_file` call
OUTPUT_QUOTE = 'Found 1 matches for "calc.py" in /repo'


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-anthropic-key")


def test_audit_prompt_holds_the_tool_calls_and_a_tool_output_quote_verifies(
        tmp_path: Path) -> None:
    run = tmp_path / "run.json"
    run.write_text(json.dumps({"results": [
        {"task": {"id": "t1", "description": "Fix the syntax error."}, "arm": "a",
         "agent_diff": "", "test": {"exit_code": 1, "output": "1 failed in 0.1s"}}]}))
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    write_older_swe_agent_run(sessions / "t1.traj")  # its final message: "The bug is fixed"
    prompts: list[str] = []

    def judge(api: str, body: dict[str, Any]) -> Reply:
        prompts.append(prompt_of(body))
        return Reply.ok(agent_verdict(evidence=f'"{OUTPUT_QUOTE}"'))

    out = tmp_path / "out"
    with FakeAPIServer(judge) as server:
        code = main(["audit", str(run), "--transcripts", str(sessions), "--judge",
                     "anthropic:claude-haiku-4-5", "--base-url", server.url, "--out", str(out),
                     "--no-similarity", "--no-cache"])
    assert code == 0
    prompt = prompts[0]
    assert "[tool call 1] find_file: find_file calc.py" in prompt
    assert "[final message of the agent]" in prompt
    assert "the final message claims success, but the test status is not passed" in prompt
    (record,) = [json.loads(line) for line in (out / "audit.jsonl").read_text().splitlines()]
    assert record["evidence_verified"] is True


def test_a_transcript_of_no_known_format_is_shown_as_its_text(tmp_path: Path) -> None:
    run = tmp_path / "run.json"
    run.write_text(json.dumps({"results": [
        {"task": {"id": "t1", "description": "Fix the syntax error."}, "arm": "a",
         "agent_diff": "", "test": {"exit_code": 1, "output": "1 failed in 0.1s"}}]}))
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    quote = "step 3: gave up on missing_colon.py, the parser rejects it"
    (sessions / "t1.log").write_text(f"step 1: read the issue\n{quote}\n")
    prompts: list[str] = []

    def judge(api: str, body: dict[str, Any]) -> Reply:
        prompts.append(prompt_of(body))
        return Reply.ok(agent_verdict(evidence=f'"{quote}"'))

    out = tmp_path / "out"
    with FakeAPIServer(judge) as server:
        code = main(["audit", str(run), "--transcripts", str(sessions), "--judge",
                     "anthropic:claude-haiku-4-5", "--base-url", server.url, "--out", str(out),
                     "--no-similarity", "--no-cache"])
    assert code == 0
    assert quote in prompts[0]
    (record,) = [json.loads(line) for line in (out / "audit.jsonl").read_text().splitlines()]
    assert record["evidence_verified"] is True
