"""What the fake API answers: :class:`Reply` values and the JSON bodies built from them.

A responder is any callable ``(api, body) -> Reply`` where ``api`` is ``"anthropic"`` or
``"openai"`` and ``body`` the decoded request. It may also return a ``dict`` (a verdict)
or a ``str`` (raw answer text).

Example:
    >>> responder = scripted(Reply.fault(429, retry_after=0), Reply.ok({"winner": "A"}))
    >>> responder("anthropic", {}).status, responder("anthropic", {}).verdict
    (429, {'winner': 'A'})
"""

from __future__ import annotations

import itertools
import json
import random
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from judgekit.testing.prompt_cache import PromptCache


@dataclass
class Reply:
    """One scripted answer.

    Attributes:
        verdict: object returned through the structured route the request asked for
            (tool use, function call or JSON response format).
        text: raw answer text instead (e.g. prose with a fenced JSON block, or invalid JSON).
        status: HTTP status; not 200 makes an error answer in the API's error format.
        retry_after: seconds put in the ``retry-after`` header of an error answer.
        delay: seconds to wait before answering (added to the server's fixed latency).
        drop: close the connection without answering.
        usage: token counts overriding the computed ones (``input_tokens``,
            ``output_tokens``, ``cache_read_tokens``, ``cache_write_tokens``).
        message: error message of an error answer.
        body: the exact bytes of the answer instead of the API's JSON (a cut-off JSON
            document, a proxy's HTML page), sent with ``content_type``.
    """

    verdict: dict[str, Any] | None = None
    text: str | None = None
    status: int = 200
    retry_after: float | None = None
    delay: float = 0.0
    drop: bool = False
    usage: dict[str, int] = field(default_factory=dict)
    message: str | None = None
    body: str | None = None
    content_type: str = "application/json"

    @classmethod
    def ok(cls, verdict: dict[str, Any], **kw: Any) -> Reply:
        return cls(verdict=verdict, **kw)

    @classmethod
    def raw(cls, text: str, **kw: Any) -> Reply:
        return cls(text=text, **kw)

    @classmethod
    def fault(cls, status: int, retry_after: float | None = None, message: str | None = None) -> Reply:
        return cls(status=status, retry_after=retry_after, message=message)

    @classmethod
    def slow(cls, delay: float, verdict: dict[str, Any] | None = None) -> Reply:
        return cls(verdict=verdict, delay=delay)

    @classmethod
    def dropped(cls) -> Reply:
        return cls(drop=True)

    @classmethod
    def invalid_json(cls) -> Reply:
        return cls(text='{"winner": "A", "reason": ')

    @classmethod
    def malformed_body(cls) -> Reply:
        """HTTP 200 whose JSON document is cut off (the API's JSON itself is malformed)."""
        return cls(body='{"id": "msg_0001", "type": "message", "content": [{"type": "tool_u')

    @classmethod
    def html_page(cls, status: int = 200) -> Reply:
        """A proxy's or captive portal's HTML page where the API's JSON should be."""
        return cls(status=status, content_type="text/html; charset=utf-8",
                   body="<!DOCTYPE html><html><head><title>Sign in to the network</title>"
                        "</head><body><h1>Sign in</h1></body></html>")


Responder = Callable[[str, dict[str, Any]], Reply | dict[str, Any] | str]


def as_reply(value: Reply | dict[str, Any] | str | None, body: dict[str, Any]) -> Reply:
    if isinstance(value, Reply):
        reply = value
    elif isinstance(value, dict):
        reply = Reply(verdict=value)
    elif isinstance(value, str):
        reply = Reply(text=value)
    else:
        reply = Reply()
    if (reply.status == 200 and reply.verdict is None and reply.text is None and not reply.drop
            and reply.body is None):
        reply = replace(reply, verdict=example_for(schema_of(body) or {}))
    return reply


def scripted(*replies: Reply | dict[str, Any] | str, then: Responder | None = None) -> Responder:
    """A responder giving ``replies`` in order (one per model call), then ``then`` (default:
    an example verdict satisfying the request's schema)."""
    queue = list(replies)
    lock = threading.Lock()

    def respond(api: str, body: dict[str, Any]) -> Reply | dict[str, Any] | str:
        with lock:
            if queue:
                return queue.pop(0)
        return then(api, body) if then else Reply()

    return respond


def schema_of(body: dict[str, Any]) -> dict[str, Any] | None:
    """The verdict schema a request carries (tool input schema or response format)."""
    found: dict[str, Any] | None
    for tool in body.get("tools") or []:
        if "input_schema" in tool:
            found = tool["input_schema"]
            return found
        if "function" in tool:
            found = tool["function"].get("parameters")
            return found
    fmt = body.get("response_format") or {}
    guided = body.get("guided_json")
    if isinstance(guided, dict):  # vLLM's guided decoding
        return guided
    schema = fmt.get("schema")
    if fmt.get("type") == "json_object" and isinstance(schema, dict):
        return schema
    found = (fmt.get("json_schema") or {}).get("schema")
    if found is None:  # the schema written into the prompt ("prompt" mode)
        text = prompt_of(body)
        at = text.rfind("```json\n")
        if at >= 0:
            try:
                found = json.loads(text[at + 8:text.index("```", at + 8)])
            except ValueError:
                found = None
    return found


def prompt_of(body: dict[str, Any]) -> str:
    """Text of the first user turn of a request (where the per-item prompt is)."""
    for message in body.get("messages") or []:
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            return "".join(b.get("text", "") for b in content or [] if isinstance(b, dict))
    return ""


def example_for(schema: dict[str, Any]) -> Any:
    """A small instance of ``schema`` (first enum value, required properties, ``False``,
    ``"none"``, ...): the most modest answer, which passes judgekit's own verdict checks."""
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        if schema.get(key):
            return example_for(schema[key][0])
    kind = schema.get("type", "object" if "properties" in schema else "string")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        props = schema.get("properties", {})
        return {name: example_for(props.get(name, {})) for name in schema.get("required", props)}
    if kind == "array":
        return [example_for(schema.get("items", {}))] * schema.get("minItems", 0)
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    return "none".ljust(schema.get("minLength", 1), ".")


_ids = itertools.count(1)


def fault_mix(seed: int = 0, *, rate_limited: float = 0.15, server_error: float = 0.10,
              slow_gateway: float = 0.03, malformed: float = 0.10, retry_after: float = 0.5,
              slow_seconds: float = 1.0, then: Responder | None = None) -> Responder:
    """A responder failing a share of calls the way real APIs do (seeded): 429 with
    ``retry-after``, 500, a 504 after ``slow_seconds``, and a 200 whose JSON is cut off;
    every other call gets ``then`` (default: an example verdict)."""
    rng = random.Random(seed)
    lock = threading.Lock()

    def respond(api: str, body: dict[str, Any]) -> Reply | dict[str, Any] | str:
        with lock:
            roll = rng.random()
        if roll < rate_limited:
            return Reply.fault(429, retry_after=retry_after)
        roll -= rate_limited
        if roll < server_error:
            return Reply.fault(500)
        roll -= server_error
        if roll < slow_gateway:
            return Reply(status=504, delay=slow_seconds)
        roll -= slow_gateway
        if roll < malformed:
            return Reply.malformed_body()
        return then(api, body) if then else Reply()

    return respond


def anthropic_body(body: dict[str, Any], reply: Reply, cache: PromptCache,
                   answered_in: float = 0.0) -> dict[str, Any]:
    """An Anthropic ``Message`` for ``reply`` (tool use when a tool is forced), its usage
    counted by the server's prompt ``cache`` (answered ``answered_in`` seconds from now)."""
    choice = body.get("tool_choice") or {}
    n = next(_ids)
    if reply.verdict is not None and reply.text is None and choice.get("type") == "tool":
        content: list[dict[str, Any]] = [{"type": "tool_use", "id": f"toolu_{n:08d}",
                                          "name": choice.get("name"), "input": reply.verdict}]
        stop = "tool_use"
    else:
        text = reply.text if reply.text is not None else json.dumps(reply.verdict)
        content, stop = [{"type": "text", "text": text}], "end_turn"
    plain, read, write = cache.usage(body, answered_in)
    usage = {
        "input_tokens": max(1, plain),
        "output_tokens": max(1, len(json.dumps(content)) // 4),
        "cache_read_input_tokens": read, "cache_creation_input_tokens": write,
    }
    for ours, theirs in (("input_tokens", "input_tokens"), ("output_tokens", "output_tokens"),
                         ("cache_read_tokens", "cache_read_input_tokens"),
                         ("cache_write_tokens", "cache_creation_input_tokens")):
        if ours in reply.usage:
            usage[theirs] = reply.usage[ours]
    return {"id": f"msg_{n:08d}", "type": "message", "role": "assistant",
            "model": body.get("model", ""), "content": content, "stop_reason": stop,
            "stop_sequence": None, "usage": usage}


def openai_body(body: dict[str, Any], reply: Reply,
                prefix: tuple[int, int] | None = None) -> dict[str, Any]:
    """An OpenAI ``ChatCompletion`` for ``reply`` (a function call when one is forced);
    ``prefix``: ``(prompt tokens, cached tokens)`` of the simulated automatic prefix cache."""
    n = next(_ids)
    message: dict[str, Any] = {"role": "assistant", "content": None}
    forced = (body.get("tool_choice") or {}) if isinstance(body.get("tool_choice"), dict) else {}
    if reply.verdict is not None and reply.text is None and forced.get("type") == "function":
        message["tool_calls"] = [{"id": f"call_{n:08d}", "type": "function", "function": {
            "name": forced["function"]["name"], "arguments": json.dumps(reply.verdict)}}]
        finish = "tool_calls"
    else:
        message["content"] = reply.text if reply.text is not None else json.dumps(reply.verdict)
        finish = "stop"
    cached = reply.usage.get("cache_read_tokens", 0)
    prompt = reply.usage.get("input_tokens", max(1, len(json.dumps(body.get("messages"))) // 4))
    if prefix is not None and not reply.usage:
        prompt, cached = max(1, prefix[0] - prefix[1]), prefix[1]
    completion = reply.usage.get("output_tokens", max(1, len(json.dumps(message)) // 4))
    return {"id": f"chatcmpl-{n:08d}", "object": "chat.completion", "created": 1700000000,
            "model": body.get("model", ""),
            "choices": [{"index": 0, "message": message, "finish_reason": finish,
                         "logprobs": None}],
            "usage": {"prompt_tokens": prompt + cached, "completion_tokens": completion,
                      "total_tokens": prompt + cached + completion,
                      "prompt_tokens_details": {"cached_tokens": cached}}}


def error_body(api: str, reply: Reply) -> dict[str, Any]:
    kinds = {400: "invalid_request_error", 401: "authentication_error",
             403: "permission_error", 404: "not_found_error", 429: "rate_limit_error",
             529: "overloaded_error"}
    kind = kinds.get(reply.status, "api_error")
    message = reply.message or f"fake {kind}"
    if api == "anthropic":
        return {"type": "error", "error": {"type": kind, "message": message}}
    return {"error": {"message": message, "type": kind, "code": None, "param": None}}
