"""Helpers the readers share: a :class:`Builder` that collects turns and tool calls in order
and pairs each call with its output, and small conversions.

Example:
    >>> b = Builder("demo")
    >>> b.say("assistant", "look", [b.call("bash", {"command": "ls"}, call_id="c1")])
    >>> _ = b.result("c1", "a.py", exit_code=0)
    >>> t = b.finish(exit_status="completed")
    >>> t.tool_calls[0].output, t.turns[0].tool_calls
    ('a.py', [0])
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any, TypeVar

from judgekit.diffs import files_touched
from judgekit.ingest.transcripts.model import Role, ToolCall, Transcript, Turn


_M = TypeVar("_M", ToolCall, Turn)
#: Every field of a model built by :func:`_made` counts as given (as after validation with
#: all of them): one set shared by all (it only ever holds these names).
_FIELDS_SET: dict[type, set[str]] = {ToolCall: set(ToolCall.model_fields),
                                      Turn: set(Turn.model_fields)}
_ROLES = frozenset(("system", "user", "assistant", "tool"))
#: Argument values up to this length are interned: a session repeats them (a tool's
#: ``description``, a path) in every call, and one copy is kept.
_SHORT = 40


def _made(cls: type[_M], values: dict[str, Any]) -> _M:
    """``cls`` holding ``values`` (every field, each already of its type: checked by the
    caller) without validating them again: a long session builds a model a call and a
    turn, and validation would copy what was already checked."""
    made = cls.__new__(cls)
    object.__setattr__(made, "__dict__", values)
    object.__setattr__(made, "__pydantic_fields_set__", _FIELDS_SET[cls])
    object.__setattr__(made, "__pydantic_extra__", None)
    object.__setattr__(made, "__pydantic_private__", None)
    return made


def _short(value: Any) -> Any:
    return sys.intern(value) if type(value) is str and len(value) <= _SHORT else value


def tool_call(name: str, arguments: dict[str, Any], output: str | None,
              exit_code: int | None, error: bool | None, call_id: str | None) -> ToolCall:
    """A :class:`ToolCall`: built directly when every value is of its field's type (a
    new arguments object, as validation makes, with its short values shared), else
    validated (raising as the model does)."""
    if type(name) is str and type(arguments) is dict \
            and all(type(k) is str for k in arguments) \
            and (output is None or type(output) is str) \
            and (exit_code is None or type(exit_code) is int) \
            and (error is None or type(error) is bool) \
            and (call_id is None or type(call_id) is str):
        return _made(ToolCall, {"name": sys.intern(name),
                                "arguments": {k: _short(v) for k, v in arguments.items()},
                                "output": output, "exit_code": exit_code, "error": error,
                                "id": call_id})
    return ToolCall(name=name, arguments=arguments, output=output, exit_code=exit_code,
                    error=error, id=call_id)


def turn(role: Any, text: Any, calls: list[int]) -> Turn:
    """A :class:`Turn`, as :func:`tool_call` builds a call."""
    if role in _ROLES and type(role) is str and type(text) is str \
            and all(type(i) is int for i in calls):
        return _made(Turn, {"role": sys.intern(role), "text": text, "tool_calls": list(calls)})
    return Turn(role=role, text=text, tool_calls=calls)


def text_of(content: Any) -> str:
    """The text of a message's content: a string, or a list of blocks with ``text``."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and isinstance(block.get("text"), str):
                parts.append(block["text"])
        return "\n".join(parts)
    return "" if content is None else str(content)


def arguments_of(raw: Any) -> dict[str, Any]:
    """Tool-call arguments as an object (a JSON string is decoded; anything else is kept
    under ``input``)."""
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError):
            return {"input": raw}
        return value if isinstance(value, dict) else {"input": value}
    return {} if raw is None else {"input": raw}


def obj(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def as_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def as_count(value: Any) -> int | None:
    n = as_int(value)
    return n if n is not None and n >= 0 else None


def as_cost(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
        return float(value)
    return None


def add(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else a + b


class Builder:
    """Collects a transcript in order."""

    def __init__(self, fmt: str) -> None:
        self.fmt = fmt
        self.turns: list[Turn] = []
        self.calls: list[ToolCall] = []
        self._by_id: dict[str, int] = {}

    def call(self, name: str, arguments: Any, *, call_id: str | None = None,
             output: str | None = None, exit_code: int | None = None,
             error: bool | None = None) -> int:
        """Record a tool call; its index."""
        self.calls.append(tool_call(name or "?", arguments_of(arguments), output,
                                    exit_code, error, call_id))
        index = len(self.calls) - 1  # one int object for both (a long session)
        if call_id:
            self._by_id[call_id] = index
        return index

    def result(self, call_id: str | None, output: str | None, *, exit_code: int | None = None,
               error: bool | None = None) -> bool:
        """Attach what came back to the call ``call_id``; False when there is no such call."""
        index = self._by_id.get(call_id) if call_id else None
        if index is None:
            return False
        call = self.calls[index]  # changed in place: no copy of each call (a long session)
        call.output = output if call.output is None else call.output + "\n" + (output or "")
        if exit_code is not None:
            call.exit_code = exit_code
        if error is not None:
            call.error = error
        return True

    def result_at(self, index: int, output: str | None, exit_code: int | None) -> None:
        """Attach what came back to the call at ``index`` (calls without ids)."""
        call = self.calls[index]
        call.output, call.exit_code = output, exit_code

    def attach_to_last_turn(self, index: int) -> None:
        """Count call ``index`` as made by the last assistant message (one is opened when the
        call came first)."""
        if not self.turns or self.turns[-1].role != "assistant":
            self.turns.append(turn("assistant", "", []))
        self.turns[-1].tool_calls.append(index)

    def set_exit_code(self, call_id: str, exit_code: int) -> None:
        """Record ``exit_code`` for the call ``call_id`` where its output gave none."""
        index = self._by_id.get(call_id)
        if index is not None and self.calls[index].exit_code is None:
            self.calls[index].exit_code = exit_code

    def extend_last(self, text: str, calls: list[int]) -> None:
        """Add ``text`` and ``calls`` to the last turn (one message written in parts)."""
        last = self.turns[-1]
        last.text = "\n".join(t for t in (last.text, text) if t)
        last.tool_calls.extend(calls)

    def say(self, role: Role, text: str, calls: list[int] | None = None) -> None:
        if text or calls:
            self.turns.append(turn(role, text, calls or []))

    def last_assistant_text(self) -> str | None:
        for turn in reversed(self.turns):
            if turn.role == "assistant" and turn.text.strip():
                return turn.text
        return None

    def finish(self, **fields: Any) -> Transcript:
        patch = fields.get("patch")
        if patch and "patch_files" not in fields:
            fields["patch_files"] = files_touched(patch, exclude=())
        if "final_message" not in fields:
            fields["final_message"] = self.last_assistant_text()
        return Transcript(format=self.fmt, turns=self.turns, tool_calls=self.calls, **fields)





def relative_path(path: str, root: str) -> str:
    """``path`` relative to the directory ``root`` when it lies under it, else as it is."""
    base = root.rstrip("/")
    return path[len(base) + 1:] if base and path.startswith(base + "/") else path


def relative_patch_files(t: Transcript, *, cwd: str | None = None,
                         diff_files: Sequence[str] = ()) -> Transcript:
    """``t`` with its absolute ``patch_files`` made relative to the session's working
    directory, for a file that does not record it (Codex's ``exec`` JSON stream): ``cwd``
    where the caller knows it (the runner's workspace), else the directory that puts one of
    them at a path of ``diff_files`` (the files of the result's own diff). ``t`` itself
    when nothing is absolute or no root is found."""
    absolute = [f for f in t.patch_files if f.startswith("/")]
    if not absolute:
        return t
    root = cwd
    if root is None:
        for f in absolute:
            for d in diff_files:
                if d and not d.startswith("/") and f.endswith("/" + d):
                    root = f[: -len(d) - 1]
                    break
            if root is not None:
                break
    if not root:
        return t
    files = list(dict.fromkeys(relative_path(f, root) for f in t.patch_files))
    return t.model_copy(update={"patch_files": files})


def seconds_between(first: Any, last: Any) -> float | None:
    """Seconds from ``first`` to ``last``: epoch numbers or ISO 8601 strings."""
    from datetime import datetime

    def when(value: Any) -> float | None:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, str):
            try:
                return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
            except ValueError:
                return None
        return None

    a, b = when(first), when(last)
    return round(b - a, 3) if a is not None and b is not None and b >= a else None
__all__ = ["Builder", "add", "arguments_of", "as_cost", "as_count", "as_int", "obj",
           "relative_patch_files", "relative_path", "seconds_between", "text_of"]
