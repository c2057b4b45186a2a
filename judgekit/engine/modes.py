"""How a verdict is asked of an OpenAI-compatible server: the strongest structured-output
mode it accepts, found by asking, never assumed.

The ladder, strongest first:

1. ``json_schema``: ``response_format={"type": "json_schema", ...}`` (OpenAI, vLLM, Ollama,
   LM Studio, llama.cpp's own server);
2. ``json_object``: JSON mode constrained by the schema (``{"type": "json_object",
   "schema": ...}``: llama-cpp-python, llama.cpp; vLLM's ``guided_json``);
3. ``prompt``: the schema written into the prompt, the verdict extracted from the text and
   repaired by re-asking.

A request refused *because of its mode* (HTTP 400, 422 or 500 whose message is about the
response format, a validation error or an unsupported parameter, and not about the
prompt's length) is an answer about the server,
not a transient fault: the engine steps down at once and never sends the refused request
again. Until a mode has been answered once, requests go one at a time, so a server that
refuses a mode sees that mode once.

Example:
    >>> ladder = ModeLadder.start("auto", confirmed=False)
    >>> ladder.current
    'json_schema'
    >>> ladder.step_down("json_schema", "HTTP 500: validation error"), ladder.current
    (True, 'json_object')
    >>> context_limit("This model's maximum context length is 6144 tokens. However, you "
    ...               "requested 9000 tokens (8000 in the messages, 1000 in the completion).")
    (6144, 8000)
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Literal

Mode = Literal["json_schema", "json_object", "prompt", "tool"]
Choice = Literal["auto", "json_schema", "json_object", "prompt"]
LADDER: tuple[Mode, ...] = ("json_schema", "json_object", "prompt")
CHOICES: tuple[Choice, ...] = ("auto", "json_schema", "json_object", "prompt")
#: how a mode, a window or a concurrency is found when the caller gave it: the source
#: summaries record beside ``auto``, ``cache``, ``provider``, the server's own word.
SET_BY_CALLER = "set by the caller"

_CONTEXT = re.compile(
    r"(?i)context(?:[ _]length|[ _]window|[ _]size)?|n_ctx|too long|too many tokens|"
    r"maximum (?:context|input)|exceeds? (?:the )?(?:available )?(?:context|max)")
_WINDOW_PATTERNS = (
    re.compile(r"(?i)maximum context length is (\d+) tokens"),
    re.compile(r"(?i)exceeds? context window of (\d+)"),
    re.compile(r"(?i)context (?:window|size|length) (?:of|is) (\d+)"),
    re.compile(r"(?i)n_ctx[^\d]{0,12}(\d+)"),
    re.compile(r"(?i)(\d+) maximum"),
    re.compile(r"(?i)max_model_len[^\d]{0,12}(\d+)"),
)
_PROMPT_PATTERNS = (
    re.compile(r"(?i)\((\d+) in the messages"),
    re.compile(r"(?i)requested tokens \((\d+)\)"),
    re.compile(r"(?i)prompt is too long: (\d+) tokens"),
    re.compile(r"(?i)your (?:prompt|messages?) (?:resulted in|has) (\d+) (?:input )?tokens"),
    re.compile(r"(?i)\((\d+)\) (?:exceeds|is longer)"),
)
_VALIDATION = re.compile(
    r"(?i)validation|response_format|response format|json_schema|json schema|json_object|"
    r"guided|grammar|not supported|"
    r"unsupported|unrecognized|unknown (?:field|parameter)|extra (?:fields|inputs) not permitted|"
    r"literal_error|input should be")


def is_context_error(status: int | None, message: str) -> bool:
    """A refusal because the request is longer than the model's window."""
    return status in (400, 413, 422, 500) and bool(_CONTEXT.search(message)) and (
        any(p.search(message) for p in _WINDOW_PATTERNS + _PROMPT_PATTERNS)
        or "context" in message.lower())


def context_limit(message: str) -> tuple[int | None, int | None]:
    """``(window, prompt_tokens)`` a context-length error states (``None`` where it does not)."""
    window = prompt = None
    for pattern in _WINDOW_PATTERNS:
        m = pattern.search(message)
        if m:
            window = int(m.group(1))
            break
    for pattern in _PROMPT_PATTERNS:
        m = pattern.search(message)
        if m:
            prompt = int(m.group(1))
            break
    return window, prompt


def is_mode_rejection(status: int | None, message: str) -> bool:
    """A refusal of the request's structured-output mode (not of its length)."""
    if status not in (400, 422, 500) or is_context_error(status, message):
        return False
    return bool(_VALIDATION.search(message))


def short_reason(message: str) -> str:
    """A server's refusal without the traceback some servers append (file paths of the
    server's machine), on one line, at most 300 characters."""
    for cut in ("Traceback", '  File "', "\n\n"):
        at = message.find(cut)
        if at > 0:
            message = message[:at]
    return " ".join(message.split())[:300]


@dataclass
class StepDown:
    """One mode the server refused, and what it said."""

    mode: Mode
    reason: str


@dataclass
class ModeLadder:
    """The mode in use, whether the server has answered in it, and the modes it refused.

    ``turn()`` yields the mode to send; until a mode is confirmed, only one request at a
    time holds a turn.
    """

    modes: tuple[Mode, ...]
    confirmed: bool = False
    source: str = "auto"
    stepped: list[StepDown] = field(default_factory=list)
    _at: int = 0
    _lock: asyncio.Lock | None = None

    @classmethod
    def start(cls, choice: Choice | Mode, *, confirmed: bool) -> ModeLadder:
        if choice == "auto":
            return cls(LADDER, confirmed=confirmed, source="auto")
        if choice == "tool":
            return cls(("tool",), confirmed=True, source="provider")
        return cls((choice,), confirmed=True, source=SET_BY_CALLER)

    @property
    def current(self) -> Mode:
        return self.modes[self._at]

    @property
    def last(self) -> bool:
        return self._at >= len(self.modes) - 1

    def resume(self, mode: Mode, stepped: list[StepDown]) -> None:
        """Start from a mode a previous run confirmed (the verdict cache keeps it)."""
        if mode in self.modes:
            self._at = self.modes.index(mode)
            self.confirmed = True
            self.stepped = list(stepped)
            self.source = "cache"

    def confirm(self, mode: Mode) -> None:
        if mode == self.current:
            self.confirmed = True

    def step_down(self, mode: Mode, reason: str) -> bool:
        """The server refused ``mode``: use the next one. False when none is left (or
        another request stepped down already, and the next mode is in use)."""
        if mode != self.current:
            return mode in self.modes and self.modes.index(mode) < self._at
        if self.last:
            return False
        self.stepped.append(StepDown(mode, short_reason(reason)))
        self._at += 1
        self.confirmed = False
        return True

    @contextlib.asynccontextmanager
    async def turn(self) -> AsyncIterator[Mode]:
        if self.confirmed:
            yield self.current
            return
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            yield self.current
