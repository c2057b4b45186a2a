"""SWE-agent trajectories (``<instance>.traj``): ``{"trajectory", "history", "info"}``.

Turns come from ``history``, SWE-agent's conversation; each assistant message that acted
made one tool call, paired with the ``trajectory`` step that ran it (same action and
thought) for its output. A step the history lacks is a reply SWE-agent rejected and asked
again for (no tool call, a blocked command, a shell syntax error): it is kept as an
assistant turn in its place, its action (if any) a call flagged ``error``, then the message
that asked again. Demonstrations are prompt text (user turns, no calls).

A call's ``name`` is the tool the model called (``tool_calls``; otherwise the action's
first word where it is one of SWE-agent's tools, else ``bash``); ``arguments`` are the
model's, with ``command`` the command line SWE-agent ran (the ``action``). SWE-agent records
no exit codes.

The exit status is ``info.exit_status``: ``submitted``; ``exit_cost``, ``exit_context``,
``exit_total_execution_time``, ``exit_command_timeout`` for a limit, also when SWE-agent
then submitted the diff it found (``submitted (exit_cost)``: the limit stopped the agent;
the patch is kept); ``exit_cost`` under a call limit (``per_instance_call_limit``) is the
``steps`` limit; ``exit_error``, ``exit_api``, ``exit_format``,
``exit_environment_error`` are errors; ``exit_forfeit`` and ``exit_command`` end the
session on the agent's own word; none at all is a run stopped from outside. Tokens and cost
come from ``info.model_stats``, the patch from ``info.submission`` (the task is the file's
name, ``<instance>.traj``). A retry agent's file (``attempts``) is read at its chosen
attempt, or its last.
"""

from __future__ import annotations

import json
from typing import Any

from judgekit.ingest.transcripts.build import (
    obj, Builder, arguments_of, as_cost, as_count, text_of)
from judgekit.ingest.transcripts.model import ExitStatus, Role, Transcript
from judgekit.ingest.transcripts.source import Source

#: SWE-agent's exit reasons for a limit → which limit.
_LIMITS = {"exit_cost": "cost", "exit_context": "tokens", "exit_total_execution_time": "time",
           "exit_command_timeout": "time", "exit_step_limit": "steps", "exit_turns": "turns"}
_ERRORS = ("exit_error", "exit_api", "exit_format", "exit_environment_error",
           "exit_blocklist")
#: the agent ended the session itself without submitting
_OWN_END = ("exit_forfeit", "exit_command")
_ROLES: dict[str, Role] = {"system": "system", "user": "user", "assistant": "assistant",
                           "tool": "tool"}
#: the commands SWE-agent's tool bundles install; any other action is a shell command
_TOOLS = frozenset({
    "submit", "exit_forfeit", "str_replace_editor", "filemap", "find_file", "search_dir",
    "search_file", "open", "goto", "create", "scroll_up", "scroll_down", "edit", "insert"})


def status_of(exit_status: str | None) -> tuple[ExitStatus | None, str | None]:
    """SWE-agent's ``exit_status`` in the one vocabulary, and the limit it names."""
    if not exit_status:
        return None, None
    for reason, limit in _LIMITS.items():
        if reason in exit_status:
            return "limits_exceeded", limit
    if any(reason in exit_status for reason in _ERRORS):
        return "error", None
    if any(reason in exit_status for reason in _OWN_END):
        return "completed", None
    if exit_status.startswith("submitted"):
        return "submitted", None
    if "early_exit" in exit_status or "interrupt" in exit_status:
        return "interrupted", None
    return "error", None


class SweAgentReader:
    name = "swe-agent"

    def detect(self, source: Source) -> bool:
        doc = source.document
        return isinstance(doc, dict) and "messages" not in doc and (
            _is_run(doc) or (isinstance(doc.get("attempts"), list)
                             and any(_is_run(a) for a in doc["attempts"])))

    def read(self, source: Source) -> Transcript:
        doc = _run_of(source.document)
        info = obj(doc.get("info"))
        steps = doc["trajectory"]
        for i, step in enumerate(steps):
            if not isinstance(step, dict):
                raise source.fail(f"trajectory[{i}]", "not a step object")
        history = doc.get("history")
        history = history if isinstance(history, list) else []
        b = Builder(self.name)
        done = 0  # trajectory steps paired (or kept as rejected replies) so far
        for m in history:
            if not isinstance(m, dict):
                continue
            text = text_of(m.get("content"))
            role = _ROLES.get(str(m.get("role")), "user")
            if m.get("is_demo"):
                b.say("user", text)
                continue
            if role != "assistant":
                b.say(role, text)
                continue
            at = _step_of(steps, done, m)
            if at is not None:
                for i in range(done, at):
                    _rejected(b, steps, i)
                done = at + 1
            b.say("assistant", text, _calls(b, m, steps[at] if at is not None else None))
        for i in range(done, len(steps)):  # steps after the history was last written
            step = steps[i]
            b.say("assistant", text_of(step.get("response") or step.get("thought")),
                  _calls(b, {}, step))
        stats = obj(info.get("model_stats"))
        raw_status = info.get("exit_status") if isinstance(info.get("exit_status"), str) \
            else None
        status, limit = status_of(raw_status)
        if status is None and steps:
            status = "interrupted"  # SWE-agent writes a status when its run ends
        if limit == "cost" and _call_limit_hit(doc, stats):
            limit = "steps"
        submission = info.get("submission")
        patch = submission.replace("\r\n", "\n") if isinstance(submission, str) \
            and submission.strip() else None
        return b.finish(model=_model(_replay_config(doc)),
                        tokens_in=as_count(stats.get("tokens_sent")),
                        tokens_out=as_count(stats.get("tokens_received")),
                        cost_usd=as_cost(stats.get("instance_cost")), exit_status=status,
                        limit=limit, patch=patch)


def _is_run(doc: Any) -> bool:
    return isinstance(doc, dict) and isinstance(doc.get("trajectory"), list) \
        and isinstance(doc.get("info"), dict)


def _run_of(doc: dict[str, Any]) -> dict[str, Any]:
    """The run a file holds: itself, or a retry agent's last attempt where it holds only
    its attempts (the chosen one is copied to the top when the agent finished)."""
    if _is_run(doc):
        return doc
    runs: list[dict[str, Any]] = [a for a in doc["attempts"] if _is_run(a)]
    return runs[-1]


def _step_of(steps: list[dict[str, Any]], start: int, message: dict[str, Any]) -> int | None:
    """The first step from ``start`` that ran ``message`` (same action, same thought)."""
    action = message.get("action")
    said = {text_of(message.get("thought")), text_of(message.get("content"))}
    for i in range(start, len(steps)):
        step = steps[i]
        if action is not None and str(step.get("action") or "") != str(action or ""):
            continue
        if text_of(step.get("thought")) in said or text_of(step.get("response")) in said:
            return i
    return None


def _calls(b: Builder, message: dict[str, Any], step: dict[str, Any] | None) -> list[int]:
    """The tool call ``message`` (or, without one, ``step``) made, with the step's output."""
    action = str(message.get("action") or (step or {}).get("action") or "").strip()
    output = _text(step.get("observation")) if step is not None else None
    made = [c for c in message.get("tool_calls") or [] if isinstance(c, dict)]
    calls = []
    for n, call in enumerate(made):
        function = obj(call.get("function"))
        arguments = arguments_of(function.get("arguments"))
        if n == 0 and action:
            arguments = {**arguments, "command": action}
        calls.append(b.call(str(function.get("name") or _tool(action)), arguments,
                            call_id=call.get("id") if isinstance(call.get("id"), str) else None,
                            output=output if n == 0 else None))
    if not calls and action:
        calls.append(b.call(_tool(action), {"command": action}, output=output))
    return calls


def _rejected(b: Builder, steps: list[dict[str, Any]], i: int) -> None:
    """Step ``i``: a reply SWE-agent did not run but asked again for, then the request that
    asked again (the last message of the next step's query), which is also the rejected
    call's output."""
    step = steps[i]
    said = text_of(step.get("response") or step.get("thought"))
    query = steps[i + 1].get("query") if i + 1 < len(steps) else None
    again = None
    if isinstance(query, list) and len(query) >= 2 and all(isinstance(q, dict)
                                                            for q in query[-2:]):
        if query[-2].get("role") == "assistant" and query[-1].get("role") == "user" \
                and text_of(query[-2].get("content")) == said:
            again = text_of(query[-1].get("content"))
    action = str(step.get("action") or "").strip()
    calls = []
    if action:
        calls.append(b.call(_tool(action), {"command": action}, output=again))
        b.calls[-1] = b.calls[-1].model_copy(update={"error": True})
    b.say("assistant", said, calls)
    if again is not None:
        b.say("user", again)


def _tool(action: str) -> str:
    words = action.split(None, 1)
    return words[0] if words and words[0] in _TOOLS else "bash"


def _text(value: Any) -> str | None:
    return None if value is None else text_of(value)


def _call_limit_hit(doc: dict[str, Any], stats: dict[str, Any]) -> bool:
    """``exit_cost`` raised by the model's call limit rather than by its cost limit."""
    model = obj(obj(_replay_config(doc).get("agent")).get("model"))
    calls, cap = as_count(stats.get("api_calls")), as_count(model.get("per_instance_call_limit"))
    cost, cost_cap = stats.get("instance_cost"), model.get("per_instance_cost_limit")
    over_cost = isinstance(cost, (int, float)) and isinstance(cost_cap, (int, float)) \
        and 0 < cost_cap < cost
    return bool(cap) and calls is not None and calls > (cap or 0) and not over_cost


def _replay_config(doc: dict[str, Any]) -> dict[str, Any]:
    replay = doc.get("replay_config")
    if isinstance(replay, str):
        try:
            replay = json.loads(replay)
        except ValueError:
            return {}
    return obj(replay)


def _model(config: dict[str, Any]) -> str | None:
    name = obj(obj(config.get("agent")).get("model")).get("name")
    return name if isinstance(name, str) else None


__all__ = ["SweAgentReader", "status_of"]
