"""OpenHands benchmark output (``output.jsonl``): one line per instance (``instance_id``), with
its ``history`` of serialized events, ``metrics``, ``test_result.git_patch`` and ``error``.

An event is an action (``action``, ``args``, ``source``) or an observation (``observation``,
``content``, ``extras``, ``cause``: the id of the action it answers); either may carry
``tool_call_metadata`` (``function_name``: the tool the model called). Actions other than
messages and bookkeeping (``run``, ``edit``, ``read``, ``run_ipython``, ``browse``, MCP calls,
...) are tool calls named by their function (``execute_bash``, ``str_replace_editor``, ...)
with their ``args`` as arguments (a ``run`` action's ``args.command`` is the command, its
``args.thought`` the assistant's text); the observation caused by one gives its output and,
for commands, the exit code (``extras.metadata.exit_code``; ``extras.exit_code`` in older
files). An ``error`` observation, or an editor output that starts ``ERROR:``, marks the call
failed; an ``error`` observation that answers no call is a tool turn of its own. ``message``
and ``system`` actions and ``think`` thoughts are turns; ``finish`` (the agent's hand-in) is
``submitted``. A run's ``error`` is ``limits_exceeded`` where it is a limit (maximum
iterations: ``steps``; maximum budget: ``cost``; context window: ``tokens``), else ``error``.
Tokens and cost are the accumulated metrics (cache reads apart from the prompt tokens).
An old-style history of ``[action, observation]`` pairs is read the same way.
"""
from __future__ import annotations

from typing import Any

from judgekit.ingest.transcripts.build import (
    obj, Builder, as_cost, as_count, as_int, seconds_between, text_of)
from judgekit.ingest.transcripts.model import ExitStatus, Role, Transcript
from judgekit.ingest.transcripts.source import Source

_NOT_TOOLS = {"recall", "change_agent_state", "condensation", "condensation_request", "null",
              "pause", "resume", "stop", "loop_recovery"}


def _limit(error: str) -> str | None:
    """Which limit a run's ``error`` names, if it is one."""
    low = error.lower()
    if "maximum iteration" in low or "max_iterations" in low:
        return "steps"
    if "maximum budget" in low or "budget exceeded" in low:
        return "cost"
    if "context" in low and "window" in low:
        return "tokens"
    return None


def _events(history: list[Any]) -> list[Any]:
    """The events in order; an old-style ``[action, observation]`` pair gives both."""
    out: list[Any] = []
    for item in history:
        if isinstance(item, (list, tuple)) and all(isinstance(e, dict) for e in item):
            out.extend(e for e in item if e)
        else:
            out.append(item)
    return out


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
        finished = False
        final = None
        stamps: list[Any] = []
        state = None
        for i, event in enumerate(_events(row["history"])):
            if not isinstance(event, dict):
                raise source.fail(f"line {n + 1}.history[{i}]", "not an event object")
            if event.get("timestamp") is not None:
                stamps.append(event["timestamp"])
            args = obj(event.get("args"))
            action = event.get("action")
            if isinstance(action, str):
                thought = str(args.get("thought") or "")
                if action == "message":
                    role: Role = "assistant" if event.get("source") == "agent" else "user"
                    b.say(role, str(args.get("content") or event.get("message") or ""))
                elif action == "system":
                    b.say("system", str(args.get("content") or event.get("message") or ""))
                elif action == "think":
                    b.say("assistant", thought)
                elif action == "finish":
                    final = str(args.get("final_thought") or args.get("message")
                                or "") or None
                    finished = True
                    b.say("assistant", "\n\n".join(t for t in (thought, final or "") if t))
                elif action not in _NOT_TOOLS:
                    meta = obj(event.get("tool_call_metadata"))
                    name = meta.get("function_name")
                    index = b.call(str(name or action),
                                   {k: v for k, v in args.items() if k != "thought"},
                                   call_id=str(meta.get("tool_call_id") or "") or None)
                    if thought:
                        b.say("assistant", thought, [index])
                    else:
                        b.attach_to_last_turn(index)
                    by_event[event.get("id")] = index
                continue
            observation = event.get("observation")
            if not isinstance(observation, str):
                continue
            extras = obj(event.get("extras"))
            if observation == "agent_state_changed":
                state = extras.get("agent_state")
                continue
            content = text_of(event.get("content"))
            cause = by_event.get(event.get("cause"))
            if cause is not None:
                code = as_int(obj(extras.get("metadata")).get("exit_code"))
                if code is None:
                    code = as_int(extras.get("exit_code"))
                b.result_at(cause, content, None if code == -1 else code)
                if observation == "error" or (observation in ("edit", "read")
                                              and content.startswith("ERROR:")):
                    b.calls[cause] = b.calls[cause].model_copy(update={"error": True})
                b.say("tool", content)
            elif observation == "error":
                b.say("tool", content)
        error = row.get("error")
        limit = None
        status: ExitStatus | None = None
        if isinstance(error, str) and error:
            limit = _limit(error)
            status = "limits_exceeded" if limit else "error"
        elif finished:
            status = "submitted"
        elif state == "error":
            status = "error"
        elif state in ("stopped", "paused"):
            status = "interrupted"
        elif state == "finished":
            status = "completed"
        metrics = obj(row.get("metrics"))
        if not metrics:  # the last event that carries the run's metrics so far
            metrics = next((obj(e.get("llm_metrics")) for e in reversed(row["history"])
                            if isinstance(e, dict) and obj(e.get("llm_metrics"))), {})
        usage = obj(metrics.get("accumulated_token_usage"))
        test_result = obj(row.get("test_result"))
        patch = test_result.get("git_patch")
        llm = obj(obj(row.get("metadata")).get("llm_config"))
        model = llm.get("model")
        prompt, cache_read = as_count(usage.get("prompt_tokens")), as_count(
            usage.get("cache_read_tokens"))
        return b.finish(
            task_id=str(row["instance_id"]), model=model if isinstance(model, str) else None,
            tokens_in=None if prompt is None else max(prompt - (cache_read or 0), 0),
            tokens_out=as_count(usage.get("completion_tokens")),
            cache_read_tokens=cache_read,
            cache_write_tokens=as_count(usage.get("cache_write_tokens")),
            cost_usd=as_cost(metrics.get("accumulated_cost")), exit_status=status,
            limit=limit, patch=patch if isinstance(patch, str) and patch.strip() else None,
            wall_time_s=seconds_between(stamps[0], stamps[-1]) if stamps else None,
            **({"final_message": final} if final else {}))


__all__ = ["OpenHandsReader"]
