"""A transcript as text for a judge: what went wrong first, then every step in order.

The head says how the session ended and what it cost; then the agent's final message (its
own account, which a judge should check against the evidence); then each failed tool call
with its output; then the whole session, step by step. A judge given a budget sees the
head first (condensing keeps a text's start), so failed steps, errors and the final claim
survive the cut.

Example:
    >>> from judgekit.ingest.transcripts.model import ToolCall, Transcript, Turn
    >>> t = Transcript(format="demo", turns=[Turn(role="assistant", text="Run it.",
    ...     tool_calls=[0])], tool_calls=[ToolCall(name="bash",
    ...     arguments={"command": "pytest"}, output="1 failed", exit_code=1)],
    ...     final_message="All tests pass.", exit_status="completed")
    >>> print(render_for_judge(t).splitlines()[0])
    demo session, ended completed: 1 turns, 1 tool calls (1 failed)
"""

from __future__ import annotations

import json

from judgekit.ingest.transcripts.model import ToolCall, Transcript

#: Characters of one tool call's output shown in the step-by-step part.
OUTPUT_CHARS = 4000


def _what(call: ToolCall) -> str:
    command = call.arguments.get("command")
    if isinstance(command, str):
        return command
    return json.dumps(call.arguments, ensure_ascii=False, sort_keys=True, default=str)


def _call(i: int, call: ToolCall, limit: int | None) -> str:
    code = f", exit {call.exit_code}" if call.exit_code is not None else ""
    flag = ", reported an error" if call.error else ""
    out = call.output or ""
    if limit is not None and len(out) > limit:
        out = out[:limit] + f"\n[... {len(out) - limit} more characters]"
    head = f"[tool call {i + 1}] {call.name}{code}{flag}: {_what(call)}"
    return head + (f"\n[output of tool call {i + 1}]\n{out.rstrip()}" if out.strip() else "")


def render_for_judge(t: Transcript, *, claim_denied: bool = False) -> str:
    """``t`` as text: the summary, the final message, the failed calls, then every step.
    ``claim_denied`` says the final message claims success that the tests deny."""
    failed = t.failed_calls()
    status = (t.exit_status or "unknown") + (f" ({t.limit} limit)" if t.limit else "")
    lines = [f"{t.format} session, ended {status}: {t.n_turns} turns, "
             f"{len(t.tool_calls)} tool calls ({len(failed)} failed)"]
    if t.final_message:
        lines.append(f"\n[final message of the agent]\n{t.final_message.strip()}")
    if claim_denied:
        lines.append("[note] the final message claims success, but the test status is not "
                     "passed")
    if failed:
        lines.append("\n[failed tool calls]")
        lines.extend(_call(i, t.tool_calls[i], OUTPUT_CHARS) for i in failed)
    if t.format == "raw":
        lines.append(t.raw or "")
        return "\n".join(lines)
    lines.append("\n[the session, step by step]")
    for turn in t.turns:
        if turn.role == "tool":
            continue  # outputs are shown with their calls
        if turn.text.strip() and turn.role != "system":
            lines.append(f"{turn.role}: {turn.text.strip()}")
        lines.extend(_call(i, t.tool_calls[i], OUTPUT_CHARS) for i in turn.tool_calls
                     if 0 <= i < len(t.tool_calls))
    return "\n".join(lines)


__all__ = ["OUTPUT_CHARS", "render_for_judge"]
