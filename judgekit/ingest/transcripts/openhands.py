"""OpenHands benchmark output (``output.jsonl``): one line per instance, with its ``history``
of events, ``metrics``, ``test_result.git_patch`` and ``error``.

Actions (``run``, ``edit``, ``read``, ``str_replace``, ``run_ipython``, ...) are tool calls
(a ``run`` action's ``args.command`` is the command); the observation whose ``cause`` is the
action's id gives the output and, for commands, ``extras.metadata.exit_code``. ``message``
actions are turns; ``finish`` ends the session. Tokens and cost are the accumulated metrics.
"""

from __future__ import annotations

from typing import Any

from judgekit.ingest.transcripts.build import (
    obj, Builder, as_cost, as_count, as_int, seconds_between, text_of)
from judgekit.ingest.transcripts.model import ExitStatus, Role, Transcript
from judgekit.ingest.transcripts.source import Source

_NOT_TOOLS = {"message", "system", "finish", "think", "recall", "change_agent_state",
              "condensation", "null"}


def _limit(error: str) -> str | None:
    low = error.lower()
    if "iteration" in low or "max_iterations" in low:
        return "steps"
    if "budget" in low or "cost" in low:
        return "cost"
    if "context" in low and "window" in low:
        return "tokens"
    return None


class OpenHandsReader:
    name = "openhands"

    def detect(self, source: Source) -> bool:
        rows = source.events or ([source.document] if isinstance(source.document, dict) else [])
        return bool(rows) and all(isinstance(r.get("history"), list) and "instance_id" in r
                                  for r in rows[:3])

    def read(self, source: Source) -> Transcript:
        return self.read_all(source)[0]

    def read_all(self, source: Source) -> list[Transcript]:
        rows = source.events or [source.document]
        return [self._one(source, i, row) for i, row in enumerate(rows)]

    def _one(self, source: Source, n: int, row: dict[str, Any]) -> Transcript:
        b = Builder(self.name)
        by_event: dict[Any, int] = {}
        status: ExitStatus | None = None
        final = None
        stamps: list[Any] = []
        state = None
        for i, event in enumerate(row["history"]):
            if not isinstance(event, dict):
                raise source.fail(f"line {n + 1}.history[{i}]", "not an event object")
            if event.get("timestamp") is not None:
                stamps.append(event["timestamp"])
            args = obj(event.get("args"))
            action = event.get("action")
            if isinstance(action, str):
                if action == "message":
                    role: Role = "assistant" if event.get("source") == "agent" else "user"
                    b.say(role, str(args.get("content") or event.get("message") or ""))
                elif action == "system":
                    b.say("system", str(args.get("content") or ""))
                elif action == "finish":
                    final = str(args.get("final_thought") or args.get("message")
                                or event.get("message") or "") or None
                    status = "completed"
                    if final:
                        b.say("assistant", final)
                elif action not in _NOT_TOOLS:
                    meta = event.get("tool_call_metadata")
                    name = meta.get("function_name") if isinstance(meta, dict) else None
                    thought = str(args.get("thought") or "")
                    index = b.call(str(name or action),
                                   {k: v for k, v in args.items() if k != "thought"})
                    if thought:
                        b.say("assistant", thought, [index])
                    else:
                        b.attach_to_last_turn(index)
                    by_event[event.get("id")] = index
                continue
            observation = event.get("observation")
            if isinstance(observation, str):
                extras = obj(event.get("extras"))
                if observation == "agent_state_changed":
                    state = extras.get("agent_state")
                    continue
                cause = by_event.get(event.get("cause"))
                if cause is not None:
                    meta = obj(extras.get("metadata"))
                    exit_code = as_int(meta.get("exit_code"))
                    b.result_at(cause, text_of(event.get("content")),
                                None if exit_code == -1 else exit_code)
                    if observation == "error":
                        b.calls[cause] = b.calls[cause].model_copy(update={"error": True})
                b.say("tool", text_of(event.get("content")))
        error = row.get("error")
        limit = None
        if isinstance(error, str) and error:
            limit = _limit(error)
            status = "limits_exceeded" if limit else "error"
        elif state == "error":
            status = "error"
        elif state in ("stopped", "paused") and status is None:
            status = "interrupted"
        elif state == "finished":
            status = "completed"
        metrics = obj(row.get("metrics"))
        usage = metrics.get("accumulated_token_usage")
        usage = usage if isinstance(usage, dict) else {}
        test_result = obj(row.get("test_result"))
        patch = test_result.get("git_patch")
        meta = obj(row.get("metadata"))
        llm = obj(meta.get("llm_config"))
        prompt, cache_read = as_count(usage.get("prompt_tokens")), as_count(
            usage.get("cache_read_tokens"))
        return b.finish(
            task_id=str(row["instance_id"]), model=llm.get("model") if isinstance(
                llm.get("model"), str) else None,
            tokens_in=None if prompt is None else max(prompt - (cache_read or 0), 0),
            tokens_out=as_count(usage.get("completion_tokens")),
            cache_read_tokens=cache_read,
            cache_write_tokens=as_count(usage.get("cache_write_tokens")),
            cost_usd=as_cost(metrics.get("accumulated_cost")), exit_status=status,
            limit=limit, patch=patch if isinstance(patch, str) and patch.strip() else None,
            wall_time_s=seconds_between(stamps[0], stamps[-1]) if stamps else None,
            **({"final_message": final} if final else {}))


__all__ = ["OpenHandsReader"]
