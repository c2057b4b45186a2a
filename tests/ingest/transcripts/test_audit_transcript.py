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


def _audit(tmp_path: Path, quote: str) -> tuple[list[str], dict[str, Any]]:
    """Audit one failed result of task t1 against the sessions under ``tmp_path/sessions``
    with a judge quoting ``quote``: the prompts it was sent, and the one audit record."""
    run = tmp_path / "run.json"
    run.write_text(json.dumps({"results": [
        {"task": {"id": "t1", "description": "Fix the syntax error."}, "arm": "a",
         "agent_diff": "", "test": {"exit_code": 1, "output": "1 failed in 0.1s"}}]}))
    prompts: list[str] = []

    def judge(api: str, body: dict[str, Any]) -> Reply:
        prompts.append(prompt_of(body))
        return Reply.ok(agent_verdict(evidence=f'"{quote}"'))

    out = tmp_path / "out"
    with FakeAPIServer(judge) as server:
        code = main(["audit", str(run), "--transcripts", str(tmp_path / "sessions"),
                     "--judge", "anthropic:claude-haiku-4-5", "--base-url", server.url,
                     "--out", str(out), "--no-similarity", "--no-cache"])
    assert code == 0
    (record,) = [json.loads(line) for line in (out / "audit.jsonl").read_text().splitlines()]
    return prompts, record


def test_audit_prompt_holds_the_tool_calls_and_a_tool_output_quote_verifies(
        tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    write_older_swe_agent_run(sessions / "t1.traj")  # its final message: "The bug is fixed"
    prompts, record = _audit(tmp_path, OUTPUT_QUOTE)
    prompt = prompts[0]
    assert "[tool call 1] find_file: find_file calc.py" in prompt
    assert "[final message of the agent]" in prompt
    assert "the final message claims success, but the test status is not passed" in prompt
    assert record["evidence_verified"] is True


def test_a_transcript_of_no_known_format_is_shown_as_its_text(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    quote = "step 3: gave up on missing_colon.py, the parser rejects it"
    (sessions / "t1.log").write_text(f"step 1: read the issue\n{quote}\n")
    prompts, record = _audit(tmp_path, quote)
    assert quote in prompts[0]
    assert record["evidence_verified"] is True
