"""Claude Code's recorded cost: a session file's ``cost-state`` line (``totalCostUSD`` and
``modelUsage``), the last one when a resumed session holds several, and the stream
result's ``modelUsage``, read into the transcript's cost and tokens per model."""

from __future__ import annotations

import json
from pathlib import Path

from judgekit.ingest.transcripts import ModelUsage, read_transcript
from tests.clirun import judgekit

FIXTURE = Path(__file__).parent / "fixtures" / "claude-cost-state-session.jsonl"
WRITTEN = Path(__file__).parent / "fixtures" / "claude-2.1.332-cost-state-session.jsonl"


def test_a_session_file_cost_state_gives_cost_and_tokens_per_model() -> None:
    lines = [json.loads(line) for line in FIXTURE.read_text().splitlines()]
    (state,) = [line for line in lines if line["type"] == "cost-state"]
    t = read_transcript(FIXTURE)
    assert t.format == "claude-code" and t.exit_status == "completed"
    assert t.cost_usd == state["totalCostUSD"]
    (model, usage), = state["modelUsage"].items()
    assert t.model_usage == {model: ModelUsage(
        tokens_in=usage["inputTokens"], tokens_out=usage["outputTokens"],
        cache_read_tokens=usage["cacheReadInputTokens"],
        cache_write_tokens=usage["cacheCreationInputTokens"], cost_usd=usage["costUSD"])}
    # the messages' own usage is still what the session's tokens are
    assert t.tokens_out == usage["outputTokens"]


def test_a_resumed_session_keeps_the_last_running_total(tmp_path: Path) -> None:
    lines = FIXTURE.read_text().splitlines()
    state = json.loads(lines[-1])
    later = {**state, "totalCostUSD": 0.5,
             "modelUsage": {**state["modelUsage"], "claude-haiku-4-5": {
                 "inputTokens": 10, "outputTokens": 2, "cacheReadInputTokens": 0,
                 "cacheCreationInputTokens": 0, "costUSD": 0.01}}}
    path = tmp_path / "resumed.jsonl"
    path.write_text("\n".join([*lines, *lines[2:-1], json.dumps(later)]) + "\n")
    t = read_transcript(path)
    assert t.cost_usd == 0.5 and set(t.model_usage) == {*state["modelUsage"],
                                                         "claude-haiku-4-5"}


def test_a_session_without_cost_state_records_no_cost(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text("".join(line + "\n" for line in FIXTURE.read_text().splitlines()
                            if '"cost-state"' not in line))
    t = read_transcript(path)
    assert t.cost_usd is None and t.model_usage == {}


def test_the_cli_shows_the_recorded_cost() -> None:
    proc = judgekit("transcript", FIXTURE)
    assert proc.returncode == 0, proc.stderr
    assert "$0.0010" in proc.stdout and "cost not recorded" not in proc.stdout


def test_the_cost_state_line_claude_code_2_1_332_wrote() -> None:
    """A session file written by the CLI itself (not composed): ``transcript --json`` gives
    the cost and the tokens per model of its own ``cost-state`` line."""
    lines = [json.loads(line) for line in WRITTEN.read_text().splitlines()]
    (state,) = [line for line in lines if line["type"] == "cost-state"]
    assert lines[-1] is state  # written as the run ended
    proc = judgekit("transcript", WRITTEN, "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["format"] == "claude-code" and data["exit_status"] == "completed"
    assert data["cost_usd"] == state["totalCostUSD"]
    assert data["model_usage"] == {model: {
        "tokens_in": usage["inputTokens"], "tokens_out": usage["outputTokens"],
        "cache_read_tokens": usage["cacheReadInputTokens"],
        "cache_write_tokens": usage["cacheCreationInputTokens"], "cost_usd": usage["costUSD"]}
        for model, usage in state["modelUsage"].items()}
    assert [c["name"] for c in data["tool_calls"]] == ["Bash", "Bash"]
