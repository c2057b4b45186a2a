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

OpenHands 1.x (its software-agent SDK, benchmarks run from its own repository) writes the
same line with SDK events, each tagged by ``kind``: ``SystemPromptEvent``, ``MessageEvent``
(``llm_message``), ``ActionEvent`` (``tool_name``, ``tool_call_id``, ``thought``, and the
``action`` with its own ``kind``: ``TerminalAction``'s ``command``, ``FinishAction``'s
``message``, ...), ``ObservationEvent`` (``action_id``, and the ``observation``'s
``content``, ``exit_code``, ``is_error``), ``AgentErrorEvent`` (a failed tool call),
``UserRejectObservation``, and ``ConversationErrorEvent``, whose ``code``
``MaxIterationsReached`` or ``MaxBudgetReached`` names the limit that stopped the run.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from judgekit.ingest.transcripts.build import (
    Builder, arguments_of, as_cost, as_count, as_int, obj, seconds_between, text_of)
from judgekit.ingest.transcripts.model import ExitStatus, Role, Transcript
from judgekit.ingest.transcripts.source import Source

_NOT_TOOLS = {"recall", "change_agent_state", "condensation", "condensation_request", "null",
              "pause", "resume", "stop", "loop_recovery"}
#: SDK events that say nothing about the conversation itself
_SDK_QUIET = {"Condensation", "CondensationRequest", "CondensationSummaryEvent",
              "LLMCompletionLogEvent", "StreamingDeltaEvent", "TokenEvent",
              "HookExecutionEvent"}
_SDK_LIMITS = {"MaxIterationsReached": "steps", "MaxBudgetReached": "cost"}
_ROLES: dict[str, Role] = {"system": "system", "user": "user", "assistant": "assistant",
                           "tool": "tool"}


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


def _exit_code(*places: dict[str, Any]) -> int | None:
    """The first exit code recorded; ``-1`` is OpenHands' "none" (still running, timed out)."""
    for place in places:
        code = as_int(place.get("exit_code"))
        if code is not None:
            return None if code == -1 else code
    return None


@dataclass
class _Reading:
    """One instance's history, read event by event."""

    b: Builder
    by_event: dict[Any, int] = field(default_factory=dict)
    finished: bool = False
    final: str | None = None
    state: Any = None
    error: str | None = None  # how the conversation itself says it failed (SDK)
    limit: str | None = None

    def _tool(self, name: str, arguments: Any, thought: str, event_id: Any,
              call_id: str | None) -> None:
        index = self.b.call(name, arguments, call_id=call_id)
        if thought:
            self.b.say("assistant", thought, [index])
        else:
            self.b.attach_to_last_turn(index)
        self.by_event[event_id] = index

    def _answer(self, cause: int | None, output: str, exit_code: int | None,
                error: bool) -> None:
        if cause is None:
            if error:  # a failure that answers no call
                self.b.say("tool", output)
            return
        self.b.result_at(cause, output, exit_code)
        if error:
            self.b.calls[cause] = self.b.calls[cause].model_copy(update={"error": True})
        self.b.say("tool", output)

    def _finish(self, thought: str, final: str) -> None:
        self.finished, self.final = True, final or None
        self.b.say("assistant", "\n\n".join(t for t in (thought, final) if t))

    def legacy(self, event: dict[str, Any]) -> None:
        """A 0.x event: ``action`` or ``observation`` by name."""
        args = obj(event.get("args"))
        action = event.get("action")
        if isinstance(action, str):
            thought = str(args.get("thought") or "")
            if action == "message":
                role: Role = "assistant" if event.get("source") == "agent" else "user"
                self.b.say(role, str(args.get("content") or event.get("message") or ""))
            elif action == "system":
                self.b.say("system", str(args.get("content") or event.get("message") or ""))
            elif action == "think":
                self.b.say("assistant", thought)
            elif action == "finish":
                self._finish(thought, str(args.get("final_thought") or args.get("message")
                                          or ""))
            elif action not in _NOT_TOOLS:
                meta = obj(event.get("tool_call_metadata"))
                self._tool(str(meta.get("function_name") or action),
                           {k: v for k, v in args.items() if k != "thought"}, thought,
                           event.get("id"), str(meta.get("tool_call_id") or "") or None)
            return
        observation = event.get("observation")
        if not isinstance(observation, str):
            return
        extras = obj(event.get("extras"))
        if observation == "agent_state_changed":
            self.state = extras.get("agent_state")
            return
        content = text_of(event.get("content"))
        failed = observation == "error" or (observation in ("edit", "read")
                                            and content.startswith("ERROR:"))
        self._answer(self.by_event.get(event.get("cause")), content,
                     _exit_code(obj(extras.get("metadata")), extras), failed)

    def sdk(self, event: dict[str, Any], kind: str) -> None:
        """A 1.x SDK event, by ``kind``."""
        if kind == "SystemPromptEvent":
            self.b.say("system", text_of([event.get("system_prompt")]))
        elif kind == "MessageEvent":
            message = obj(event.get("llm_message"))
            role = _ROLES.get(str(message.get("role")), "user")
            self.b.say(role, text_of(message.get("content")))
        elif kind == "ActionEvent":
            action = obj(event.get("action"))
            name = str(event.get("tool_name") or action.get("kind") or "?")
            thought = text_of(event.get("thought")).strip()
            if action.get("kind") == "FinishAction" or name == "finish":
                self._finish(thought, str(action.get("message") or ""))
            elif action.get("kind") == "ThinkAction" or name == "think":
                self.b.say("assistant", "\n\n".join(
                    t for t in (thought, str(action.get("thought") or "")) if t))
            else:
                arguments = ({k: v for k, v in action.items() if k != "kind"} if action
                             else arguments_of(obj(event.get("tool_call")).get("arguments")))
                self._tool(name, arguments, thought, event.get("id"),
                           str(event.get("tool_call_id") or "") or None)
        elif kind in ("ObservationEvent", "UserRejectObservation", "AgentErrorEvent"):
            cause = self.by_event.get(event.get("action_id"))
            if cause is None and event.get("tool_call_id"):
                cause = next((i for i, c in enumerate(self.b.calls)
                              if c.id == event.get("tool_call_id")), None)
            observation = obj(event.get("observation"))
            if kind == "ObservationEvent":
                if observation.get("kind") in ("FinishObservation", "ThinkObservation"):
                    return
                self._answer(cause, text_of(observation.get("content")),
                             _exit_code(observation, obj(observation.get("metadata"))),
                             observation.get("is_error") is True)
            else:
                self._answer(cause, str(event.get("rejection_reason") or event.get("error")
                                        or ""), None, True)
        elif kind == "ConversationErrorEvent":
            code = str(event.get("code") or "")
            self.limit = _SDK_LIMITS.get(code)
            self.error = str(event.get("detail") or code or "error")
        elif kind == "ConversationStateUpdateEvent" and event.get("key") == "execution_status":
            self.state = event.get("value")
        elif kind == "PauseEvent":
            self.state = "paused"

    def status(self, row_error: Any) -> tuple[ExitStatus | None, str | None]:
        if isinstance(row_error, str) and row_error:
            limit = _limit(row_error)
            return ("limits_exceeded" if limit else "error"), limit
        if self.error is not None:
            return ("limits_exceeded" if self.limit else "error"), self.limit
        if self.finished:
            return "submitted", None
        if self.state in ("error", "stuck"):
            return "error", None
        if self.state in ("stopped", "paused"):
            return "interrupted", None
        if self.state == "finished":
            return "completed", None
        return None, None


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
        run = _Reading(Builder(self.name))
        stamps: list[Any] = []
        for i, event in enumerate(_events(row["history"])):
            if not isinstance(event, dict):
                raise source.fail(f"line {n + 1}.history[{i}]", "not an event object")
            kind = event.get("kind")
            if isinstance(kind, str) and kind in _SDK_QUIET:
                continue
            if event.get("timestamp") is not None:
                stamps.append(event["timestamp"])
            if isinstance(kind, str):
                run.sdk(event, kind)
            else:
                run.legacy(event)
        status, limit = run.status(row.get("error"))
        metrics = obj(row.get("metrics"))
        if not metrics:  # the last event that carries the run's metrics so far
            metrics = next((obj(e.get("llm_metrics")) for e in reversed(row["history"])
                            if isinstance(e, dict) and obj(e.get("llm_metrics"))), {})
        usage = obj(metrics.get("accumulated_token_usage"))
        patch = obj(row.get("test_result")).get("git_patch")
        meta = obj(row.get("metadata"))  # 0.x: llm_config; 1.x: llm
        model = next((m for m in (obj(meta.get("llm_config")).get("model"),
                                  obj(meta.get("llm")).get("model"), metrics.get("model_name"),
                                  usage.get("model"))
                      if isinstance(m, str) and m and m != "default"), None)
        prompt, cache_read = as_count(usage.get("prompt_tokens")), as_count(
            usage.get("cache_read_tokens"))
        return run.b.finish(
            task_id=str(row["instance_id"]), model=model,
            tokens_in=None if prompt is None else max(prompt - (cache_read or 0), 0),
            tokens_out=as_count(usage.get("completion_tokens")),
            cache_read_tokens=cache_read,
            cache_write_tokens=as_count(usage.get("cache_write_tokens")),
            cost_usd=as_cost(metrics.get("accumulated_cost")), exit_status=status,
            limit=limit, patch=patch if isinstance(patch, str) and patch.strip() else None,
            wall_time_s=seconds_between(stamps[0], stamps[-1]) if stamps else None,
            **({"final_message": run.final} if run.final else {}))


__all__ = ["OpenHandsReader"]
