"""Prompt caching: a request's stable prefix, the order its group is sent in, and what a
run costs with and without the cache.

Every request is laid out as a stable prefix (the tool or response-format schema, the
system part, then ``prompt[:shared]``: task, reference, code context, audit materials)
followed by the part that varies within its group (the two solutions in their order, a
sample's note). Anthropic's API (also on Bedrock and Vertex) caches a prefix that ends in
a block marked ``cache_control``; OpenAI caches shared prefixes by itself, and so do
llama.cpp's and vLLM's prefix caches. A prefix is only cached from a model's minimum
length on (:func:`min_cacheable_tokens`), and only once the first request that carries it
has been answered: the first request of a group goes out alone, the others after it
(:func:`warm_keys`).

The dry-run estimate follows the same rules (:class:`PrefixLedger`); the cost of a real
run follows the server's own usage figures, never these estimates.

Example:
    >>> from judgekit.engine.types import JudgeRequest
    >>> ledger = PrefixLedger(min_tokens=10)
    >>> first = JudgeRequest("k1", "S" * 80, "T" * 80 + "one", {}, shared=80)
    >>> second = JudgeRequest("k2", "S" * 80, "T" * 80 + "two", {}, shared=80)
    >>> ledger.usage(first, 100, 5).cache_write_tokens, ledger.usage(second, 100, 5).cache_read_tokens
    (41, 41)
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from judgekit.engine.structured import canonical_json
from judgekit.engine.tokens import estimate_tokens
from judgekit.engine.types import JudgeRequest, Usage

#: the shortest prefix most models cache (Anthropic's minimum; OpenAI's too).
MIN_CACHEABLE_TOKENS = 1_024
#: Anthropic models with a longer minimum (their documentation's table), by name prefix.
_LONGER_MINIMUM = (("claude-opus-4-5", 4_096), ("claude-haiku-4-5", 4_096),
                   ("claude-3-5-haiku", 2_048), ("claude-3-haiku", 2_048))


def min_cacheable_tokens(model_name: str) -> int:
    """The fewest tokens a prefix must have for ``model_name``'s server to cache it."""
    for prefix, tokens in _LONGER_MINIMUM:
        if prefix in model_name:  # also a Bedrock or Vertex id (anthropic.claude-...)
            return tokens
    return MIN_CACHEABLE_TOKENS


@dataclass(frozen=True)
class Breakpoint:
    """The end of a cacheable prefix: its identity and its estimated tokens."""

    key: str
    tokens: int


def breakpoints(req: JudgeRequest) -> list[Breakpoint]:
    """The prefixes of ``req`` a server may cache: the schema and system part, then those
    and ``req.prefix`` (when the prompt has a shared part)."""
    schema = canonical_json(req.schema)
    head = hashlib.sha256(f"{req.name}\x00{schema}\x00{req.system}".encode()).hexdigest()
    tokens = estimate_tokens(schema) + estimate_tokens(req.system)
    points = [Breakpoint(head, tokens)] if req.system else []
    if req.shared > 0:
        key = hashlib.sha256(f"{head}\x00{req.prefix}".encode()).hexdigest()
        points.append(Breakpoint(key, tokens + estimate_tokens(req.prefix)))
    return points


def warm_keys(req: JudgeRequest, min_tokens: int) -> list[str]:
    """The prefixes of ``req`` long enough to be cached, shortest first: the first request
    to carry one goes out alone, and the others carrying it wait for its answer."""
    return [b.key for b in breakpoints(req) if b.tokens >= min_tokens]


class PrefixLedger:
    """The prefixes a run has sent so far, to estimate each request's cache reads and
    writes the way the server would count them."""

    def __init__(self, min_tokens: int = MIN_CACHEABLE_TOKENS) -> None:
        self.min_tokens = min_tokens
        self._seen: set[str] = set()

    def usage(self, req: JudgeRequest, input_tokens: int, output_tokens: int) -> Usage:
        """``input_tokens`` of ``req`` split into uncached input, cache reads (the longest
        prefix sent before) and cache writes (the rest of its longest cacheable prefix)."""
        points = [b for b in breakpoints(req) if b.tokens >= self.min_tokens]
        read = max((b.tokens for b in points if b.key in self._seen), default=0)
        top = max((b.tokens for b in points), default=0)
        self._seen.update(b.key for b in points)
        read = min(read, input_tokens)
        write = min(max(0, top - read), input_tokens - read)
        return Usage(input_tokens=input_tokens - read - write, output_tokens=output_tokens,
                     cache_read_tokens=read, cache_write_tokens=write)
