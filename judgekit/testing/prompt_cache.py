"""The fake API's Anthropic prompt cache: reads and writes of ``cache_control`` prefixes.

It counts as Anthropic's API does: a request's prompt is its tools, its system blocks and
its messages' content blocks, in that order; a block marked ``cache_control`` ends a
cacheable prefix (a breakpoint). The longest breakpoint prefix already in the cache is
read (``cache_read_input_tokens``); the part of the longest breakpoint prefix beyond it is
written (``cache_creation_input_tokens``); the rest is plain input. A prefix shorter than
``min_tokens`` is never cached, and a prefix written by a request can be read only once
that request has been answered: two requests sent together both write it.

Tokens are counted as a quarter of the characters of each block, rounded up.

:class:`AutoPrefixCache` plays OpenAI's automatic prompt caching instead: no marker, the
longest prefix of the prompt seen before is read, from 1,024 tokens on, in steps of 128.

Example:
    >>> sim = PromptCache(min_tokens=2)
    >>> marked = {"type": "text", "text": "x" * 40, "cache_control": {"type": "ephemeral"}}
    >>> body = {"system": [marked], "messages": [{"role": "user", "content": "abcd"}]}
    >>> sim.usage(body), sim.usage(body)
    ((1, 0, 10), (1, 10, 0))
"""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any


def _tokens(text: str) -> int:
    return -(-len(text) // 4)


def _blocks(body: dict[str, Any]) -> list[tuple[str, str, bool]]:
    """``(role, text, marked)`` of every block of the prompt, in the API's order."""
    out: list[tuple[str, str, bool]] = []
    tools = body.get("tools")
    if tools:
        marked = any(isinstance(t, dict) and t.get("cache_control") for t in tools)
        out.append(("tools", json.dumps(tools, sort_keys=True), marked))
    system = body.get("system")
    if isinstance(system, str) and system:
        out.append(("system", system, False))
    for block in system if isinstance(system, list) else []:
        if isinstance(block, dict):
            out.append(("system", str(block.get("text", "")), bool(block.get("cache_control"))))
    for message in body.get("messages") or []:
        role = str(message.get("role", ""))
        content = message.get("content")
        if isinstance(content, str):
            out.append((role, content, False))
            continue
        for block in content or []:
            if not isinstance(block, dict):
                continue
            text = block["text"] if block.get("type") == "text" else json.dumps(
                {k: v for k, v in block.items() if k != "cache_control"}, sort_keys=True)
            out.append((role, str(text), bool(block.get("cache_control"))))
    return out


class PromptCache:
    """The cache of one fake server (see the module docstring)."""

    def __init__(self, min_tokens: int = 0) -> None:
        self.min_tokens = min_tokens
        #: prefix hash -> the monotonic time from which it can be read.
        self._ready: dict[str, float] = {}

    def usage(self, body: dict[str, Any], answered_in: float = 0.0) -> tuple[int, int, int]:
        """``(input_tokens, cache_read_input_tokens, cache_creation_input_tokens)`` of a
        request answered ``answered_in`` seconds from now."""
        digest = hashlib.sha256(str(body.get("model", "")).encode())
        total = 0
        points: list[tuple[str, int]] = []
        for role, text, marked in _blocks(body):
            digest.update(f"\x00{role}\x00{text}".encode())
            total += _tokens(text)
            if marked and total >= self.min_tokens:
                points.append((digest.copy().hexdigest(), total))
        now = time.monotonic()
        read = max((t for key, t in points if self._ready.get(key, now + 1) <= now), default=0)
        top = max((t for _, t in points), default=0)
        write = max(0, top - read)
        for key, t in points:
            if t > read:
                self._ready[key] = min(self._ready.get(key, float("inf")), now + answered_in)
        return total - read - write, read, write


#: OpenAI's automatic caching: the shortest prefix it keeps, and the step it grows by.
AUTO_MIN_TOKENS = 1_024
AUTO_STEP_TOKENS = 128


def _openai_text(body: dict[str, Any]) -> str:
    """A Chat Completions request as the text its prefix cache sees: schemas and tools,
    then each message's role and content."""
    parts = [json.dumps(body.get("tools"), sort_keys=True),
             json.dumps(body.get("response_format"), sort_keys=True)]
    for message in body.get("messages") or []:
        content = message.get("content")
        text = content if isinstance(content, str) else json.dumps(content, sort_keys=True)
        parts.append(f"\x00{message.get('role', '')}\x00{text}")
    return "".join(parts)


def openai_tokens(body: dict[str, Any]) -> int:
    """The prompt tokens of a Chat Completions request, counted as the cache counts them."""
    return _tokens(_openai_text(body))


class AutoPrefixCache:
    """OpenAI's automatic prefix caching, as the fake API plays it (opt-in).

    Example:
        >>> sim = AutoPrefixCache()
        >>> body = {"messages": [{"role": "user", "content": "x" * 8000}]}
        >>> sim.cached_tokens(body), sim.cached_tokens(body)
        (0, 1920)
    """

    def __init__(self) -> None:
        self._ready: dict[str, float] = {}

    def cached_tokens(self, body: dict[str, Any], answered_in: float = 0.0) -> int:
        text = _openai_text(body)
        digest = hashlib.sha256(str(body.get("model", "")).encode())
        now = time.monotonic()
        read, at = 0, 0
        tokens = AUTO_MIN_TOKENS
        while tokens * 4 <= len(text):
            digest.update(text[at:tokens * 4].encode())
            at = tokens * 4
            key = digest.copy().hexdigest()
            if self._ready.get(key, now + 1) <= now:
                read = tokens
            else:
                self._ready[key] = min(self._ready.get(key, float("inf")), now + answered_in)
            tokens += AUTO_STEP_TOKENS
        return read
