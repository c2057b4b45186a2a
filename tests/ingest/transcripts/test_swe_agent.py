"""SWE-agent 1.1 trajectories written by the real SWE-agent (``fixtures/README.md``): each
field judgekit reads is checked against what the file itself records."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from judgekit.ingest.transcripts import Transcript, read_transcript
from judgekit.ingest.transcripts.swe_agent import status_of
from tests.clirun import judgekit

from .conftest import FIXTURES

SUBMITTED = FIXTURES / "swe-agent-1.1-submitted.traj"
COST_LIMIT = FIXTURES / "swe-agent-1.1-cost-limit.traj"
CALL_LIMIT = FIXTURES / "swe-agent-1.1-call-limit.traj"
THOUGHT_ACTION = FIXTURES / "swe-agent-1.1-thought-action.traj"
ALL = [SUBMITTED, COST_LIMIT, CALL_LIMIT, THOUGHT_ACTION]


def _doc(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


def _acted(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The history's assistant messages that ran an action."""
    return [m for m in doc["history"] if m["role"] == "assistant" and m.get("action")]


def _ran(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The trajectory steps that ran their action (those the history also holds)."""
    acted = {(m["action"], m["thought"]) for m in _acted(doc)}
    return [s for s in doc["trajectory"] if (s["action"], s["thought"]) in acted]


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.stem)
def test_usage_model_and_patch_as_recorded(path: Path) -> None:
    doc, t = _doc(path), read_transcript(path)
    info, stats = doc["info"], doc["info"]["model_stats"]
    assert t.format == "swe-agent" and doc["info"]["swe_agent_version"] == "1.1.0"
    assert (t.tokens_in, t.tokens_out) == (stats["tokens_sent"], stats["tokens_received"])
    assert t.cost_usd == pytest.approx(stats["instance_cost"]) and t.cost_usd > 0
    replay = json.loads(doc["replay_config"])
    assert t.model == replay["agent"]["model"]["name"] == "openai/gpt-4o-mini"
    assert t.patch == info["submission"]
    assert t.patch_files == (["greet.py"] if info["submission"] else [])
    # one assistant turn per model reply: every trajectory step, rejected replies included
    assert t.n_turns == len(doc["trajectory"]) == stats["api_calls"]


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.stem)
def test_tool_calls_in_order_with_the_command_run_and_its_output(path: Path) -> None:
    doc, t = _doc(path), read_transcript(path)
    ran = [c for c in t.tool_calls if not c.error]
    acted, steps = _acted(doc), _ran(doc)
    assert [c.arguments["command"] for c in ran] == [m["action"].strip() for m in acted]
    assert [c.output for c in ran] == [s["observation"] for s in steps]
    assert all(c.exit_code is None for c in t.tool_calls)  # SWE-agent records none
    for call, message in zip(ran, acted):
        made = message.get("tool_calls")
        if made:  # function calling: the tool and the arguments the model gave
            function = made[0]["function"]
            assert call.name == function["name"] and call.id == made[0]["id"]
            given = json.loads(function["arguments"])
            assert {k: v for k, v in call.arguments.items() if k != "command"} == \
                {k: v for k, v in given.items() if k != "command"}
            if call.name == "bash":
                assert call.arguments == given
    # each call hangs on the assistant turn that made it, in order
    made_by = [i for turn in t.turns for i in turn.tool_calls]
    assert made_by == list(range(len(t.tool_calls)))


def test_submitted_run() -> None:
    t = read_transcript(SUBMITTED)
    assert (t.exit_status, t.limit) == ("submitted", None)
    assert [c.name for c in t.tool_calls] == ["bash", "bash", "str_replace_editor", "bash",
                                              "submit", "submit"]
    assert t.tool_calls[0].arguments == {"command": "ls && cat greet.py"}
    assert "NameError" in (t.tool_calls[1].output or "")
    edit = t.tool_calls[2].arguments
    assert edit["path"] == "/repo/greet.py" and edit["new_str"] == 'return "Hello, " + name'
    assert edit["command"].startswith("str_replace_editor str_replace /repo/greet.py")
    assert "Hello, world" in (t.tool_calls[3].output or "")
    assert t.final_message == "The diff only holds the fix; submitting again."


def test_a_reply_without_a_tool_call_is_kept_with_the_request_to_try_again() -> None:
    t = read_transcript(SUBMITTED)
    rejected = next(i for i, turn in enumerate(t.turns)
                    if turn.role == "assistant" and turn.text == "I should run the script.")
    assert t.turns[rejected].tool_calls == []
    nxt = t.turns[rejected + 1]
    assert nxt.role == "user" and "did not use any tool calls" in nxt.text
    assert t.failed_calls() == []


def test_a_blocked_command_is_a_failed_call_with_the_refusal() -> None:
    t = read_transcript(THOUGHT_ACTION)
    assert (t.exit_status, t.limit) == ("submitted", None)
    assert [c.name for c in t.tool_calls] == ["bash", "bash", "str_replace_editor", "bash",
                                              "submit", "submit"]
    assert t.failed_calls() == [1]
    vim = t.tool_calls[1]
    assert vim.arguments == {"command": "vim"} and vim.error is True
    assert "not supported" in (vim.output or "")
    assert t.tool_calls[3].arguments == {"command": "python3 greet.py"}


def test_cost_limit_with_the_diff_submitted_by_swe_agent() -> None:
    doc, t = _doc(COST_LIMIT), read_transcript(COST_LIMIT)
    assert doc["info"]["exit_status"] == "submitted (exit_cost)"
    assert (t.exit_status, t.limit) == ("limits_exceeded", "cost")
    assert t.patch_files == ["greet.py"]
    assert [c.name for c in t.tool_calls] == ["bash", "str_replace_editor"]
    last = [turn for turn in t.turns if turn.role == "assistant"][-1]
    assert last.text == doc["trajectory"][-1]["thought"] and last.tool_calls == []


def test_call_limit_is_the_steps_limit() -> None:
    doc, t = _doc(CALL_LIMIT), read_transcript(CALL_LIMIT)
    assert doc["info"]["exit_status"] == "exit_cost" and doc["info"]["submission"] is None
    assert (t.exit_status, t.limit) == ("limits_exceeded", "steps")
    assert t.patch is None and t.patch_files == []
    assert [c.arguments["command"] for c in t.tool_calls] == ["ls", "cat greet.py"]


@pytest.mark.parametrize(("recorded", "status", "limit"), [
    ("submitted", "submitted", None),
    ("submitted (exit_cost)", "limits_exceeded", "cost"),
    ("exit_cost", "limits_exceeded", "cost"),
    ("submitted (exit_context)", "limits_exceeded", "tokens"),
    ("exit_context", "limits_exceeded", "tokens"),
    ("submitted (exit_total_execution_time)", "limits_exceeded", "time"),
    ("exit_command_timeout", "limits_exceeded", "time"),
    ("exit_format", "error", None),
    ("submitted (exit_format)", "error", None),
    ("exit_api", "error", None),
    ("submitted (exit_environment_error)", "error", None),
    ("exit_error", "error", None),
    ("exit_forfeit", "completed", None),
    ("submitted (exit_forfeit)", "completed", None),
    ("exit_command", "completed", None),
])
def test_every_exit_status_swe_agent_writes(recorded: str, status: str,
                                            limit: str | None) -> None:
    assert status_of(recorded) == (status, limit)


def _read(tmp_path: Path, doc: Any) -> Transcript:
    path = tmp_path / "run.traj"
    path.write_text(json.dumps(doc))
    return read_transcript(path)


def test_a_run_stopped_before_swe_agent_ended_it_is_interrupted(tmp_path: Path) -> None:
    doc = _doc(SUBMITTED)
    doc["info"]["exit_status"] = None  # as saved after every step until the last
    assert _read(tmp_path, doc).exit_status == "interrupted"


def test_a_retry_agent_file_is_read_at_its_last_attempt(tmp_path: Path) -> None:
    run = _doc(SUBMITTED)
    first = copy.deepcopy(_doc(CALL_LIMIT))
    t = _read(tmp_path, {"attempts": [first, run]})
    assert t.exit_status == "submitted" and len(t.tool_calls) == 6


def test_demonstrations_are_prompt_text(tmp_path: Path) -> None:
    doc = _doc(SUBMITTED)
    demo = {"role": "assistant", "content": "An example.", "thought": "An example.",
            "action": "ls", "is_demo": True, "message_type": "action"}
    doc["history"].insert(2, demo)
    t = _read(tmp_path, doc)
    assert t.turns[2].role == "user" and t.turns[2].text == "An example."
    assert len(t.tool_calls) == 6 and t.tool_calls[0].arguments["command"] != "ls"


@pytest.mark.parametrize("path", [SUBMITTED, COST_LIMIT], ids=lambda p: p.stem)
def test_cli_json_is_the_transcript(path: Path) -> None:
    proc = judgekit("transcript", path, "--json")
    assert proc.returncode == 0, proc.stderr
    shown = json.loads(proc.stdout)
    assert isinstance(shown.pop("integrity"), list)  # the findings shown beside it
    assert Transcript.model_validate(shown) == read_transcript(path)
