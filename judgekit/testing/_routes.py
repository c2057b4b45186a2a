"""Endpoints of the fake API: each request in, one :class:`Answer` out.

The server (:class:`judgekit.testing.fakeapi.FakeAPIServer`) hands every parsed request to
:func:`route`; what the endpoints read and write of it is :class:`Served`.
"""

from __future__ import annotations

import email.parser
import email.policy
import itertools
import json
import re
from dataclasses import dataclass, field
from typing import Any, Protocol

from judgekit.testing.dialects import Dialect
from judgekit.testing.prompt_cache import AutoPrefixCache, PromptCache, openai_tokens
from judgekit.testing.recorded import Recorded
from judgekit.testing.replies import (
    Reply,
    Responder,
    anthropic_body,
    as_reply,
    error_body,
    openai_body,
)

_ids = itertools.count(1)
_STAMP = "2025-01-01T00:00:00Z"


@dataclass
class Answer:
    status: int = 200
    body: bytes = b"{}"
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    drop: bool = False
    model_call: bool = False
    content_type: str = "application/json"


@dataclass
class Batch:
    api: str
    results: list[dict[str, Any]]
    polls_left: int
    output_file: str | None = None


@dataclass
class State:
    prompt_cache: PromptCache = field(default_factory=PromptCache)
    auto_prefix_cache: AutoPrefixCache = field(default_factory=AutoPrefixCache)
    model_calls: int = 0
    batches: dict[str, Batch] = field(default_factory=dict)
    files: dict[str, bytes] = field(default_factory=dict)


class Served(Protocol):
    """What the endpoints read and write of the server they answer for."""

    responder: Responder | None
    dialect: Dialect | None
    model_name: str
    latency: float
    batch_polls: int
    openai_prefix_cache: bool
    state: State
    requests: list[Recorded]
    probes: list[Recorded]
    refused: list[tuple[int, str]]
    prompt_tokens: list[int]
    batch_items: list[tuple[str, dict[str, Any]]]
    usages: list[tuple[str, dict[str, int]]]

    @property
    def url(self) -> str: ...


def _json(value: Any, status: int = 200, **kw: Any) -> Answer:
    return Answer(status=status, body=json.dumps(value).encode(), **kw)


def route(server: Served, method: str, path: str, headers: dict[str, str],
          raw: bytes, query: str = "") -> Answer:
    """The answer to one request; model calls and batch requests are logged on ``server``."""
    is_json = raw and "json" in headers.get("content-type", "")
    body = json.loads(raw) if is_json else None
    api = _api_of(path)
    if api == "probe":  # what a client asks of a self-hosted server's capabilities
        server.probes.append(Recorded(api, method, path, body, dict(headers), query))
        info = (server.dialect.info(method, path, body, server.model_name)
                if server.dialect is not None else None)
        if info is None and method == "GET" and path == "/v1/models":
            # both APIs list their models; a server of no dialect says only the ids
            info = {"object": "list", "data": [{"id": server.model_name, "object": "model",
                                                "type": "model"}]}
        if info is None:
            return _json({"error": {"message": f"no route {method} {path}"}}, 404)
        return _json(info)
    server.requests.append(Recorded(api, method, path, body, dict(headers), query))
    if path == "/_fake/stats":  # for benchmarks running the server in another process
        return _json({"model_calls": server.state.model_calls})
    if method == "POST" and path == "/v1/messages":
        return model_call(server, "anthropic", body or {})
    if method == "POST" and path == "/v1/chat/completions":
        return model_call(server, "openai", body or {})
    if path.startswith("/v1/messages/batches"):
        return anthropic_batches(server, method, path, body)
    if path.startswith(("/v1/files", "/v1/batches")):
        return openai_batches(server, method, path, headers, body, raw)
    return _json({"error": {"message": f"no route {method} {path}"}}, 404)


_PROBES = ("/props", "/v1/models", "/api/v0/models", "/api/show", "/extras/tokenize/count",
           "/tokenize", "/slots", "/health")


def _api_of(path: str) -> str:
    if path in _PROBES:
        return "probe"
    if path == "/v1/messages":
        return "anthropic"
    if path == "/v1/chat/completions":
        return "openai"
    if path.startswith("/v1/messages/batches"):
        return "anthropic.batches"
    return "openai.files" if path.startswith("/v1/files") else "openai.batches"


def answer_body(server: Served, api: str, body: dict[str, Any],
                reply: Reply | None = None, answered_in: float = 0.0
                ) -> tuple[Reply, dict[str, Any]]:
    if reply is None:
        reply = as_reply(server.responder(api, body) if server.responder else None, body)
    if reply.status != 200:
        return reply, error_body(api, reply)
    if api == "anthropic":
        payload = anthropic_body(body, reply, server.state.prompt_cache, answered_in)
    elif server.openai_prefix_cache:
        sim = server.state.auto_prefix_cache
        payload = openai_body(body, reply, (openai_tokens(body),
                                            sim.cached_tokens(body, answered_in)))
    else:
        payload = openai_body(body, reply)
    if not reply.drop:
        server.usages.append((api, dict(payload["usage"])))
    return reply, payload


def model_call(server: Served, api: str, body: dict[str, Any]) -> Answer:
    server.state.model_calls += 1
    refused = server.dialect.refusal(body) if server.dialect is not None and api == "openai" else None
    if refused is not None:
        server.refused.append((refused[0], refused[1]))
        status, message = refused
        return _json({"error": {"message": message, "type": "invalid_request_error",
                                "code": None, "param": None}}, status, model_call=True)
    if server.dialect is not None and api == "openai":
        server.prompt_tokens.append(server.dialect.prompt_tokens(body))
    reply = as_reply(server.responder(api, body) if server.responder else None, body)
    if reply.body is not None:
        return Answer(status=reply.status, body=reply.body.encode(), delay=reply.delay,
                      model_call=True, content_type=reply.content_type)
    reply, payload = answer_body(server, api, body, reply,
                                 answered_in=reply.delay + server.latency)
    headers = {}
    if reply.retry_after is not None:
        headers["retry-after"] = f"{reply.retry_after:g}"
    return Answer(status=reply.status, body=json.dumps(payload).encode(), headers=headers,
                  delay=reply.delay, drop=reply.drop, model_call=True)


# -- Anthropic Message Batches ----------------------------------------------------------
def _anthropic_batch_json(server: Served, batch_id: str, batch: Batch) -> dict[str, Any]:
    ended = batch.polls_left <= 0
    ok = sum(1 for r in batch.results if r["result"]["type"] == "succeeded")
    return {
        "id": batch_id, "type": "message_batch",
        "processing_status": "ended" if ended else "in_progress",
        "request_counts": {"processing": 0 if ended else len(batch.results),
                           "succeeded": ok if ended else 0,
                           "errored": len(batch.results) - ok if ended else 0,
                           "canceled": 0, "expired": 0},
        "created_at": _STAMP, "expires_at": _STAMP, "ended_at": _STAMP if ended else None,
        "archived_at": None, "cancel_initiated_at": None,
        "results_url": f"{server.url}/v1/messages/batches/{batch_id}/results" if ended else None,
    }


def anthropic_batches(server: Served, method: str, path: str,
                      body: dict[str, Any] | None) -> Answer:
    state = server.state
    if method == "POST" and path == "/v1/messages/batches":
        results = []
        for entry in (body or {}).get("requests", []):
            server.batch_items.append(("anthropic", entry["params"]))
            reply, payload = answer_body(server, "anthropic", entry["params"])
            if reply.status == 200 and not reply.drop:
                result = {"type": "succeeded", "message": payload}
            else:
                result = {"type": "errored", "error": error_body("anthropic", reply)}
            results.append({"custom_id": entry["custom_id"], "result": result})
        batch_id = f"msgbatch_{next(_ids):08d}"
        state.batches[batch_id] = Batch("anthropic", results, server.batch_polls)
        return _json(_anthropic_batch_json(server, batch_id, state.batches[batch_id]))
    m = re.fullmatch(r"/v1/messages/batches/([^/]+)(/results)?", path)
    if not m or m.group(1) not in state.batches:
        return _json(error_body("anthropic", Reply(status=404)), 404)
    batch = state.batches[m.group(1)]
    if m.group(2):
        text = "".join(json.dumps(r) + "\n" for r in batch.results)
        return Answer(body=text.encode(), content_type="application/binary")
    batch.polls_left -= 1
    return _json(_anthropic_batch_json(server, m.group(1), batch))


# -- OpenAI Files + Batch API -----------------------------------------------------------
def _multipart_file(headers: dict[str, str], raw: bytes) -> bytes:
    head = f"Content-Type: {headers.get('content-type', '')}\r\n\r\n".encode()
    message = email.parser.BytesParser(policy=email.policy.default).parsebytes(head + raw)
    for part in message.iter_parts() if message.is_multipart() else []:
        if part.get_param("name", header="content-disposition") == "file":
            payload = part.get_payload(decode=True)
            return payload if isinstance(payload, bytes) else b""
    return b""


def _openai_batch_json(batch_id: str, batch: Batch, input_file: str) -> dict[str, Any]:
    ended = batch.polls_left <= 0
    n = len(batch.results)
    return {"id": batch_id, "object": "batch", "endpoint": "/v1/chat/completions",
            "input_file_id": input_file, "completion_window": "24h",
            "status": "completed" if ended else "in_progress",
            "output_file_id": batch.output_file if ended else None, "error_file_id": None,
            "created_at": 1700000000, "errors": None,
            "request_counts": {"total": n, "completed": n if ended else 0, "failed": 0}}


def openai_batches(server: Served, method: str, path: str, headers: dict[str, str],
                   body: dict[str, Any] | None, raw: bytes) -> Answer:
    state = server.state
    if method == "POST" and path == "/v1/files":
        file_id = f"file-{next(_ids):08d}"
        state.files[file_id] = _multipart_file(headers, raw)
        return _json({"id": file_id, "object": "file", "bytes": len(state.files[file_id]),
                      "created_at": 1700000000, "filename": "batch.jsonl", "purpose": "batch",
                      "status": "processed"})
    m = re.fullmatch(r"/v1/files/([^/]+)/content", path)
    if m and m.group(1) in state.files:
        return Answer(body=state.files[m.group(1)], content_type="application/octet-stream")
    if method == "POST" and path == "/v1/batches":
        input_file = (body or {}).get("input_file_id", "")
        results = []
        for line in state.files.get(input_file, b"").decode().splitlines():
            if not line.strip():
                continue
            entry = json.loads(line)
            server.batch_items.append(("openai", entry["body"]))
            reply, payload = answer_body(server, "openai", entry["body"])
            results.append({"id": f"batch_req_{next(_ids):08d}", "custom_id": entry["custom_id"],
                            "response": {"status_code": reply.status, "request_id": "req",
                                         "body": payload}, "error": None})
        batch_id = f"batch_{next(_ids):08d}"
        output = f"file-{next(_ids):08d}"
        state.files[output] = "".join(json.dumps(r) + "\n" for r in results).encode()
        state.batches[batch_id] = Batch("openai", results, server.batch_polls, output)
        state.files[f"input:{batch_id}"] = input_file.encode()
        return _json(_openai_batch_json(batch_id, state.batches[batch_id], input_file))
    m = re.fullmatch(r"/v1/batches/([^/]+)", path)
    if m and m.group(1) in state.batches:
        batch = state.batches[m.group(1)]
        batch.polls_left -= 1
        input_file = state.files.get(f"input:{m.group(1)}", b"").decode()
        return _json(_openai_batch_json(m.group(1), batch, input_file))
    return _json(error_body("openai", Reply(status=404)), 404)
