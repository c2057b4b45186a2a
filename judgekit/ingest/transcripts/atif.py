"""ATIF trajectories (the Agent Trajectory Interchange Format, ``schema_version``
``ATIF-v1.0`` to ``ATIF-v1.8``): Harbor's ``trajectory.json`` and any tool that converts an
agent's log to it.

Each step is a turn (``source`` ``agent`` is the assistant, ``user`` and ``system`` as
named); an agent step's ``tool_calls`` are the tool calls, with their ``arguments`` as
written (a shell tool's text under ``command``); the step's ``observation.results`` are
the calls' outputs, paired by ``source_call_id`` (a result naming no call is a tool turn of
its own). Tokens and cost are the trajectory's ``final_metrics`` where it has them, else the
sum of its steps' ``metrics``; input tokens are ``prompt_tokens`` less ``cached_tokens``
(cache reads apart, as for every reader). A subagent trajectory a result refers to is
followed when it is embedded (``subagent_trajectories``, by ``trajectory_id``) or is a file
of the same directory (``trajectory_path`` naming a plain file beside this one, never a link
or a path out of it): its turns and tool calls follow the call that delegated to it, and
its metrics are added where the parent has no ``final_metrics`` (which include them).
ATIF records no way the session ended, so ``exit_status`` is left empty.
"""

from __future__ import annotations

import json
from typing import Any

from judgekit.errors import InputError
from judgekit.ingest.transcripts.build import (
    Builder, add, as_cost, as_count, obj, seconds_between, text_of)
from judgekit.ingest.transcripts.model import Role, Transcript, Turn
from judgekit.ingest.transcripts.source import Source

#: The schema versions read.
VERSIONS = tuple(f"ATIF-v1.{n}" for n in range(9))
#: The largest subagent trajectory file followed (bytes).
MAX_SUBAGENT_BYTES = 64 * 1024 * 1024
#: How deep subagents of subagents are followed.
MAX_DEPTH = 8
_ROLES: dict[str, Role] = {"agent": "assistant", "user": "user", "system": "system"}


class _Totals:
    def __init__(self) -> None:
        self.tokens_in: int | None = None
        self.tokens_out: int | None = None
        self.cached: int | None = None
        self.cost: float | None = None

    def add_metrics(self, prompt: Any, completion: Any, cached: Any, cost: Any) -> None:
        hit = as_count(cached)
        total = as_count(prompt)
        self.tokens_in = add(self.tokens_in, None if total is None else max(total - (hit or 0), 0))
        self.tokens_out = add(self.tokens_out, as_count(completion))
        self.cached = add(self.cached, hit)
        price = as_cost(cost)
        if price is not None:
            self.cost = price if self.cost is None else self.cost + price

    def add_totals(self, other: _Totals) -> None:
        self.tokens_in = add(self.tokens_in, other.tokens_in)
        self.tokens_out = add(self.tokens_out, other.tokens_out)
        self.cached = add(self.cached, other.cached)
        if other.cost is not None:
            self.cost = other.cost if self.cost is None else self.cost + other.cost


class AtifReader:
    name = "atif"

    def detect(self, source: Source) -> bool:
        doc = source.document
        return (isinstance(doc, dict) and isinstance(doc.get("schema_version"), str)
                and doc["schema_version"].startswith("ATIF-"))

    def read(self, source: Source) -> Transcript:
        doc = source.document
        b = Builder(self.name)
        walk = _Walk(source, b)
        totals = walk.trajectory(doc, "", 0)
        agent = obj(doc.get("agent"))
        final = doc.get("final_metrics")
        if isinstance(final, dict):
            totals = _Totals()
            totals.add_metrics(final.get("total_prompt_tokens"),
                               final.get("total_completion_tokens"),
                               final.get("total_cached_tokens"), final.get("total_cost_usd"))
        stamps = [s.get("timestamp") for s in doc["steps"]
                  if isinstance(s, dict) and isinstance(s.get("timestamp"), str)]
        model = agent.get("model_name") if isinstance(agent.get("model_name"), str) else \
            walk.first_model
        return b.finish(agent=agent["name"], agent_version=agent.get("version"),
                        model=model, tokens_in=totals.tokens_in, tokens_out=totals.tokens_out,
                        cache_read_tokens=totals.cached, cost_usd=totals.cost,
                        wall_time_s=seconds_between(stamps[0], stamps[-1]) if stamps else None)


class _Walk:
    """Reads one trajectory's steps into the builder, following its subagents."""

    def __init__(self, source: Source, builder: Builder) -> None:
        self.source = source
        self.b = builder
        self.first_model: str | None = None
        self.seen: set[str] = set()

    def fail(self, where: str | None, reason: str) -> InputError:
        return self.source.fail(where, reason)

    def trajectory(self, doc: Any, where: str, depth: int) -> _Totals:
        if not isinstance(doc, dict):
            raise self.fail(where or None, "an ATIF trajectory must be a JSON object")
        at = f"{where}." if where else ""
        version = doc.get("schema_version")
        if version not in VERSIONS:
            raise self.fail(f"{at}schema_version", f"{version!r} is not an ATIF version "
                                                   f"read here ({VERSIONS[0]} to {VERSIONS[-1]})")
        agent = doc.get("agent")
        if not isinstance(agent, dict) or not isinstance(agent.get("name"), str):
            raise self.fail(f"{at}agent.name", "an ATIF trajectory names its agent")
        if agent.get("version") is not None and not isinstance(agent["version"], str):
            raise self.fail(f"{at}agent.version", "must be a string")
        steps = doc.get("steps")
        if not isinstance(steps, list) or not steps:
            raise self.fail(f"{at}steps", "an ATIF trajectory needs a non-empty list of steps")
        embedded = {s.get("trajectory_id"): s for s in doc.get("subagent_trajectories") or []
                    if isinstance(s, dict) and isinstance(s.get("trajectory_id"), str)}
        totals = _Totals()
        for i, step in enumerate(steps):
            totals.add_totals(self.step(step, f"{at}steps[{i}]", embedded, depth))
        return totals

    def step(self, step: Any, where: str, embedded: dict[Any, Any], depth: int) -> _Totals:
        if not isinstance(step, dict):
            raise self.fail(where, "a step must be an object")
        role = _ROLES.get(str(step.get("source")))
        if role is None:
            raise self.fail(f"{where}.source", f"{step.get('source')!r} is not system, user "
                                                "or agent")
        if self.first_model is None and isinstance(step.get("model_name"), str):
            self.first_model = step["model_name"]
        message = step.get("message")
        text = text_of(message)
        reasoning = step.get("reasoning_content")
        calls: list[int] = []
        raw_calls = step.get("tool_calls") or []
        if not isinstance(raw_calls, list):
            raise self.fail(f"{where}.tool_calls", "must be a list")
        for j, call in enumerate(raw_calls):
            if not isinstance(call, dict) or not isinstance(call.get("function_name"), str):
                raise self.fail(f"{where}.tool_calls[{j}].function_name",
                                "a tool call names its function")
            args = call.get("arguments")
            if args is not None and not isinstance(args, dict):
                raise self.fail(f"{where}.tool_calls[{j}].arguments", "must be an object")
            call_id = call.get("tool_call_id")
            calls.append(self.b.call(call["function_name"], args or {},
                                     call_id=call_id if isinstance(call_id, str) else None))
        if isinstance(reasoning, str) and reasoning and role == "assistant" and not text:
            text = reasoning
        if role == "assistant":
            if text or calls:
                self.b.turns.append(Turn(role=role, text=text, tool_calls=calls))
        else:
            self.b.say(role, text)
        totals = _Totals()
        metrics = step.get("metrics")
        if metrics is not None:
            if not isinstance(metrics, dict):
                raise self.fail(f"{where}.metrics", "must be an object")
            totals.add_metrics(metrics.get("prompt_tokens"), metrics.get("completion_tokens"),
                               metrics.get("cached_tokens"), metrics.get("cost_usd"))
        observation = step.get("observation")
        if observation is None:
            return totals
        results = obj(observation).get("results")
        if not isinstance(results, list):
            raise self.fail(f"{where}.observation.results", "must be a list")
        for k, result in enumerate(results):
            if not isinstance(result, dict):
                raise self.fail(f"{where}.observation.results[{k}]", "must be an object")
            output = text_of(result.get("content"))
            if not self.b.result(result.get("source_call_id"), output):
                self.b.say("tool", output)
            for n, ref in enumerate(result.get("subagent_trajectory_ref") or []):
                sub = self.subagent(ref, embedded, f"{where}.observation.results[{k}]"
                                    f".subagent_trajectory_ref[{n}]", depth)
                if sub is not None:
                    totals.add_totals(sub)
        return totals

    def subagent(self, ref: Any, embedded: dict[Any, Any], where: str, depth: int
                 ) -> _Totals | None:
        """The subagent's totals when it was found and read, else ``None``."""
        if not isinstance(ref, dict) or depth >= MAX_DEPTH:
            return None
        key = ref.get("trajectory_id")
        doc: Any = embedded.get(key) if isinstance(key, str) else None
        name = ref.get("trajectory_path")
        if doc is None and isinstance(name, str):
            doc = self._sibling(name, where)
            key = name
        if doc is None or not isinstance(key, str) or key in self.seen:
            return None
        self.seen.add(key)
        totals = self.trajectory(doc, f"{where}", depth + 1)
        final = doc.get("final_metrics")
        if isinstance(final, dict):
            totals = _Totals()
            totals.add_metrics(final.get("total_prompt_tokens"),
                               final.get("total_completion_tokens"),
                               final.get("total_cached_tokens"), final.get("total_cost_usd"))
        return totals

    def _sibling(self, name: str, where: str) -> Any:
        """The JSON of the file ``name`` beside this one, or ``None`` when it is not a
        plain file of the same directory."""
        if "/" in name or "\\" in name or name in ("", ".", ".."):
            return None
        path = self.source.path.parent / name
        try:
            if path.is_symlink() or not path.is_file() or \
                    path.stat().st_size > MAX_SUBAGENT_BYTES:
                return None
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
        try:
            return json.loads(text)
        except (ValueError, RecursionError):
            raise self.fail(f"{where}.trajectory_path", f"{name} is not JSON") from None


__all__ = ["AtifReader", "VERSIONS"]
