"""Codex CLI: the rollout file (``sessions/YYYY/MM/DD/rollout-*.jsonl``: ``session_meta``,
``turn_context``, ``response_item`` and ``event_msg`` lines) and the JSON event stream
``codex exec`` prints (``thread.started``, ``item.completed``, ``turn.completed``, ...).

Tool calls are ``function_call`` / ``custom_tool_call`` items (``shell`` with an argv,
``apply_patch`` with the patch text) paired with their outputs by ``call_id``; a shell
command's argv ``["bash", "-lc", TEXT]`` becomes ``arguments.command`` = TEXT. Exit codes
come from the output's metadata, its ``Exit code: N`` line, or the ``exec_command_end``
event. Tokens are the last ``token_count`` totals (cached input apart); Codex records no cost.
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

from judgekit.ingest.transcripts.build import (
    obj, Builder, add, arguments_of, as_count, as_int, relative_path, seconds_between, text_of)
from judgekit.ingest.transcripts.model import ExitStatus, Transcript
from judgekit.ingest.transcripts.source import Source

_ROLLOUT_TYPES = {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}
#: the file lines of an ``apply_patch`` envelope.
_PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$",
                         re.M)


def patch_files(calls: list[Any], cwd: str | None) -> list[str]:
    """The files the session's ``apply_patch`` edits name, in order, once each (relative to
    the session's working directory where it is known: the rollout records it, the
    ``exec`` JSON stream does not, and names files by their absolute paths; see
    :func:`~judgekit.ingest.transcripts.build.relative_patch_files`)."""
    seen: dict[str, None] = {}
    for call in calls:
        args = call.arguments if isinstance(call.arguments, dict) else {}
        texts = [v for v in args.values() if isinstance(v, str)]
        changes = args.get("changes")
        if isinstance(changes, list):  # the exec JSON stream: file_change items
            texts = []
            for change in changes:
                if isinstance(change, dict) and isinstance(change.get("path"), str):
                    seen.setdefault(_relative(change["path"], cwd))
        elif isinstance(changes, dict):  # the rollout's patch_apply events
            for path in changes:
                seen.setdefault(_relative(str(path), cwd))
        for text in texts:
            if "*** Begin Patch" not in text:
                continue
            for m in _PATCH_FILE.finditer(text):
                seen.setdefault(_relative(m.group(1) or m.group(2), cwd))
    return list(seen)


def _relative(path: str, cwd: str | None) -> str:
    return relative_path(path, cwd) if cwd else path
_EXIT = re.compile(r"^(?:Process exited with code|Exit code:)\s*(-?\d+)", re.M)
#: the lines a rollout puts before a command's output (``Chunk ID: …``, ``Wall time: …``,
#: ``Process exited with code N``, ``Original token count: N``), ended by ``Output:``
_HEADER_LINE = re.compile(r"^(?:Chunk ID|Wall time|Process exited with code|Exit code|"
                          r"Process running with session ID|Original token count|"
                          r"Total output lines)\b.*$")


def _without_header(text: str) -> str:
    """``text`` less the header a rollout puts before a tool's output (the exec stream has
    none); ``text`` as it is when it has no such header."""
    lines = text.split("\n")
    for i, line in enumerate(lines[:8]):
        if line == "Output:":
            return "\n".join(lines[i + 1:]) if i else text
        if not _HEADER_LINE.match(line):
            return text
    return text


def _command_text(args: dict[str, Any]) -> dict[str, Any]:
    """``arguments`` with a shell argv turned into the command's text."""
    command = args.get("command") if "command" in args else args.get("cmd")
    if isinstance(command, list) and all(isinstance(c, str) for c in command):
        if len(command) == 3 and command[1] in ("-lc", "-c") and command[0].endswith("sh"):
            text = command[2]
        else:
            text = shlex.join(command)
        return {**args, "command": text, "argv": command}
    if isinstance(command, str) and "command" not in args:
        return {**args, "command": command}
    return args


def _argv(command: Any) -> Any:
    """A command line as an argv where it splits cleanly (``/bin/bash -lc "..."``)."""
    if not isinstance(command, str):
        return command
    try:
        return shlex.split(command)
    except ValueError:
        return command


def _output(raw: Any) -> tuple[str, int | None]:
    """A function call's output text and exit code (JSON ``{"output", "metadata"}`` or text)."""
    if isinstance(raw, dict):
        value: Any = raw
    elif isinstance(raw, str):
        try:
            value = json.loads(raw)
        except ValueError:
            value = raw
    else:
        value = text_of(raw)
    if isinstance(value, dict) and "output" in value:
        meta = obj(value.get("metadata"))
        return str(value["output"]), as_int(meta.get("exit_code"))
    text = value if isinstance(value, str) else raw if isinstance(raw, str) else str(value)
    code = _EXIT.search(text)
    return _without_header(text), int(code.group(1)) if code else None


class CodexReader:
    name = "codex"

    def detect(self, source: Source) -> bool:
        events = source.events
        if not events:
            return False
        rollout = sum(1 for e in events[:20] if e.get("type") in _ROLLOUT_TYPES
                      and "payload" in e)
        if rollout and any(e.get("type") in ("session_meta", "turn_context", "response_item")
                           for e in events[:20]):
            return True
        return any(e.get("type") == "thread.started" and "thread_id" in e for e in events[:3])

    def read(self, source: Source) -> Transcript:
        if any(e.get("type") == "thread.started" for e in source.events[:3]):
            return self._exec_json(source)
        return self._rollout(source)

    def _rollout(self, source: Source) -> Transcript:
        b = Builder(self.name)
        model = None
        totals: dict[str, Any] | None = None
        status: ExitStatus | None = None
        final = None
        stamps: list[Any] = []
        exec_codes: dict[str, int] = {}
        cwd: str | None = None
        for i, event in enumerate(source.events):
            payload = event.get("payload")
            if event.get("timestamp") is not None:
                stamps.append(event["timestamp"])
            if not isinstance(payload, dict):
                if event.get("type") in _ROLLOUT_TYPES:
                    raise source.fail(f"line {i + 1}.payload", "not an object")
                continue
            kind, ptype = event.get("type"), payload.get("type")
            if kind in ("session_meta", "turn_context") and isinstance(payload.get("cwd"), str):
                cwd = payload["cwd"]
            if kind == "turn_context" and isinstance(payload.get("model"), str):
                model = payload["model"]
            elif kind == "response_item":
                if ptype == "message":
                    role = payload.get("role")
                    text = text_of(payload.get("content"))
                    if role == "assistant":
                        b.say("assistant", text)
                    elif role == "user" and not text.lstrip().startswith(
                            ("<environment_context>", "<user_instructions>", "# AGENTS.md")):
                        b.say("user", text)
                    elif role in ("system", "developer"):
                        b.say("system", text)
                elif ptype in ("function_call", "custom_tool_call", "local_shell_call"):
                    raw = payload.get("arguments") if ptype == "function_call" else (
                        payload.get("input") if ptype == "custom_tool_call"
                        else payload.get("action"))
                    args = arguments_of(raw) if ptype != "custom_tool_call" else (
                        {"input": raw} if isinstance(raw, str) else arguments_of(raw))
                    name = str(payload.get("name") or ("shell" if ptype == "local_shell_call"
                                                       else "?"))
                    index = b.call(name, _command_text(args), call_id=payload.get("call_id"))
                    b.attach_to_last_turn(index)
                elif ptype in ("function_call_output", "custom_tool_call_output"):
                    text, code = _output(payload.get("output"))
                    b.result(payload.get("call_id"), text, exit_code=code)
                    b.say("tool", text)
            elif kind == "event_msg":
                if ptype == "token_count" and isinstance(payload.get("info"), dict):
                    usage = payload["info"].get("total_token_usage")
                    totals = usage if isinstance(usage, dict) else totals
                elif ptype == "exec_command_end" and as_int(payload.get("exit_code")) is not None:
                    exec_codes[str(payload.get("call_id"))] = payload["exit_code"]
                elif ptype == "task_complete":
                    status = "error" if payload.get("error") else "completed"
                    if isinstance(payload.get("last_agent_message"), str):
                        final = payload["last_agent_message"]
                elif ptype == "turn_aborted":
                    status = "interrupted"
                elif ptype in ("error", "stream_error") and status != "completed":
                    status = "error"
        for call_id, code in exec_codes.items():
            b.set_exit_code(call_id, code)
        fields = _tokens(totals)
        if files := patch_files(b.calls, cwd):
            fields["patch_files"] = files
        return b.finish(model=model, exit_status=status,
                        wall_time_s=seconds_between(stamps[0], stamps[-1]) if stamps else None,
                        **({"final_message": final} if final else {}), **fields)

    def _exec_json(self, source: Source) -> Transcript:
        b = Builder(self.name)
        totals: dict[str, Any] = {}
        status: ExitStatus | None = None
        for event in source.events:
            kind = event.get("type")
            item = event.get("item") if isinstance(event.get("item"), dict) else None
            if kind == "item.started" and item is not None \
                    and item.get("type") == "command_execution":
                # a command that never ends in the stream (killed, left running) is still a call
                index = b.call("shell", _command_text({"command": _argv(item.get("command"))}),
                               call_id=item.get("id"))
                b.attach_to_last_turn(index)
            elif kind == "item.completed" and item is not None:
                itype = item.get("type")
                if itype == "agent_message":
                    b.say("assistant", str(item.get("text") or ""))
                elif itype == "command_execution":
                    if not b.result(item.get("id"), item.get("aggregated_output"),
                                    exit_code=as_int(item.get("exit_code"))):
                        index = b.call("shell", _command_text(
                            {"command": _argv(item.get("command"))}), call_id=item.get("id"),
                            output=item.get("aggregated_output"),
                            exit_code=as_int(item.get("exit_code")))
                        b.attach_to_last_turn(index)
                elif itype == "file_change":
                    index = b.call("apply_patch", {"changes": item.get("changes")},
                                   call_id=item.get("id"), output=item.get("status"))
                    b.attach_to_last_turn(index)
                elif itype == "mcp_tool_call":
                    index = b.call(str(item.get("tool") or "mcp"), item.get("arguments"),
                                   call_id=item.get("id"), output=text_of(item.get("result")))
                    b.attach_to_last_turn(index)
                elif itype == "error":
                    status = "error"
            elif kind == "turn.completed":
                usage = obj(event.get("usage"))
                for key in ("input_tokens", "cached_input_tokens", "output_tokens"):
                    totals[key] = add(totals.get(key), as_count(usage.get(key)))
                status = "completed" if status is None else status
            elif kind in ("turn.failed", "error"):
                status = "error"
        fields = _tokens(totals)
        if files := patch_files(b.calls, None):
            fields["patch_files"] = files
        return b.finish(exit_status=status, **fields)


def _tokens(totals: dict[str, Any] | None) -> dict[str, Any]:
    if not totals:
        return {}
    inputs, cached = as_count(totals.get("input_tokens")), as_count(
        totals.get("cached_input_tokens"))
    return {"tokens_in": None if inputs is None else max(inputs - (cached or 0), 0),
            "tokens_out": as_count(totals.get("output_tokens")),
            "cache_read_tokens": cached}


__all__ = ["CodexReader"]
