"""OpenAI Chat Completions (and compatible servers, and Azure OpenAI): the verdict through
the structured-output mode the engine chose (:mod:`judgekit.engine.modes`) or a forced
function call, with JSON-in-text as the fallback.

Example:
    >>> from judgekit.engine.config import EngineConfig
    >>> p = OpenAIProvider(EngineConfig(model="openai:gpt-4.1"), api_key="k",
    ...                    base_url="http://127.0.0.1:9/v1")
    >>> p.params()["route"]
    'auto'
    >>> p._body(JudgeRequest("k", "", "q", {"type": "object"}), [], mode="json_object",
    ...         max_tokens=100)["response_format"]
    {'type': 'json_object', 'schema': {'type': 'object'}}
"""

from __future__ import annotations

import json
from typing import Any

import openai

from judgekit.engine.settings import ProviderSettings
from judgekit.engine.modes import Mode
from judgekit.engine.providers import (
    ClientPool,
    Completion,
    answer_json,
    params_for,
    reask_text,
    schema_instruction,
    shared_ssl_context,
    token_count,
)
from judgekit.engine.structured import extract_json
from judgekit.engine.transport import bounded_transport
from judgekit.engine.urls import ClientOptions, client_url
from judgekit.engine.types import JudgeRequest, Usage

_REASONING_PREFIXES = ("o1", "o3", "o4", "gpt-5")
_PENDING = {"validating", "in_progress", "finalizing", "cancelling"}


class _HttpOptions(ClientOptions):
    """The options the SDK client is given."""

    api_key: str
    max_retries: int
    timeout: float | None
    http_client: openai.DefaultAsyncHttpxClient


def _azure_client(endpoint: str | None, deployment: str,
                  http: _HttpOptions) -> openai.AsyncAzureOpenAI:
    """An Azure client; with no endpoint, the SDK's own (``AZURE_OPENAI_ENDPOINT``)."""
    if endpoint is None:
        return openai.AsyncAzureOpenAI(azure_deployment=deployment, **http)
    return openai.AsyncAzureOpenAI(azure_endpoint=endpoint, azure_deployment=deployment,
                                   **http)


class OpenAIProvider:
    name = "openai"

    def __init__(self, config: ProviderSettings, *, api_key: str, base_url: str | None,
                 azure: bool = False) -> None:
        config = config.settled()
        self.model = config.model_name
        self._params = params_for(config)
        self._temperature = config.temperature
        self._max_tokens = config.max_tokens
        self._route = config.openai_route
        self._reasoning = self.model.startswith(_REASONING_PREFIXES)
        self._vllm = config.provider == "vllm"
        http: _HttpOptions = {
            "api_key": api_key, "max_retries": 0, "timeout": config.timeout,
            "http_client": openai.DefaultAsyncHttpxClient(
                transport=bounded_transport(openai.DefaultAsyncHttpxClient,
                                            shared_ssl_context()))}
        base_url = client_url(base_url, http)
        self.pool: ClientPool[openai.AsyncOpenAI]
        if azure:
            self.pool = ClientPool(lambda: _azure_client(base_url, self.model, http),
                                   config.concurrency or 1)
        else:
            self.pool = ClientPool(lambda: openai.AsyncOpenAI(base_url=base_url, **http),
                                   config.concurrency or 1)
        self.client = self.pool.first

    def params(self) -> dict[str, Any]:
        return dict(self._params)

    def start(self, req: JudgeRequest, mode: Mode = "json_schema") -> list[dict[str, Any]]:
        turns: list[dict[str, Any]] = []
        if req.system:
            turns.append({"role": "system", "content": req.system})
        prompt = req.prompt + (schema_instruction(req.schema) if mode == "prompt" else "")
        turns.append({"role": "user", "content": prompt})
        return turns

    def _body(self, req: JudgeRequest, messages: list[dict[str, Any]], *,
              mode: Mode = "json_schema", max_tokens: int | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": messages}
        limit = max_tokens or self._max_tokens
        if self._reasoning:
            body["max_completion_tokens"] = limit
        else:
            body["max_tokens"] = limit
            body["temperature"] = self._temperature
        if self._route == "tool" or mode == "tool":
            body["tools"] = [{"type": "function", "function": {
                "name": req.name, "description": "Submit the verdict object.",
                "parameters": req.schema}}]
            body["tool_choice"] = {"type": "function", "function": {"name": req.name}}
        elif mode == "json_schema":
            body["response_format"] = {"type": "json_schema", "json_schema": {
                "name": req.name, "schema": req.schema, "strict": False}}
        elif mode == "json_object" and self._vllm:
            body["extra_body"] = {"guided_json": req.decoding_schema or req.schema}
        elif mode == "json_object":
            body["response_format"] = {"type": "json_object",
                                       "schema": req.decoding_schema or req.schema}
        return body

    async def complete(self, req: JudgeRequest, messages: list[dict[str, Any]], *,
                       mode: Mode = "json_schema",
                       max_tokens: int | None = None) -> Completion:
        raw = await self.pool.next().chat.completions.with_raw_response.create(
            **self._body(req, messages, mode=mode, max_tokens=max_tokens))
        return parse_completion(await answer_json(raw, "Chat Completions", "choices"))

    def follow_up(self, req: JudgeRequest, completion: Completion,
                  problems: list[str]) -> list[dict[str, Any]]:
        if completion.tool_call_id:
            text = reask_text(problems, tool_name=req.name)
            return [completion.assistant, {"role": "tool", "tool_call_id": completion.tool_call_id,
                                           "content": text}]
        text = reask_text(problems, tool_name=None)
        return [completion.assistant, {"role": "user", "content": text}]

    # -- Batch API ----------------------------------------------------------------
    def batch_entry(self, req: JudgeRequest, custom_id: str) -> dict[str, Any]:
        return {"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions",
                "body": self._body(req, self.start(req))}

    async def submit_batch(self, entries: list[dict[str, Any]]) -> str:
        data = "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in entries).encode()
        uploaded = await self.client.files.create(file=("judgekit-batch.jsonl", data),
                                                  purpose="batch")
        batch = await self.client.batches.create(
            input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
        )
        return str(batch.id)

    async def batch_status(self, batch_id: str) -> str:
        batch = await self.client.batches.retrieve(batch_id)
        if batch.status in _PENDING:
            return "pending"
        return "ended" if batch.status in ("completed", "expired", "cancelled") else "failed"

    async def batch_results(self, batch_id: str) -> dict[str, Completion | str]:
        batch = await self.client.batches.retrieve(batch_id)
        out: dict[str, Completion | str] = {}
        for file_id in (batch.error_file_id, batch.output_file_id):
            if not file_id:
                continue
            content = await self.client.files.content(file_id)
            for line in content.text.splitlines():
                if not line.strip():
                    continue
                row = json.loads(line)
                response = row.get("response") or {}
                body = response.get("body")
                if response.get("status_code") == 200 and isinstance(body, dict):
                    if not isinstance(body.get("choices"), list):
                        out[row["custom_id"]] = "batch answer is not a chat completion"
                        continue
                    out[row["custom_id"]] = parse_completion(body)
                else:
                    status = response.get("status_code", "failed")
                    out[row["custom_id"]] = f"batch request failed (HTTP {status})"
        return out

    async def aclose(self) -> None:
        await self.pool.aclose()


def openai_client(config: ProviderSettings, key: str, base_url: str | None) -> OpenAIProvider:
    """The client of OpenAI's API or an OpenAI-compatible server (the registry's factory
    of ``openai:`` and of the self-hosted presets)."""
    return OpenAIProvider(config, api_key=key, base_url=base_url)


def azure_client(config: ProviderSettings, key: str, base_url: str | None) -> OpenAIProvider:
    """Azure OpenAI (``azure:``)."""
    return OpenAIProvider(config, api_key=key, base_url=base_url, azure=True)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}



def parse_completion(response: dict[str, Any]) -> Completion:
    """A :class:`Completion` from a ``ChatCompletion`` as JSON."""
    choices = response.get("choices")
    choice = _dict(choices[0]) if isinstance(choices, list) and choices else None
    message = _dict(choice.get("message")) if choice is not None else {}
    content = message.get("content")
    text = content if isinstance(content, str) else ""
    verdict: dict[str, Any] | None = None
    problem: str | None = None
    tool_id: str | None = None
    assistant: dict[str, Any] = {"role": "assistant", "content": text or None}
    calls = [_dict(c) for c in message.get("tool_calls") or [] if isinstance(c, dict)]
    if calls:
        call = calls[0]
        tool_id = call.get("id")
        assistant["tool_calls"] = [{"id": c.get("id"), "type": "function", "function": {
            "name": _dict(c.get("function")).get("name"),
            "arguments": _dict(c.get("function")).get("arguments")}} for c in calls]
        arguments = _dict(call.get("function")).get("arguments")
        try:
            parsed = json.loads(arguments or "") if isinstance(arguments, str) else None
            verdict = parsed if isinstance(parsed, dict) else None
        except ValueError:
            problem = "the function arguments are not valid JSON"
    if verdict is None and problem is None:
        verdict = extract_json(text)
        if verdict is None:
            problem = "no verdict: the answer holds no JSON object"
    if verdict is None and choice is not None and choice.get("finish_reason") == "length":
        problem = "the answer was cut off at max_tokens"
    if assistant["content"] is None and not calls:
        assistant["content"] = "(empty answer)"
    u = _dict(response.get("usage"))
    cached = token_count(_dict(u.get("prompt_tokens_details")).get("cached_tokens"))
    usage = Usage(
        input_tokens=max(0, token_count(u.get("prompt_tokens")) - cached),
        output_tokens=token_count(u.get("completion_tokens")),
        cache_read_tokens=cached,
    )
    return Completion(verdict=verdict, text=text, usage=usage, assistant=assistant,
                      tool_call_id=tool_id, parse_problem=problem)
