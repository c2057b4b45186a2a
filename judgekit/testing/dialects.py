"""How self-hosted OpenAI-compatible servers differ, played by the fake API: which
structured-output modes they accept (and how they refuse the others), how they report
their context window and slots, how they count tokens, and how they refuse a prompt over
the window. Each preset follows the real server's documented behaviour.

Example:
    >>> d = Dialect.llama_cpp_python(n_ctx=100)
    >>> d.refusal({"messages": [{"role": "user", "content": "x" * 40}],
    ...            "response_format": {"type": "json_schema"}})[0]
    500
    >>> d.refusal({"messages": [{"role": "user", "content": "x" * 800}],
    ...            "response_format": {"type": "json_object"}})[0]
    400
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any


@dataclass
class Dialect:
    """One server's behaviour.

    Attributes:
        name: which server it plays.
        modes: ``response_format`` types accepted (``"guided_json"``: vLLM's field).
        reject_status: the status of a refused mode (llama-cpp-python answers 500 with a
            validation error; most others 400).
        context_window: tokens of prompt the model takes (``None``: no limit).
        chars_per_token: how the fake tokenizer counts.
        window_at: where the window is reported: ``"props"``, ``"models"``, ``"lmstudio"``,
            ``"ollama"`` or ``None`` (not reported).
        slots: requests served at once, reported at ``/props`` when ``window_at`` is
            ``"props"``.
        tokenizer: ``"llama-cpp-python"``, ``"llama.cpp"``, ``"vllm"`` or ``None``.
        context_message: the wording of a too-long refusal (``{n}`` prompt tokens,
            ``{ctx}`` the window).
    """

    name: str = "openai"
    modes: tuple[str, ...] = ("json_schema", "json_object", "text")
    reject_status: int = 400
    context_window: int | None = None
    chars_per_token: float = 4.0
    window_at: str | None = None
    slots: int | None = None
    tokenizer: str | None = None
    context_message: str = ("This model's maximum context length is {ctx} tokens. However, "
                            "your messages resulted in {n} tokens.")

    @classmethod
    def llama_cpp_python(cls, n_ctx: int = 6144) -> Dialect:
        return cls("llama-cpp-python", ("json_object", "text"), 500, n_ctx,
                   tokenizer="llama-cpp-python",
                   context_message="This model's maximum context length is {ctx} tokens. "
                                   "However, you requested {n} tokens ({n} in the messages, "
                                   "0 in the completion). Please reduce the length of the "
                                   "messages or completion.")

    @classmethod
    def llama_server(cls, n_ctx: int = 8192, slots: int = 4) -> Dialect:
        return cls("llama.cpp", ("json_schema", "json_object", "text"), 400, n_ctx,
                   window_at="props", slots=slots, tokenizer="llama.cpp",
                   context_message="the request exceeds the available context size, try "
                                   "increasing it")

    @classmethod
    def vllm(cls, max_model_len: int = 4096, *, json_schema: bool = False) -> Dialect:
        modes = ("json_schema", "guided_json", "text") if json_schema else ("guided_json", "text")
        return cls("vllm", modes, 400, max_model_len, window_at="models", tokenizer="vllm",
                   context_message="This model's maximum context length is {ctx} tokens. "
                                   "However, you requested {n} tokens in the messages.")

    @classmethod
    def ollama(cls, num_ctx: int = 4096) -> Dialect:
        return cls("ollama", ("json_schema", "json_object", "text"), 400, num_ctx,
                   window_at="ollama")

    @classmethod
    def lmstudio(cls, ctx: int = 4096) -> Dialect:
        return cls("lmstudio", ("json_schema", "text"), 400, ctx, window_at="lmstudio")

    # -- what the fake does with it ---------------------------------------------------
    def tokens(self, text: str) -> int:
        return math.ceil(len(text) / self.chars_per_token)

    def prompt_tokens(self, body: dict[str, Any]) -> int:
        messages = body.get("messages") or []
        return sum(self.tokens(str(m.get("content") or "")) + 4 for m in messages
                   if isinstance(m, dict))

    def mode_of(self, body: dict[str, Any]) -> str:
        if "guided_json" in body:
            return "guided_json"
        fmt = body.get("response_format")
        if isinstance(fmt, dict):
            return str(fmt.get("type"))
        return "tools" if body.get("tools") else "text"

    def refusal(self, body: dict[str, Any]) -> tuple[int, str] | None:
        """``(status, message)`` when this server refuses the request, else ``None``."""
        mode = self.mode_of(body)
        if mode not in self.modes and mode != "tools":
            if self.reject_status == 500:
                return 500, (f"1 validation error for CreateChatCompletionRequest\n"
                             f"response_format.type\n  Input should be 'text' or "
                             f"'json_object' [type=literal_error, input_value='{mode}']")
            return 400, f"response_format type {mode!r} is not supported by this server"
        n = self.prompt_tokens(body)
        if self.context_window is not None and n >= self.context_window:
            return 400, self.context_message.format(n=n, ctx=self.context_window)
        return None

    def info(self, method: str, path: str, body: dict[str, Any] | None,
             model: str) -> dict[str, Any] | None:
        """The answer to a capability or tokenizer endpoint, ``None`` when it has none."""
        text = ""
        if isinstance(body, dict):
            text = str(body.get("input") or body.get("content") or body.get("prompt") or "")
        if method == "GET" and path == "/props" and self.window_at == "props":
            return {"default_generation_settings": {"n_ctx": self.context_window},
                    "total_slots": self.slots}
        if method == "GET" and path == "/v1/models":
            entry: dict[str, Any] = {"id": model, "object": "model",
                                     "owned_by": "me" if self.name == "llama-cpp-python"
                                     else self.name}
            if self.window_at == "models":
                entry["max_model_len"] = self.context_window
            return {"object": "list", "data": [entry]}
        if method == "GET" and path == "/api/v0/models" and self.window_at == "lmstudio":
            return {"data": [{"id": model, "loaded_context_length": self.context_window}]}
        if method == "POST" and path == "/api/show" and self.window_at == "ollama":
            return {"parameters": f"num_ctx {self.context_window}", "model_info": {}}
        if method == "POST" and path == "/extras/tokenize/count" and (
                self.tokenizer == "llama-cpp-python"):
            return {"count": self.tokens(text)}
        if method == "POST" and path == "/tokenize" and self.tokenizer == "llama.cpp":
            return {"tokens": list(range(self.tokens(text)))}
        if method == "POST" and path == "/tokenize" and self.tokenizer == "vllm":
            n = self.tokens(text)
            return {"count": n, "max_model_len": self.context_window,
                    "tokens": list(range(n))}
        return None
