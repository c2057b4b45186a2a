"""How a session ended, as each file records it: session files the real CLIs wrote when a
run hit a limit, was killed or met an API error (kept in ``fixtures/``, see its README), and
the exit status judgekit reads from them. ``null`` only where a format records nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgekit.ingest.transcripts import read_transcript

from .conftest import FIXTURES, KEY


@pytest.mark.parametrize(("name", "status", "limit"), [
    # an attachment ``max_turns_reached`` (maxTurns 2) closes the session file
    ("claude-maxturns-session.jsonl", "limits_exceeded", "turns"),
    # SIGINT while a command ran: the session ends on a tool call nothing answered
    ("claude-killed-session.jsonl", "interrupted", None),
    # the stream of the same run says "[Request interrupted by user for tool use]"
    ("claude-killed-stream.jsonl", "interrupted", None),
    # ``task_complete`` carrying an ``error`` and no final message
    ("codex-apierror-rollout.jsonl", "error", None),
    ("codex-apierror-exec.jsonl", "error", None),
    # "Model openai/tiny has hit a token limit!"
    ("aider-error.chat.history.md", "limits_exceeded", "tokens"),
    # killed mid-command: no exit message, ``info.exit_status`` empty
    ("mini-killed.traj.json", "interrupted", None),
])
def test_exit_status_as_the_file_records_it(name: str, status: str, limit: str | None) -> None:
    t = read_transcript(FIXTURES / name)
    assert (t.exit_status, t.limit) == (status, limit)


def test_the_killed_mini_trajectory_keeps_its_command_and_no_key() -> None:
    t = read_transcript(FIXTURES / "mini-killed.traj.json")
    assert [c.arguments["command"] for c in t.tool_calls] == ["sleep 60"]
    assert t.tool_calls[0].exit_code == -1
    assert KEY not in t.model_dump_json()


def test_a_bare_message_list_that_records_no_ending_has_none(tmp_path: Path) -> None:
    path = tmp_path / "old.traj.json"
    path.write_text(json.dumps([
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "fix it"},
        {"role": "assistant", "content": "```bash\nls\n```"},
        {"role": "user", "content": "<returncode>0</returncode>\n<output>\na.py\n</output>"}]))
    assert read_transcript(path).exit_status is None


def test_an_aider_edit_that_failed_to_match_is_a_failed_edit_call() -> None:
    t = read_transcript(FIXTURES / "aider-failed-edit.chat.history.md")
    edits = [c for c in t.tool_calls if c.name == "edit"]
    assert [c.arguments["path"] for c in edits] == ["calc.py", "calc.py", "calc.py"]
    applied, failed, later = edits
    assert applied.error is None and failed.error is True and later.error is None
    assert failed.output is not None and failed.output.startswith(
        "# 1 SEARCH/REPLACE block failed to match!")
    assert "SearchReplaceNoExactMatch" in failed.output
    assert failed.arguments["edits"] == [{"search": "    return a - b\n",
                                          "replace": "    return a + b\n"}]
    assert failed in [t.tool_calls[i] for i in t.failed_calls()]
    # aider's error is no assistant turn; the model's next reply is one of its own
    replies = [turn.text for turn in t.turns if turn.role == "assistant"]
    assert not any("SearchReplaceNoExactMatch" in text for text in replies)
    assert "I cannot find it. All tests pass anyway." in replies
    assert t.patch_files == ["calc.py"]
