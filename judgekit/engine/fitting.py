"""Fit every request into the judge model's context window, with room for the answer.

The window is known from the caller (``EngineConfig.context_window``), the server
itself, the table of hosted models, or learnt from the server's own context-length error
(see :mod:`judgekit.engine.serving`). Prompt tokens are counted by the server's tokenizer where
it has one, else estimated on the safe side (:data:`SAFE_CHARS_PER_TOKEN`, tightened by
what a context-length error reveals). A request over its budget is rebuilt by its own
``fit`` (the caller's rule: whole diff hunks, condensed materials) to a smaller size;
one that cannot fit even then is not sent.

Example:
    >>> w = Window(tokens=6144, source="set by the caller", max_tokens=2048)
    >>> w.answer_tokens, w.prompt_budget
    (1024, 5056)
    >>> Window(tokens=None, source=None, max_tokens=2048).prompt_budget is None
    True
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from judgekit.engine.types import JudgeRequest

#: characters a token covers at least, for text whose tokens are estimated, not counted
#: (code and diffs run 3 to 4 characters a token in BPE vocabularies).
SAFE_CHARS_PER_TOKEN = 2.5
#: tokens kept free for the chat template (role markers) around the messages.
TEMPLATE_TOKENS = 64
#: the answer's share of a small window: ``max_tokens`` is at most a sixth of it.
ANSWER_SHARE = 6
MIN_ANSWER_TOKENS = 256
#: tries at refitting one request before it is skipped.
FIT_ROUNDS = 4


@dataclass
class Window:
    """A judge model's context window and the share of it kept for the answer."""

    tokens: int | None
    source: str | None
    max_tokens: int
    chars_per_token: float = SAFE_CHARS_PER_TOKEN

    @property
    def answer_tokens(self) -> int:
        """``max_tokens`` sent: the config's, or a sixth of a small window."""
        if self.tokens is None:
            return self.max_tokens
        return max(MIN_ANSWER_TOKENS, min(self.max_tokens, self.tokens // ANSWER_SHARE))

    @property
    def prompt_budget(self) -> int | None:
        """Tokens the messages may take (``None``: no window known)."""
        if self.tokens is None:
            return None
        return self.tokens - self.answer_tokens - TEMPLATE_TOKENS

    def learn(self, window: int | None, prompt_tokens: int | None, chars_sent: int,
              source: str) -> bool:
        """What a context-length error said: the window, and how many tokens the text sent
        really was. True when anything new was learnt."""
        new = False
        if window and (self.tokens is None or window < self.tokens):
            self.tokens, self.source, new = window, source, True
        if prompt_tokens and chars_sent:
            ratio = chars_sent / prompt_tokens * 0.95
            if ratio < self.chars_per_token:
                self.chars_per_token, new = ratio, True
        return new

    def estimate(self, text: str) -> int:
        return int(len(text) / self.chars_per_token) + 1


Counter = Callable[[str], Awaitable[int]]


def request_text(req: JudgeRequest, extra: str = "") -> str:
    """The text of a request's messages, as the tokenizer sees it."""
    return f"{req.system}\n{req.prompt}{extra}"


async def fit_request(req: JudgeRequest, budget: int, count: Counter,
                      extra: Callable[[JudgeRequest], str]) -> tuple[JudgeRequest | None, int]:
    """``req`` itself when its messages take at most ``budget`` tokens, else a smaller
    version built by ``req.fit``; ``(None, tokens)`` when it cannot fit. ``extra`` is what
    the structured-output mode adds to the prompt (the schema, in ``prompt`` mode)."""
    tokens = await count(request_text(req, extra(req)))
    if tokens <= budget:
        return req, tokens
    if req.fit is None:
        return None, tokens
    current = req
    for _ in range(FIT_ROUNDS):
        size = len(current.system) + len(current.prompt)
        target = int(size * budget / max(tokens, 1) * 0.97)
        smaller = req.fit(target)
        if smaller is None:
            return None, tokens
        tokens = await count(request_text(smaller, extra(smaller)))
        if tokens <= budget:
            return smaller, tokens
        if len(smaller.system) + len(smaller.prompt) >= size:
            return None, tokens  # the rule cannot cut any further
        current = smaller
    return None, tokens
