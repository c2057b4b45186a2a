"""SWE-agent trajectories (``<instance>.traj``): ``{"trajectory", "history", "info"}``.

Each step of ``trajectory`` is one tool call: its ``action`` (the command line SWE-agent
ran; the tool is its first word) and ``observation``. Turns come from ``history``. The exit
status is ``info.exit_status`` (``submitted``; ``exit_cost``, ``exit_context``, ... for a
limit, also when SWE-agent submitted the work it had, ``submitted (exit_cost)``); tokens and
cost from ``info.model_stats``; the patch is ``info.submission``.
"""

from __future__ import annotations

import json
from typing import Any

from judgekit.ingest.transcripts.build import obj, Builder, as_cost, as_count, text_of
from judgekit.ingest.transcripts.model import ExitStatus, Role, Transcript
from judgekit.ingest.transcripts.source import Source

#: SWE-agent's exit reasons for a limit → which limit.
_LIMITS = {"exit_cost": "cost", "exit_context": "tokens", "exit_total_execution_time": "time",
           "exit_command_timeout": "time", "exit_step_limit": "steps", "exit_turns": "turns"}
_ERRORS = ("exit_error", "exit_api", "exit_format", "exit_environment_error",
           "exit_blocklist")
_ROLES: dict[str, Role] = {"system": "system", "user": "user", "assistant": "assistant",
                           "tool": "tool"}


def status_of(exit_status: str | None) -> tuple[ExitStatus | None, str | None]:
    """SWE-agent's ``exit_status`` in the one vocabulary, and the limit it names."""
    if not exit_status:
        return None, None
    for reason, limit in _LIMITS.items():
        if reason in exit_status:
            return "limits_exceeded", limit
    if any(reason in exit_status for reason in _ERRORS):
        return "error", None
    if exit_status.startswith("submitted"):
        return "submitted", None
    if "forfeit" in exit_status:
        return "completed", None
    if "early_exit" in exit_status or "interrupt" in exit_status:
        return "interrupted", None
    return "error", None


class SweAgentReader:
    name = "swe-agent"

    def detect(self, source: Source) -> bool:
        doc = source.document
        return (isinstance(doc, dict) and isinstance(doc.get("trajectory"), list)
                and isinstance(doc.get("info"), dict) and "messages" not in doc)

    def read(self, source: Source) -> Transcript:
        doc = source.document
        info = doc["info"]
        b = Builder(self.name)
        steps = doc["trajectory"]
        history = doc.get("history") if isinstance(doc.get("history"), list) else []
        step_calls: list[int] = []
        said: dict[int, str] = {}
        for i, step in enumerate(steps):
            if not isinstance(step, dict):
                raise source.fail(f"trajectory[{i}]", "not a step object")
            action = str(step.get("action") or "").strip()
            if not action:
                continue
            name = action.split(None, 1)[0]
            step_calls.append(b.call(name, {"command": action},
                                     output=_text(step.get("observation"))))
            said[step_calls[-1]] = text_of(step.get("thought") or step.get("response"))
        # turns from the history; each assistant message made the next step's call
        queue = list(step_calls)
        for m in history:
            if not isinstance(m, dict):
                continue
            role = _ROLES.get(str(m.get("role")), "user")
            text = text_of(m.get("content"))
            calls = [queue.pop(0)] if role == "assistant" and queue and (
                m.get("action") or m.get("tool_calls")) else []
            if role == "assistant" and not calls and queue and m.get("thought") is not None:
                calls = [queue.pop(0)]
            b.say(role, text, calls)
        for index in queue:  # steps after the history was last written
            b.say("assistant", said[index], [index])
        stats = obj(info.get("model_stats"))
        status, limit = status_of(info.get("exit_status") if isinstance(
            info.get("exit_status"), str) else None)
        submission = info.get("submission")
        patch = submission.replace("\r\n", "\n") if isinstance(submission, str) \
            and submission.strip() else None
        final = None
        for step in reversed(steps):
            if isinstance(step, dict) and (step.get("thought") or step.get("response")):
                final = text_of(step.get("thought") or step.get("response"))
                break
        return b.finish(model=_model(doc), tokens_in=as_count(stats.get("tokens_sent")),
                        tokens_out=as_count(stats.get("tokens_received")),
                        cost_usd=as_cost(stats.get("instance_cost")), exit_status=status,
                        limit=limit, patch=patch, final_message=final)


def _text(value: Any) -> str | None:
    return None if value is None else text_of(value)


def _model(doc: dict[str, Any]) -> str | None:
    replay = doc.get("replay_config")
    if isinstance(replay, str):
        try:
            replay = json.loads(replay)
        except ValueError:
            return None
    agent = replay.get("agent") if isinstance(replay, dict) else None
    model = agent.get("model") if isinstance(agent, dict) else None
    name = model.get("name") if isinstance(model, dict) else None
    return name if isinstance(name, str) else None


__all__ = ["SweAgentReader", "status_of"]
