"""Anthropic Messages API (direct, on AWS Bedrock, on Google Vertex): verdicts through a
forced tool call, the stable prefix cached.

With prompt caching on (the default), the system part and the shared part of the prompt
(``req.prefix``) each end in a block marked ``cache_control``: the tool definition, the
system part and that prefix are then read from the cache by every other request of the
group (see :mod:`judgekit.engine.prompt_cache`).

Bedrock and Vertex use the SDK's own clients, which find AWS and Google credentials the
usual way (``AWS_*`` variables or profiles; application-default credentials or
``ANTHROPIC_VERTEX_ACCESS_TOKEN``); ``AWS_REGION`` / ``CLOUD_ML_REGION`` and
``ANTHROPIC_VERTEX_PROJECT_ID`` say where.

Example:
    >>> from judgekit.engine.config import EngineConfig
    >>> p = AnthropicProvider(EngineConfig(model="anthropic:claude-haiku-4-5"),
    ...                       api_key="k", base_url="http://127.0.0.1:9")
    >>> p.params()["max_tokens"]
    2048
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, TypeAlias

import anthropic

from judgekit.engine.settings import ProviderSettings
from judgekit.engine.modes import Mode
from judgekit.engine.providers import (
    PLACEHOLDER_KEY,
    ClientPool,
    Completion,
    answer_json,
    params_for,
    reask_text,
    shared_ssl_context,
    token_count,
)
from judgekit.engine.structured import extract_json
from judgekit.engine.transport import bounded_transport
from judgekit.engine.urls import ClientOptions, client_url
from judgekit.engine.types import JudgeRequest, Usage

_TOOL_DESCRIPTION = "Submit the verdict object."


def _marker() -> dict[str, str]:
    """``cache_control`` of a block that ends a cacheable prefix."""
    return {"type": "ephemeral"}


class AnthropicProvider:
    name = "anthropic"

    def __init__(self, config: ProviderSettings, *, api_key: str, base_url: str | None,
                 route: Literal["direct", "bedrock", "vertex"] = "direct") -> None:
        config = config.settled()
        self.model = config.model_name
        self._params = params_for(config)
        self._max_tokens = config.max_tokens
        self._cache = config.prompt_cache
        self.pool = ClientPool(lambda: _client(route, api_key, base_url, config),
                               config.concurrency or 1)
        self.client = self.pool.first

    def params(self) -> dict[str, Any]:
        return dict(self._params)

    def start(self, req: JudgeRequest, mode: Mode = "tool") -> list[dict[str, Any]]:
        return [{"role": "user", "content": self._content(req)}]

    def _content(self, req: JudgeRequest) -> str | list[dict[str, Any]]:
        """The prompt: its shared part as a block marked cacheable, then the rest."""
        head, tail = req.prefix, req.prompt[len(req.prefix):]
        if not self._cache or not head.strip():
            return req.prompt
        if not tail.strip():  # the API refuses a block of nothing but white space
            return [{"type": "text", "text": req.prompt, "cache_control": _marker()}]
        return [{"type": "text", "text": head, "cache_control": _marker()},
                {"type": "text", "text": tail}]

    def _body(self, req: JudgeRequest, messages: list[dict[str, Any]],
              max_tokens: int | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": max_tokens or self._max_tokens,
            "messages": messages,
            "tools": [{"name": req.name, "description": _TOOL_DESCRIPTION,
                       "input_schema": req.schema}],
            "tool_choice": {"type": "tool", "name": req.name},
        }
        if req.system:
            block: dict[str, Any] = {"type": "text", "text": req.system}
            if self._cache:
                block["cache_control"] = _marker()
            body["system"] = [block]
        return body

    async def complete(self, req: JudgeRequest, messages: list[dict[str, Any]], *,
                       mode: Mode = "tool", max_tokens: int | None = None) -> Completion:
        raw = await self.pool.next().messages.with_raw_response.create(
            **self._body(req, messages, max_tokens))
        return parse_message(await answer_json(raw, "Messages", "content"))

    def follow_up(self, req: JudgeRequest, completion: Completion,
                  problems: list[str]) -> list[dict[str, Any]]:
        text = reask_text(problems, tool_name=req.name)
        if completion.tool_call_id:
            user: Any = [{"type": "tool_result", "tool_use_id": completion.tool_call_id,
                          "content": text, "is_error": True}]
        else:
            user = text
        return [completion.assistant, {"role": "user", "content": user}]

    # -- Message Batches ----------------------------------------------------------
    def batch_entry(self, req: JudgeRequest, custom_id: str) -> dict[str, Any]:
        return {"custom_id": custom_id, "params": self._body(req, self.start(req))}

    async def submit_batch(self, entries: list[dict[str, Any]]) -> str:
        batch = await self.client.messages.batches.create(requests=entries)  # type: ignore[arg-type]
        return str(batch.id)

    async def batch_status(self, batch_id: str) -> str:
        batch = await self.client.messages.batches.retrieve(batch_id)
        return "ended" if batch.processing_status == "ended" else "pending"

    async def batch_results(self, batch_id: str) -> dict[str, Completion | str]:
        out: dict[str, Completion | str] = {}
        decoder = await self.client.messages.batches.results(batch_id)
        async for entry in decoder:
            result = entry.result
            if result.type == "succeeded":
                out[entry.custom_id] = parse_message(result.message.model_dump())
            else:
                out[entry.custom_id] = f"batch request {result.type}"
        return out

    async def aclose(self) -> None:
        await self.pool.aclose()


def anthropic_client(config: ProviderSettings, key: str,
                 base_url: str | None) -> AnthropicProvider:
    """The client of the Anthropic API (the registry's factory of ``anthropic:``)."""
    return AnthropicProvider(config, api_key=key, base_url=base_url)


def bedrock_client(config: ProviderSettings, key: str,
                 base_url: str | None) -> AnthropicProvider:
    """Anthropic on AWS Bedrock (``bedrock:``)."""
    return AnthropicProvider(config, api_key=key, base_url=base_url, route="bedrock")


def vertex_client(config: ProviderSettings, key: str,
                 base_url: str | None) -> AnthropicProvider:
    """Anthropic on Google Vertex (``vertex:``)."""
    return AnthropicProvider(config, api_key=key, base_url=base_url, route="vertex")


if TYPE_CHECKING:
    #: the SDK client of each route (named for the checker only: the Bedrock and Vertex
    #: clients are imported when first used)
    _Client: TypeAlias = (anthropic.AsyncAnthropic | anthropic.AsyncAnthropicBedrock
                          | anthropic.AsyncAnthropicVertex)


class _HttpOptions(ClientOptions):
    """The options every route's SDK client is given."""

    max_retries: int
    timeout: float | None
    http_client: anthropic.DefaultAsyncHttpxClient


def _client(route: str, api_key: str, base_url: str | None,
            config: ProviderSettings) -> _Client:
    http: _HttpOptions = {
        "max_retries": 0, "timeout": config.timeout,
        "http_client": anthropic.DefaultAsyncHttpxClient(
            transport=bounded_transport(anthropic.DefaultAsyncHttpxClient,
                                        shared_ssl_context()))}
    base_url = client_url(base_url, http)
    if route == "bedrock":
        token = None if api_key == PLACEHOLDER_KEY else api_key
        return anthropic.AsyncAnthropicBedrock(base_url=base_url, api_key=token, **http)
    if route == "vertex":
        token = None if api_key == PLACEHOLDER_KEY else api_key
        return anthropic.AsyncAnthropicVertex(base_url=base_url, access_token=token, **http)
    return anthropic.AsyncAnthropic(api_key=api_key, base_url=base_url, **http)


def parse_message(message: dict[str, Any]) -> Completion:
    """A :class:`Completion` from an Anthropic ``Message`` as JSON."""
    verdict: dict[str, Any] | None = None
    tool_id: str | None = None
    texts: list[str] = []
    content: list[dict[str, Any]] = []
    blocks = message.get("content")
    for block in blocks if isinstance(blocks, list) else []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "tool_use":
            content.append({"type": "tool_use", "id": block.get("id"), "name": block.get("name"),
                            "input": block.get("input")})
            if tool_id is None:
                tool_id = block.get("id")
                verdict = block.get("input") if isinstance(block.get("input"), dict) else None
        elif kind == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
            if block["text"]:
                content.append({"type": "text", "text": block["text"]})
    text = "\n".join(texts)
    problem = None
    if verdict is None:
        verdict = extract_json(text)
        if verdict is None:
            problem = "no verdict: the answer holds neither a tool call nor a JSON object"
    if message.get("stop_reason") == "max_tokens" and verdict is None:
        problem = "the answer was cut off at max_tokens"
    if not content:
        content = [{"type": "text", "text": "(empty answer)"}]
    u = message.get("usage")
    u = u if isinstance(u, dict) else {}
    usage = Usage(
        input_tokens=token_count(u.get("input_tokens")),
        output_tokens=token_count(u.get("output_tokens")),
        cache_read_tokens=token_count(u.get("cache_read_input_tokens")),
        cache_write_tokens=token_count(u.get("cache_creation_input_tokens")),
    )
    return Completion(verdict=verdict, text=text, usage=usage,
                      assistant={"role": "assistant", "content": content},
                      tool_call_id=tool_id, parse_problem=problem)
