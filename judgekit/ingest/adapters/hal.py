"""HAL (Holistic Agent Leaderboard) upload files: ``<run_id>_UPLOAD.json``.

An upload file holds one agent's run over a benchmark:

- ``config``: ``agent_name``, ``benchmark_name``, ``run_id``, ``agent_args`` (the model);
- ``results``: the benchmark's figures, with ``successful_tasks`` and ``failed_tasks``;
- ``raw_eval_results``: the benchmark's own evaluation per task. ScienceAgentBench nests it as
  ``{"agent_output": ..., "eval_result": {task: {valid_program, codebert_score,
  success_rate, log_info}}}``; tau-bench and others map each task to its record
  (``reward``, ``info``), or to a string when the task errored; SWE-bench keeps the
  harness's summary report (``resolved_ids``, ...), which holds no per-task record;
- ``raw_logging_results``: the logged model calls, either a list of calls that each carry a
  ``weave_task_id`` (``inputs.messages``, ``output``, ``started_at``) or, in newer files, one
  entry per task (``messages``, ``call_metadata``, ``model``);
- optionally ``task_prompts``, ``latencies`` and ``total_cost``.

Each task becomes one result. Its ``success`` is the benchmark's verdict (the task's place
in ``successful_tasks`` / ``failed_tasks``, else its own record: ``success_rate`` or
``reward``); there is no test run. Its transcript is the task's logged calls in order,
rendered as readable text; its evaluation record (``log_info`` first) is kept in
``materials`` for audits.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from judgekit.errors import InputError
from judgekit.ingest.models import RunResult, Task, Usage

#: Where a SAB-style upload nests its per-task evaluation records.
_NESTED_EVAL = "eval_result"
_LOG_KEYS = ("log_info", "log", "error", "traceback")


def _natural(task_id: str) -> tuple[int, int | str]:
    return (0, int(task_id)) if task_id.isdigit() else (1, task_id)


def _expect(value: Any, kind: type | tuple[type, ...], path: Path, field: str) -> Any:
    if value is not None and not isinstance(value, kind):
        kinds = kind if isinstance(kind, tuple) else (kind,)
        names = " or ".join("object" if k is dict else "list" if k is list else k.__name__
                            for k in kinds)
        raise InputError(path, field, f"expected {names}, got {type(value).__name__}")
    return value


def _task_list(results: dict[str, Any], key: str, path: Path) -> list[str]:
    items = _expect(results.get(key), list, path, f"results.{key}") or []
    for i, item in enumerate(items):
        if not isinstance(item, (str, int)) or isinstance(item, bool):
            raise InputError(path, f"results.{key}[{i}]", "expected a task id (string or integer)")
    return [str(x) for x in items]


def _dict_or_empty(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def _id_of(value: Any, path: Path, field: str) -> str | None:
    """A task id as text: a string or an integer (``None`` when absent)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise InputError(path, field, "expected a task id (string or integer)")
    return str(value)


def _call_task(call: dict[str, Any], path: Path, where: str) -> str | None:
    """The task a logged call belongs to (``weave_task_id``, or in its ``attributes``)."""
    if call.get("weave_task_id") is not None:
        return _id_of(call["weave_task_id"], path, f"{where}.weave_task_id")
    attributes = _dict_or_empty(call.get("attributes"))
    return _id_of(attributes.get("weave_task_id"), path, f"{where}.attributes.weave_task_id")


def _name(config: dict[str, Any], keys: tuple[str, ...], default: str, path: Path) -> str:
    for key in keys:
        value = config.get(key)
        if value is None or value == "":
            continue
        if not isinstance(value, str):
            raise InputError(path, f"config.{key}", f"expected string, got {type(value).__name__}")
        return value
    return default


# --- transcript rendering ---------------------------------------------------------------


def text_of(content: Any) -> str:
    """Readable text of a message's content: a string, or a list of content blocks."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(t for t in (_block_text(b) for b in content) if t)
    if isinstance(content, dict):
        return _block_text(content)
    return str(content)


def _block_text(block: Any) -> str:
    if not isinstance(block, dict):
        return str(block)
    kind = block.get("type")
    if kind in ("text", "input_text", "output_text") or (kind is None and "text" in block):
        return str(block.get("text", ""))
    if kind == "tool_use":
        return f"(tool call {block.get('name')}: {json.dumps(block.get('input'), default=str)})"
    if kind == "tool_result":
        return f"(tool result)\n{text_of(block.get('content'))}"
    if kind in ("thinking", "reasoning"):
        return f"(reasoning)\n{block.get('thinking') or block.get('reasoning') or block.get('summary') or ''}"
    if kind in ("image", "image_url"):
        return "(image)"
    return json.dumps(block, default=str)


def _tool_calls(message: dict[str, Any]) -> list[str]:
    out = []
    for call in message.get("tool_calls") or []:
        if isinstance(call, dict):
            function = call.get("function")
            fn: dict[str, Any] = function if isinstance(function, dict) else call
            out.append(f"(tool call {fn.get('name')}: {fn.get('arguments', '')})")
    return out


def render_message(message: Any) -> str:
    """One message as ``[role]`` followed by its text (and tool calls)."""
    if not isinstance(message, dict):
        return f"[message]\n{text_of(message)}"
    role = message.get("role") or message.get("type") or "message"
    name = f" {message['name']}" if isinstance(message.get("name"), str) else ""
    parts = [text_of(message.get("content"))] + _tool_calls(message)
    return f"[{role}{name}]\n" + "\n".join(p for p in parts if p)


def _output_message(output: Any) -> Any:
    """The model's answer in a logged call's ``output`` (OpenAI, Anthropic or plain)."""
    if isinstance(output, dict):
        choices = output.get("choices")
        if isinstance(choices, list) and choices and isinstance(choices[0], dict):
            return choices[0].get("message") or {"role": "assistant",
                                                 "content": choices[0].get("text")}
        if "content" in output:
            return {"role": output.get("role") or "assistant", "content": output["content"]}
        return {"role": "assistant", "content": json.dumps(output, default=str)}
    if output is None:
        return None
    return {"role": "assistant", "content": str(output)}


def _call_time(call: dict[str, Any]) -> str:
    return str(call.get("created_timestamp") or call.get("started_at") or "")


def render_calls(calls: list[dict[str, Any]], path: Path, where: str) -> tuple[str, str | None]:
    """The calls of one task, in time order, as a transcript; and the model seen."""
    ordered = sorted(enumerate(calls), key=lambda ic: (_call_time(ic[1]), ic[0]))
    shown: list[Any] = []
    out: list[str] = []
    model = None
    for n, (i, call) in enumerate(ordered, 1):
        inputs = _expect(call.get("inputs"), dict, path, f"{where}[{i}].inputs") or {}
        messages = _expect(inputs.get("messages"), list, path,
                           f"{where}[{i}].inputs.messages") or []
        output = call.get("output")
        model = model or inputs.get("model") or (
            output.get("model") if isinstance(output, dict) else None)
        if not shown and inputs.get("system"):
            messages = [{"role": "system", "content": inputs["system"]}, *messages]
        new = messages[len(shown):] if messages[:len(shown)] == shown else messages
        head = f"--- call {n} of {len(ordered)}"
        stamp = _call_time(call)
        out.append(head + (f" at {stamp}" if stamp else "") + " ---")
        out += [render_message(m) for m in new]
        answer = _output_message(call.get("output"))
        if answer is not None:
            out.append(render_message(answer))
        shown = messages + ([answer] if answer is not None else [])
    return "\n\n".join(out), model


def _tokens(usage: Any) -> tuple[int, int]:
    """(input, output) tokens of one call's usage, OpenAI or Anthropic names."""
    if not isinstance(usage, dict):
        return 0, 0
    def count(*keys: str) -> int:
        return next((int(usage[k]) for k in keys if isinstance(usage.get(k), int)), 0)
    return count("prompt_tokens", "input_tokens"), count("completion_tokens", "output_tokens")


def _usage_of_calls(usages: Iterable[Any]) -> Usage | None:
    pairs = [_tokens(u) for u in usages]
    if not pairs or not any(a or b for a, b in pairs):
        return None
    return Usage(input_tokens=sum(a for a, _ in pairs), output_tokens=sum(b for _, b in pairs))


def _call_usages(raw: Any, path: Path) -> dict[str, Usage]:
    """Task id → tokens summed over its logged calls (either shape)."""
    per_task: dict[str, list[Any]] = {}
    if isinstance(raw, dict):
        for task_id, entry in raw.items():
            meta = entry.get("call_metadata") if isinstance(entry, dict) else None
            per_task[str(task_id)] = [m.get("usage") for m in meta or [] if isinstance(m, dict)]
    elif isinstance(raw, list):
        for i, call in enumerate(raw):
            if not isinstance(call, dict):
                continue
            task_id = _call_task(call, path, f"raw_logging_results[{i}]")
            output = call.get("output")
            if task_id is not None and isinstance(output, dict):
                per_task.setdefault(str(task_id), []).append(output.get("usage"))
    return {t: u for t, usages in per_task.items() if (u := _usage_of_calls(usages))}


def _group_calls(raw: Any, path: Path) -> dict[str, tuple[str, str | None]]:
    """Task id → (transcript, model) from ``raw_logging_results`` in either shape."""
    field = "raw_logging_results"
    if raw is None:
        return {}
    if isinstance(raw, dict):  # newer files: one compact entry per task
        out = {}
        for task_id, entry in raw.items():
            entry = _expect(entry, dict, path, f"{field}.{task_id}") or {}
            messages = _expect(entry.get("messages"), list, path,
                               f"{field}.{task_id}.messages") or []
            out[str(task_id)] = ("\n\n".join(render_message(m) for m in messages),
                                 entry.get("model") if isinstance(entry.get("model"), str) else None)
        return out
    if not isinstance(raw, list):
        raise InputError(path, field, f"expected list or object, got {type(raw).__name__}")
    grouped: dict[str, list[dict[str, Any]]] = {}
    dialogues: dict[str, str] = {}
    for i, call in enumerate(raw):
        if not isinstance(call, dict):
            raise InputError(path, f"{field}[{i}]", f"expected object, got {type(call).__name__}")
        task_id = _call_task(call, path, f"{field}[{i}]")
        if task_id is None and "dialogue_history" in call and "task_id" in call:
            history = _expect(call["dialogue_history"], list, path,
                              f"{field}[{i}].dialogue_history")
            dialogues[str(call["task_id"])] = "\n\n".join(render_message(m) for m in history)
            continue
        if task_id is None:
            continue  # calls outside any task (set-up, prompt generation)
        grouped.setdefault(str(task_id), []).append(call)
    out = {t: render_calls(calls, path, field) for t, calls in grouped.items()}
    out.update({t: (text, None) for t, text in dialogues.items()})
    return out


# --- the benchmark's own verdict and evaluation log ----------------------------------------


def _eval_records(raw: Any, path: Path, known: set[str]) -> dict[str, Any]:
    """Task id → the benchmark's evaluation record (a dict, or a string for an errored task).

    ``known`` are the task ids the file names elsewhere (verdict lists, logged calls): when
    the top level is not keyed by them, the records are looked for one level down (USACO's
    ``sdict``, SciCode's ``details``)."""
    if raw is None or isinstance(raw, list):
        return {}
    if not isinstance(raw, dict):
        raise InputError(path, "raw_eval_results",
                         f"expected object or list, got {type(raw).__name__}")
    if isinstance(raw.get(_NESTED_EVAL), dict):
        return {str(k): v for k, v in raw[_NESTED_EVAL].items()}
    if "resolved_ids" in raw:  # SWE-bench: the harness's summary report, no per-task records
        return {}
    flat = {str(k): v for k, v in raw.items() if k != "agent_output"}
    if not known or set(flat) & known:
        return flat
    for value in raw.values():
        if isinstance(value, dict) and {str(k) for k in value} & known:
            return {str(k): v for k, v in value.items()}
    return {}


def _agent_outputs(raw: Any) -> dict[str, str]:
    """Task id → the agent's own history in ``raw_eval_results.agent_output`` (SAB), as
    text: the transcript of tasks that have no logged calls."""
    outputs = raw.get("agent_output") if isinstance(raw, dict) else None
    if not isinstance(outputs, dict):
        return {}
    out = {}
    for task_id, value in outputs.items():
        if isinstance(value, dict) and isinstance(value.get("history"), list):
            out[str(task_id)] = "\n\n".join(render_message(m) for m in value["history"])
        elif isinstance(value, str):
            out[str(task_id)] = value
    return out


def verdict_of(record: Any) -> bool | None:
    """The benchmark's verdict in its own record, when the record states one."""
    if isinstance(record, str):
        return False  # the harness stored an error message instead of a result
    if not isinstance(record, dict):
        return None
    for key in ("success_rate", "success", "resolved", "correct"):
        value = record.get(key)
        if isinstance(value, bool):
            return value
        if isinstance(value, (int, float)):
            return value >= 1
    reward = record.get("reward", record.get("score"))
    if isinstance(reward, (int, float)) and not isinstance(reward, bool):
        return reward > 0
    return None


def materials_of(record: Any) -> dict[str, str]:
    """The evaluation log and the rest of the record, as audit materials."""
    if record is None:
        return {}
    if isinstance(record, str):
        return {"evaluation log": record} if record.strip() else {}
    if not isinstance(record, dict):
        return {"evaluation result": json.dumps(record, default=str)}
    out: dict[str, str] = {}
    for key in _LOG_KEYS:
        value = record.get(key)
        if isinstance(value, str) and value.strip():
            out["evaluation log" if key == "log_info" else f"evaluation {key}"] = value
    rest = {k: v for k, v in record.items() if k not in _LOG_KEYS}
    if rest:
        out["evaluation result"] = json.dumps(rest, indent=2, default=str)
    return out


def _model_of(config: dict[str, Any]) -> str | None:
    args = _dict_or_empty(config.get("agent_args"))
    for key in ("model_name", "model", "model_id"):
        value = args.get(key)
        if isinstance(value, str):
            return value
    model = config.get("model")
    return model if isinstance(model, str) else None


def _task_ids(*sources: Iterable[str]) -> list[str]:
    seen: dict[str, None] = {}
    for source in sources:
        for task_id in source:
            seen.setdefault(task_id, None)
    return sorted(seen, key=_natural)


def is_sab_dataset(document: Any) -> bool:
    """A ScienceAgentBench dataset: rows with ``instance_id`` and ``task_inst`` (a task
    source, see :mod:`judgekit.ingest.enrich`; not a run file)."""
    return (isinstance(document, list) and bool(document)
            and all(isinstance(x, dict) and {"instance_id", "task_inst"} <= set(x)
                    for x in document[:5]))


class HalAdapter:
    """Reads HAL upload files (``*_UPLOAD.json``); one result per task of the run."""

    name = "hal"

    def detect(self, path: Path | None, document: Any) -> bool:
        return self._is_upload(document) or is_sab_dataset(document)

    @staticmethod
    def _is_upload(document: Any) -> bool:
        return (isinstance(document, dict) and isinstance(document.get("config"), dict)
                and "results" in document
                and ("raw_eval_results" in document or "raw_logging_results" in document))

    def is_auxiliary(self, path: Path, document: Any) -> bool:
        return is_sab_dataset(document)

    def load(self, path: Path, document: Any) -> list[RunResult]:
        if not self._is_upload(document):
            return []
        doc: dict[str, Any] = document
        config: dict[str, Any] = doc["config"]
        results = _expect(doc.get("results"), dict, path, "results") or {}
        succeeded = _task_list(results, "successful_tasks", path)
        failed = _task_list(results, "failed_tasks", path)
        calls = _group_calls(doc.get("raw_logging_results"), path)
        records = _eval_records(doc.get("raw_eval_results"), path,
                                set(succeeded) | set(failed) | set(calls))
        histories = _agent_outputs(doc.get("raw_eval_results"))
        usages = _call_usages(doc.get("raw_logging_results"), path)
        prompts = _expect(doc.get("task_prompts"), dict, path, "task_prompts") or {}
        latencies = _expect(results.get("latencies"), dict, path, "results.latencies") or {}
        benchmark = _name(config, ("benchmark_name", "benchmark"), "hal", path)
        arm = _name(config, ("agent_name",), "agent", path)
        run_id = config.get("run_id") if isinstance(config.get("run_id"), str) else path.stem
        model = _model_of(config)
        verdicts = {t: True for t in succeeded} | {t: False for t in failed}
        out = []
        for task_id in _task_ids(succeeded, failed, records, calls):
            record = records.get(task_id)
            success = verdicts.get(task_id, verdict_of(record))
            transcript, call_model = calls.get(task_id, (histories.get(task_id, ""), None))
            latency = _dict_or_empty(latencies.get(task_id))
            total_time = latency.get("total_time")
            prompt = prompts.get(task_id)
            out.append(RunResult(
                run_id=run_id,
                task=Task(id=task_id, description=prompt if isinstance(prompt, str) else None,
                          tags=[benchmark]),
                arm=arm, attempt=0, success=success,
                transcript=transcript or None,
                materials=materials_of(record),
                duration_s=float(total_time) if isinstance(total_time, (int, float))
                and total_time >= 0 else None,
                usage=usages.get(task_id), model=model or call_model,
                timestamp=config.get("date") if isinstance(config.get("date"), str) else None,
                metadata={"source_format": "hal", "benchmark": benchmark,
                          "listed_as": "successful" if task_id in succeeded else
                          "failed" if task_id in failed else None},
            ))
        return out


__all__ = ["HalAdapter", "is_sab_dataset", "render_calls", "render_message", "text_of",
           "verdict_of"]
