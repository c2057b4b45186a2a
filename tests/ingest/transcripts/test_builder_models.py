"""The builder makes tool calls and turns without validating checked values again: they
equal the validated models, and a value of the wrong type is still refused."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from judgekit.ingest.transcripts.build import Builder, tool_call, turn
from judgekit.ingest.transcripts.model import ToolCall, Transcript, Turn


def test_built_models_equal_validated_ones() -> None:
    b = Builder("demo")
    b.say("assistant", "look", [b.call("bash", {"command": "ls", "description": "list"},
                                       call_id="c1")])
    assert b.result("c1", "Exit code 2\nno such file", exit_code=2, error=True)
    b.say("tool", "Exit code 2\nno such file")
    t = b.finish(exit_status="completed")
    assert t.tool_calls == [ToolCall(name="bash", arguments={"command": "ls",
                                                             "description": "list"},
                                     output="Exit code 2\nno such file", exit_code=2,
                                     error=True, id="c1")]
    assert t.turns == [Turn(role="assistant", text="look", tool_calls=[0]),
                       Turn(role="tool", text="Exit code 2\nno such file")]
    assert t.tool_calls[0].model_fields_set == set(ToolCall.model_fields)
    assert Transcript.model_validate(t.model_dump(mode="json")) == t


def test_arguments_are_a_copy_and_calls_own_their_lists() -> None:
    args = {"command": "ls"}
    calls = [0]
    made = tool_call("bash", args, None, None, None, None)
    said = turn("assistant", "", calls)
    args["command"] = "rm"
    calls.append(1)
    assert made.arguments == {"command": "ls"} and said.tool_calls == [0]


@pytest.mark.parametrize("bad", [
    lambda: tool_call("bash", {}, None, None, None, 7),  # type: ignore[arg-type]
    lambda: tool_call("bash", {}, None, "one", None, None),  # type: ignore[arg-type]
    lambda: turn("robot", "", []),
    lambda: turn("user", "", ["x"]),  # type: ignore[list-item]
])
def test_wrong_types_are_still_refused(bad: object) -> None:
    with pytest.raises(ValidationError):
        bad()  # type: ignore[operator]
