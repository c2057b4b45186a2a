"""The one typed transcript: what an agent's session file records, whichever agent wrote it.

Readers (:mod:`judgekit.ingest.transcripts.registry`) turn each agent's own file into a
:class:`Transcript`; ``judgekit schema transcript`` prints its JSON Schema.

Example:
    >>> t = Transcript(format="example", turns=[Turn(role="assistant", text="done")],
    ...                tool_calls=[ToolCall(name="bash", arguments={"command": "ls"},
    ...                                     output="a.py", exit_code=0)],
    ...                exit_status="completed")
    >>> t.n_turns, t.tool_calls[0].arguments["command"]
    (1, 'ls')
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field, model_validator

ExitStatus = Literal["submitted", "completed", "limits_exceeded", "error", "interrupted"]
"""How the agent's session ended, in one vocabulary for every agent.

``submitted``: the agent handed in its work through its own submit or finish action
(SWE-agent, mini-swe-agent, OpenHands); ``completed``: the session ended normally with a
final message; ``limits_exceeded``: a step, cost, time, turn or token limit stopped it (the
agent's outcome, never a harness error; :attr:`Transcript.limit` says which); ``error``: the agent
or its model call failed; ``interrupted``: it was stopped from outside."""

Role = Literal["system", "user", "assistant", "tool"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Turn(_Model):
    """One message of the conversation, in order."""

    role: Role
    text: str = ""
    tool_calls: list[int] = Field(
        default_factory=list, description="Indexes into Transcript.tool_calls of the calls "
                                          "this message made.")


class ToolCall(_Model):
    """One tool call, with what came back. A shell command's text is ``arguments.command``."""

    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    output: str | None = None
    exit_code: int | None = Field(None, description="Where the file records it.")
    error: bool | None = Field(None, description="The tool reported a failure.")
    id: str | None = None


class ModelUsage(_Model):
    """One model's tokens and cost in a session, as the agent recorded them."""

    tokens_in: int | None = Field(None, ge=0, description="Input tokens, cache reads apart.")
    tokens_out: int | None = Field(None, ge=0)
    cache_read_tokens: int | None = Field(None, ge=0)
    cache_write_tokens: int | None = Field(None, ge=0)
    cost_usd: float | None = Field(None, ge=0)


class Transcript(_Model):
    """A normalised agent session."""

    format: str = Field(description="The agent (reader) that wrote the file, or 'raw'.")
    source: str | None = Field(None, description="The file it was read from.")
    task_id: str | None = Field(None, description="The task, where the file names it.")
    model: str | None = None
    agent: str | None = Field(None, description="The agent's name, where the file names it "
                                                "(an ATIF trajectory's agent.name).")
    agent_version: str | None = Field(None, description="The agent's version, where recorded.")
    turns: list[Turn] = Field(default_factory=list)
    tool_calls: list[ToolCall] = Field(default_factory=list)
    patch: str | None = Field(None, description="The final patch, where the file holds one.")
    patch_files: list[str] = Field(default_factory=list)
    tokens_in: int | None = Field(None, ge=0, description="Input tokens, cache reads apart.")
    tokens_out: int | None = Field(None, ge=0)
    cache_read_tokens: int | None = Field(None, ge=0)
    cache_write_tokens: int | None = Field(None, ge=0)
    cost_usd: float | None = Field(None, ge=0, description="As the agent recorded it; null "
                                                           "where it did not.")
    model_usage: dict[str, ModelUsage] = Field(
        default_factory=dict, description="Tokens and cost per model, where the agent "
                                          "records them (Claude Code's stream result and "
                                          "the cost-state line of its session file).")
    wall_time_s: float | None = Field(None, ge=0)
    exit_status: ExitStatus | None = None
    limit: str | None = Field(None, description="Which limit, for limits_exceeded: steps, "
                                                "cost, time, turns or tokens.")
    final_message: str | None = None
    raw: str | None = Field(None, description="The file's text, for a format no reader knows.")
    redactions: int = Field(0, ge=0, description="Secret-looking values replaced when read.")

    @model_validator(mode="before")
    @classmethod
    def _derived(cls, data: Any) -> Any:
        """``n_turns`` is written with the rest but derived from ``turns`` when read back."""
        if isinstance(data, dict) and "n_turns" in data:
            data = {k: v for k, v in data.items() if k != "n_turns"}
        return data

    @computed_field  # type: ignore[prop-decorator]
    @property
    def n_turns(self) -> int:
        """Assistant messages: the agent's turns."""
        return sum(1 for t in self.turns if t.role == "assistant")

    def failed_calls(self) -> list[int]:
        """Indexes of the tool calls that failed (non-zero exit, or flagged an error)."""
        return [i for i, c in enumerate(self.tool_calls)
                if (c.exit_code not in (None, 0)) or c.error]


__all__ = ["ExitStatus", "ModelUsage", "Role", "ToolCall", "Transcript", "Turn"]
