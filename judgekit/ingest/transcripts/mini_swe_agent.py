"""mini-swe-agent trajectories: ``trajectory_format`` ``mini-swe-agent-1`` and ``-1.1``
(``{"info", "messages"}``), and the older bare list of messages.

Commands come from the assistant's tool calls (``extra.actions``, ``tool_calls``) or, for the
text-based formats, its fenced ``bash`` block; outputs and exit codes from the observation
that follows (``extra.returncode``/``raw_output``, or ``<returncode>``/``<output>`` tags).
The exit status is the ``exit`` message's (``Submitted``, ``LimitsExceeded``, ...), or
``interrupted`` for a trajectory saved with none (the run was killed); the cost
is ``info.model_stats.instance_cost``, null where the run ignored cost tracking and
recorded nothing.
"""

from __future__ import annotations

import json
import re
from typing import Any

from judgekit.ingest.transcripts.build import (
    obj, Builder, add, as_cost, as_count, as_int, seconds_between, text_of)
from judgekit.ingest.transcripts.model import ExitStatus, Transcript
from judgekit.ingest.transcripts.source import Source

FORMATS = ("mini-swe-agent-1", "mini-swe-agent-1.1")
_FENCE = re.compile(r"```(?:bash|mswea_bash_command|sh)\s*\n(.*?)\n```", re.S)
_RETURNCODE = re.compile(r"<returncode>\s*(-?\d+)\s*</returncode>")
_OUTPUT = re.compile(r"<output(?:_head|_tail)?>\n?(.*?)</output(?:_head|_tail)?>", re.S)
_SUBMIT = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
#: What mini-swe-agent records (``exception_info``, with return code -1) for an action it
#: did not run: the actions after a submission, and the submit command itself when its
#: interactive agent ends the run from inside the command.
_NOT_EXECUTED = "action was not executed"

#: mini-swe-agent's exit status (an exception's name) → the one vocabulary, and the limit.
_STATUS: dict[str, tuple[ExitStatus, str | None]] = {
    "Submitted": ("submitted", None),
    "LimitsExceeded": ("limits_exceeded", None),
    "TimeExceeded": ("limits_exceeded", "time"),
    "RepeatedFormatError": ("error", None),
    "FormatError": ("error", None),
    "KeyboardInterrupt": ("interrupted", None),
    "UserInterruption": ("interrupted", None),
}


def _is_message_list(value: Any) -> bool:
    return (isinstance(value, list) and bool(value)
            and all(isinstance(m, dict) and "role" in m and "content" in m for m in value)
            and value[0].get("role") == "system")


class MiniSweAgentReader:
    name = "mini-swe-agent"

    def detect(self, source: Source) -> bool:
        doc = source.document
        if isinstance(doc, dict):
            return doc.get("trajectory_format") in FORMATS or (
                isinstance(doc.get("info"), dict) and "mini_version" in doc["info"])
        return _is_message_list(doc) and any(
            _SUBMIT in text_of(m.get("content")) or "<returncode>" in text_of(m.get("content"))
            for m in doc)

    def read(self, source: Source) -> Transcript:
        doc = source.document
        info: dict[str, Any] = {}
        if isinstance(doc, dict):
            messages, info = doc.get("messages"), doc.get("info") or {}
            if not isinstance(messages, list) or not isinstance(info, dict):
                raise source.fail("messages", "a mini-swe-agent trajectory needs a list of "
                                              "messages and an info object")
        else:
            messages = doc
        b = Builder(self.name)
        pending: list[int] = []
        tokens_in = tokens_out = cached = None
        exit_name = info.get("exit_status") if isinstance(info.get("exit_status"), str) else None
        stamps: list[Any] = []
        for i, m in enumerate(messages):
            if not isinstance(m, dict) or not isinstance(m.get("role"), str):
                raise source.fail(f"messages[{i}]", "not a message")
            role, text = m["role"], text_of(m.get("content"))
            extra = obj(m.get("extra"))
            if extra.get("timestamp") is not None:
                stamps.append(extra["timestamp"])
            if role == "exit":
                exit_name = extra.get("exit_status") or text or exit_name
                continue
            if role == "assistant":
                acts = _actions(m, extra, text)
                calls = [b.call("bash", {"command": cmd}, call_id=cid) for cmd, cid in acts]
                pending.extend(c for c, (_, cid) in zip(calls, acts) if cid is None)
                b.say("assistant", text, calls)
                usage = (extra.get("response") or {}).get("usage") if isinstance(
                    extra.get("response"), dict) else None
                if isinstance(usage, dict):
                    details = usage.get("prompt_tokens_details") or {}
                    hit = as_count(details.get("cached_tokens")) if isinstance(
                        details, dict) else None
                    prompt = as_count(usage.get("prompt_tokens"))
                    tokens_in = add(tokens_in, None if prompt is None else prompt - (hit or 0))
                    tokens_out = add(tokens_out, as_count(usage.get("completion_tokens")))
                    cached = add(cached, hit)
                continue
            if role == "tool":
                output, code = _observation(text, extra)
                if not b.result(m.get("tool_call_id"), output, exit_code=code) and pending:
                    b.result_at(pending.pop(0), output, code)
                b.say("tool", text)
                continue
            if role == "user" and pending and ("returncode" in extra or "<returncode>" in text
                                               or i == len(messages) - 1):
                output, code = _observation(text, extra)
                b.result_at(pending.pop(0), output, code)
                b.say("tool", text)
                continue
            b.say("user" if role == "user" else "system", text)
        stats = obj(info.get("model_stats"))
        config = obj(info.get("config"))
        model_cfg = obj(config.get("model"))
        agent_cfg = obj(config.get("agent"))
        status, limit = _STATUS.get(exit_name or "", (None, None))
        if exit_name and status is None:
            status = "error"
        if status == "limits_exceeded" and limit is None:
            limit = _which_limit(stats, agent_cfg)
        if not exit_name and b.calls and _SUBMIT in str(b.calls[-1].arguments.get("command")):
            status = "submitted"
        elif not exit_name and isinstance(doc, dict) and b.turns:
            status = "interrupted"  # saved before it ended (killed): no exit status, no exit
        cost = as_cost(stats.get("instance_cost"))
        if cost == 0 and model_cfg.get("cost_tracking") == "ignore_errors":
            cost = None  # nothing was priced: not recorded, not free
        submission = info.get("submission")
        patch = submission if isinstance(submission, str) and "\n+++ " in submission else None
        return b.finish(model=model_cfg.get("model_name") if isinstance(
                            model_cfg.get("model_name"), str) else None,
                        tokens_in=tokens_in, tokens_out=tokens_out, cache_read_tokens=cached,
                        cost_usd=cost, exit_status=status, limit=limit, patch=patch,
                        wall_time_s=seconds_between(stamps[0], stamps[-1]) if stamps else None)


def _actions(m: dict[str, Any], extra: dict[str, Any], text: str
             ) -> list[tuple[str, str | None]]:
    """The commands an assistant message issued, with their tool-call ids."""
    actions = extra.get("actions")
    if isinstance(actions, list) and actions:
        return [(str(a.get("command", "")), a.get("tool_call_id"))
                for a in actions if isinstance(a, dict)]
    calls = m.get("tool_calls")
    if isinstance(calls, list) and calls:
        out = []
        for c in calls:
            fn = c.get("function") if isinstance(c, dict) else None
            if isinstance(fn, dict):
                args = fn.get("arguments")
                try:
                    parsed = json.loads(args) if isinstance(args, str) else args
                except ValueError:
                    parsed = {"command": args}
                command = parsed.get("command") if isinstance(parsed, dict) else args
                out.append((str(command), c.get("id")))
        return out
    found = _FENCE.findall(text)
    return [(found[0], None)] if len(found) == 1 else []


def _observation(text: str, extra: dict[str, Any]) -> tuple[str, int | None]:
    """An observation's output and exit code; an action that was not run (the submission
    ended the run) has no exit code: it did not fail."""
    if extra.get("exception_info") == _NOT_EXECUTED:
        return str(extra.get("raw_output", "")), None
    if "raw_output" in extra or "returncode" in extra:
        return str(extra.get("raw_output", "")), as_int(extra.get("returncode"))
    code = _RETURNCODE.search(text)
    out = _OUTPUT.findall(text)
    if code or out:
        return "\n".join(out), int(code.group(1)) if code else None
    try:
        value = json.loads(text)
    except ValueError:
        return text, None
    if isinstance(value, dict) and "output" in value:
        return str(value.get("output")), as_int(value.get("returncode"))
    return text, None


def _which_limit(stats: dict[str, Any], agent: dict[str, Any]) -> str | None:
    calls, steps = as_count(stats.get("api_calls")), as_count(agent.get("step_limit"))
    if steps and calls is not None and calls >= steps:
        return "steps"
    cost, cap = stats.get("instance_cost"), agent.get("cost_limit")
    if isinstance(cap, (int, float)) and cap > 0 and isinstance(cost, (int, float)) \
            and cost >= cap:
        return "cost"
    return None


__all__ = ["MiniSweAgentReader"]
