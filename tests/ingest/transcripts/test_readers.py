"""Readers detected by content, on files the agents' projects publish; raw text for unknown
files; one line and exit 2 for a malformed file of a known format; secrets redacted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgekit.errors import InputError
from judgekit.ingest.transcripts import (
    BUILTIN, Turn, claims_success, read_transcript, read_transcripts)
from judgekit.secretscan import SecretScrubber
from tests.clirun import judgekit

from .conftest import FIXTURES, write_older_swe_agent_run

SUBMITTED = FIXTURES / "swe-agent-1.1-submitted.traj"


def test_swe_agent_trajectory_written_by_swe_agent() -> None:
    doc = json.loads(SUBMITTED.read_text())
    stats = doc["info"]["model_stats"]
    t = read_transcript(SUBMITTED)
    assert t.format == "swe-agent" and t.exit_status == doc["info"]["exit_status"]
    assert [c.name for c in t.tool_calls] == ["bash", "bash", "str_replace_editor", "bash",
                                              "submit", "submit"]
    assert t.tool_calls[0].arguments["command"] == "ls && cat greet.py"
    assert "greet.py" in (t.tool_calls[0].output or "")
    assert t.patch_files == ["greet.py"]
    assert (t.tokens_in, t.tokens_out) == (stats["tokens_sent"], stats["tokens_received"])
    assert t.model == json.loads(doc["replay_config"])["agent"]["model"]["name"]
    assert t.cost_usd == pytest.approx(stats["instance_cost"])
    assert t.n_turns == len(doc["trajectory"])


def test_older_swe_agent_trajectory_without_tool_calls(tmp_path: Path) -> None:
    doc = write_older_swe_agent_run(tmp_path / "t1.traj")
    stats = doc["info"]["model_stats"]
    t = read_transcript(tmp_path / "t1.traj")
    assert t.format == "swe-agent" and t.exit_status == "submitted"
    # named by the action's first word; the submit step only the trajectory holds
    assert [c.name for c in t.tool_calls] == ["find_file", "open", "edit", "bash", "submit"]
    assert t.tool_calls[0].arguments["command"] == "find_file calc.py"
    assert "Found 1 matches" in (t.tool_calls[0].output or "")
    assert t.tool_calls[-1].output == doc["trajectory"][-1]["observation"]
    assert t.patch_files == ["calc.py"]
    assert (t.tokens_in, t.tokens_out, t.model) == (stats["tokens_sent"],
                                                     stats["tokens_received"], "gpt-4o")
    assert t.cost_usd == pytest.approx(stats["instance_cost"])
    assert t.n_turns == len(doc["trajectory"])
    assert t.final_message == doc["trajectory"][-1]["thought"]


def test_a_transcript_written_reads_back_the_same() -> None:
    from judgekit.ingest.models import RunResult, Task

    t = read_transcript(SUBMITTED)
    result = RunResult(task=Task(id="t1"), arm="a", session=t)
    again = RunResult.model_validate(json.loads(result.model_dump_json()))
    assert again.session == t
    assert again.session.n_turns == len(json.loads(SUBMITTED.read_text())["trajectory"])


def test_mini_swe_agent_bare_message_list() -> None:
    t = read_transcript(FIXTURES / "mini-swe-agent-list.traj.json")
    assert t.format == "mini-swe-agent" and t.exit_status == "submitted"
    assert t.tool_calls[0].arguments == {
        "command": "python3 -c 'import calc; print(calc.add(2, 3))'"}
    assert (t.tool_calls[0].exit_code, t.tool_calls[0].output) == (0, "-1\n")
    assert t.tool_calls[1].arguments == {"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}
    assert t.cost_usd is None and t.tokens_in is None


def test_unknown_file_is_raw_text_with_a_counted_warning(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("the agent said hello\nOPENAI_API_KEY=abcdef123456\n")
    found = read_transcripts(path)
    assert found.unrecognised and found.transcripts[0].format == "raw"
    assert "abcdef123456" not in (found.transcripts[0].raw or "")
    assert found.redactions == 1
    proc = judgekit("transcript", path)
    assert proc.returncode == 0
    assert "1 file of no known transcript format kept as raw text" in proc.stderr


def test_malformed_known_format_is_one_line_and_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.traj.json"
    path.write_text(json.dumps({"trajectory_format": "mini-swe-agent-1.1", "info": {},
                                "messages": [{"content": "no role"}]}))
    with pytest.raises(InputError, match=r"messages\[0\]"):
        read_transcript(path)
    proc = judgekit("transcript", path, "--json")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and str(path) in proc.stderr
    assert "Traceback" not in proc.stderr


def test_schema_transcript_is_published() -> None:
    proc = judgekit("schema", "transcript")
    assert proc.returncode == 0
    schema = json.loads(proc.stdout)
    assert {"format", "turns", "tool_calls", "patch_files", "tokens_in", "tokens_out",
            "cost_usd", "exit_status"} <= set(schema["properties"])


def test_declared_readers_are_the_builtin_table() -> None:
    import importlib
    import tomllib

    root = Path(__file__).resolve().parents[3]
    declared = tomllib.loads((root / "pyproject.toml").read_text())["project"][
        "entry-points"]["judgekit.transcripts"]
    assert list(declared) == list(BUILTIN)
    for name, value in declared.items():
        module, _, attr = value.partition(":")
        assert getattr(importlib.import_module(module), attr) is BUILTIN[name]
        assert BUILTIN[name]().name == name


@pytest.mark.parametrize("text,secret", [
    ('{"api_key": "local-secret-value"}', "local-secret-value"),
    ("Authorization: Bearer abcdefghijkl.mnop", "abcdefghijkl"),
    ("export ANTHROPIC_API_KEY=sk-ant-api03-xyzxyzxyz", "xyzxyzxyz"),
    ("token ghp_abcdefghijklmnopqrstuvwxyz0123", "ghp_abcdefghijklmnop"),
])
def test_secret_looking_values_are_redacted_and_counted(text: str, secret: str) -> None:
    scrubber = SecretScrubber()
    value = json.loads(text) if text.startswith("{") else text
    out = scrubber.data(value) if isinstance(value, dict) else scrubber.text(value)
    assert secret not in json.dumps(out) and scrubber.count >= 1


def test_token_counts_are_not_secrets() -> None:
    scrubber = SecretScrubber()
    data = {"max_tokens": 4096, "input_tokens": 5, "apiKeySource": "ANTHROPIC_API_KEY",
            "cache_read_input_tokens": "7"}
    assert scrubber.data(data) == data and scrubber.count == 0


@pytest.mark.parametrize("message,claim", [
    ("All tests pass now (2 passed).", True),
    ("The bug is fixed.", True),
    ("I fixed the off-by-one error in parse().", True),
    ("Done.", True),
    ("I could not get the tests to pass.", False),
    ("The tests still fail with a TypeError.", False),
    ("I looked at the code.", False),
])
def test_claims_of_success(message: str, claim: bool) -> None:
    assert claims_success(message) is claim


def test_aider_chat_history_of_two_sessions_ending_interrupted(tmp_path: Path) -> None:
    path = FIXTURES / "aider-two-sessions.chat.history.md"
    t = read_transcript(path)
    assert t.format == "aider"
    assert [c.name for c in t.tool_calls] == ["edit"]
    (edit,) = t.tool_calls[0].arguments["edits"]  # the reply's one search/replace block
    assert t.tool_calls[0].arguments["path"] == "inventory.py"
    assert edit["search"].startswith("def restock(items, order):\n")
    assert "if item.count < item.minimum:" in edit["replace"]
    assert t.patch_files == ["inventory.py"]
    assert t.turns[0] == Turn(role="user", text="Make restock skip items that are already "
                                               "above their minimum")
    # "Tokens: 3,180 sent, 412 received" and "11,905 sent, 97 received"
    assert (t.tokens_in, t.tokens_out) == (3180 + 11905, 412 + 97)
    assert t.cost_usd == pytest.approx(0.01 + 0.0021)  # each aider session's last total
    assert t.exit_status == "interrupted"  # the history ends with ^C KeyboardInterrupt
    assert t.model == "gpt-4o-mini"  # the last session's "Model:" line
    # the first session alone: the older "Models: MAIN with ..., weak model ..." line
    first = tmp_path / ".aider.chat.history.md"
    text = path.read_text()
    first.write_text(text[:text.index("# aider chat started", text.index("# aider chat") + 1)])
    assert read_transcript(first).model == "claude-3-5-sonnet-20240620"
