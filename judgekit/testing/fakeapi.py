"""A fake Anthropic + OpenAI API on 127.0.0.1, scriptable, for tests and benchmarks.

It speaks ``POST /v1/messages`` (Anthropic Messages), ``POST /v1/chat/completions``
(OpenAI Chat Completions), Anthropic Message Batches (``/v1/messages/batches``) and the
OpenAI Batch API (``/v1/files``, ``/v1/batches``), well enough for the real SDKs. It runs
an asyncio server in a background thread; each answer goes out in one write on a
``TCP_NODELAY`` socket.

Example (a test with the engine):
    >>> from judgekit.engine import Engine, EngineConfig, JudgeRequest
    >>> from judgekit.testing import FakeAPIServer, Reply, scripted
    >>> schema = {"type": "object", "required": ["winner"],
    ...           "properties": {"winner": {"enum": ["A", "B"]}}}
    >>> responder = scripted(Reply.fault(500), then=lambda api, body: Reply.ok({"winner": "B"}))
    >>> with FakeAPIServer(responder) as server:
    ...     config = EngineConfig(model="anthropic:claude-haiku-4-5", base_url=server.url,
    ...                           use_cache=False, backoff_base=0.01, progress=False)
    ...     [out] = Engine(config).run([JudgeRequest("k", "Judge.", "A or B?", schema)])
    ...     (out.state, out.verdict, len(server.requests))
    ('valid', {'winner': 'B'}, 2)

Every model call gets the most modest schema-valid verdict unless a test scripts others.
``python -m judgekit.testing`` runs it as a process of its own, e.g. for a benchmark
(:mod:`judgekit.testing.standalone`).
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from typing import Any

from typing_extensions import Self

from judgekit.testing import _routes
from judgekit.testing.dialects import Dialect
from judgekit.testing.recorded import Recorded
from judgekit.testing.replies import Responder

_REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden",
            404: "Not Found", 429: "Too Many Requests", 500: "Internal Server Error",
            503: "Service Unavailable", 504: "Gateway Timeout", 529: "Overloaded"}


class FakeAPIServer:
    """Context manager running the fake API. See the module docstring for an example.

    Args:
        responder: ``(api, body) -> Reply | dict | str`` for every model call (default:
            an example verdict that satisfies the request's schema).
        latency: seconds added to every model call answer.
        batch_polls: status polls a batch stays ``in_progress`` before it ends.

    Attributes:
        url: ``http://127.0.0.1:<port>`` (Anthropic base URL); ``openai_base_url`` adds ``/v1``.
        requests: every API request received, in order (:class:`Recorded`): model calls
            and batch endpoints.
        probes: requests to a self-hosted server's capability and tokenizer endpoints
            (``/props``, ``/v1/models``, ``/tokenize``, ...), answered as ``dialect`` says.
        dialect: a self-hosted server's behaviour (:mod:`judgekit.testing.dialects`):
            refused structured-output modes, a context window, slots; ``None``: OpenAI's.
        refused: ``(status, message)`` of each model call the dialect refused.
        prompt_tokens: prompt tokens of each model call the dialect accepted.
        batch_items: model calls answered inside batches, as ``(api, body)``.
        usages: ``(api, usage)`` of every model call answered, the usage as the answer
            gave it (Anthropic's ``cache_read_input_tokens`` and
            ``cache_creation_input_tokens`` come from its simulated prompt cache).
        cache_min_tokens: the shortest prefix the simulated Anthropic prompt cache keeps
            (the real API's is 1,024 tokens or more; 0 caches any marked prefix).
        openai_prefix_cache: Chat Completions answers report ``cached_tokens`` from a
            simulated automatic prefix cache (OpenAI's: 1,024 tokens on, steps of 128)
            unless a reply fixes its usage.
    """

    def __init__(self, responder: Responder | None = None, *, latency: float = 0.0,
                 batch_polls: int = 1, port: int = 0, dialect: Dialect | None = None,
                 model_name: str = "local-model", cache_min_tokens: int = 0,
                 openai_prefix_cache: bool = False) -> None:
        self.responder = responder
        self.dialect = dialect
        self.model_name = model_name
        self.probes: list[Recorded] = []
        self.refused: list[tuple[int, str]] = []
        self.prompt_tokens: list[int] = []
        self.latency = latency
        self.batch_polls = batch_polls
        self.requests: list[Recorded] = []
        self.batch_items: list[tuple[str, dict[str, Any]]] = []
        self.state = _routes.State()
        self.state.prompt_cache.min_tokens = cache_min_tokens
        self.openai_prefix_cache = openai_prefix_cache
        self.usages: list[tuple[str, dict[str, int]]] = []
        self._port = port
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.AbstractServer | None = None
        self._thread: threading.Thread | None = None
        self._conns: set[asyncio.Transport] = set()

    # -- lifecycle ------------------------------------------------------------------
    def start(self) -> Self:
        ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, args=(ready,), daemon=True,
                                        name="fake-api")
        self._thread.start()
        ready.wait()
        return self

    def _serve(self, ready: threading.Event) -> None:
        self._loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(self._loop.create_server(
            lambda: _Connection(self), "127.0.0.1", self._port, backlog=1024))
        self.port = self._server.sockets[0].getsockname()[1]
        ready.set()
        self._loop.run_forever()
        self._loop.close()

    def stop(self) -> None:
        if self._loop is None:
            return

        def shutdown() -> None:
            assert self._server is not None
            self._server.close()
            for transport in list(self._conns):
                transport.abort()
            self._loop.stop()  # type: ignore[union-attr]

        self._loop.call_soon_threadsafe(shutdown)
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._loop = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- conveniences ---------------------------------------------------------------
    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_base_url(self) -> str:
        return f"{self.url}/v1"

    def env(self) -> dict[str, str]:
        """Environment variables pointing both SDKs here."""
        return {"ANTHROPIC_BASE_URL": self.url, "OPENAI_BASE_URL": self.openai_base_url}

    def count(self, api: str | None = None) -> int:
        """Requests received (model calls of ``api`` only, when given)."""
        return sum(1 for r in list(self.requests) if api is None or r.api == api)


class _Connection(asyncio.Protocol):
    """HTTP/1.1 with keep-alive, one request at a time, answers in one write."""

    def __init__(self, server: FakeAPIServer) -> None:
        self.server = server
        self.buf = bytearray()
        self.busy = False
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server._conns.add(self.transport)  # type: ignore[arg-type]

    def connection_lost(self, exc: Exception | None) -> None:
        self.server._conns.discard(self.transport)
        self.transport = None

    def data_received(self, data: bytes) -> None:
        self.buf += data
        self._next()

    def _next(self) -> None:
        if self.busy or self.transport is None:
            return
        parsed = _parse(self.buf)
        if parsed is None:
            return
        self.busy = True
        asyncio.get_running_loop().create_task(self._handle(*parsed))

    async def _handle(self, method: str, target: str, headers: dict[str, str], raw: bytes) -> None:
        server = self.server
        try:
            path, _, query = target.partition("?")
            answer = _routes.route(server, method, path, headers, raw, query)
        except Exception as exc:  # noqa: BLE001  a responder bug: answer 500, do not hang
            answer = _routes.Answer(status=500, body=json.dumps(
                {"error": {"message": f"fake server: {type(exc).__name__}: {exc}"}}).encode())
        delay = answer.delay + (server.latency if answer.model_call else 0.0)
        if delay > 0:
            await asyncio.sleep(delay)
        transport = self.transport
        if transport is None:
            return
        if answer.drop:
            transport.abort()
            return
        head = [f"HTTP/1.1 {answer.status} {_REASONS.get(answer.status, 'Status')}",
                f"content-type: {answer.content_type}", f"content-length: {len(answer.body)}"]
        head += [f"{k}: {v}" for k, v in answer.headers.items()]
        close = headers.get("connection", "").lower() == "close"
        if close:
            head.append("connection: close")
        transport.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + answer.body)
        if close:
            transport.close()
            return
        self.busy = False
        self._next()


def _parse(buf: bytearray) -> tuple[str, str, dict[str, str], bytes] | None:
    """Take one complete request off ``buf``; ``None`` while incomplete."""
    end = buf.find(b"\r\n\r\n")
    if end < 0:
        return None
    lines = bytes(buf[:end]).decode("latin-1").split("\r\n")
    method, target = lines[0].split(" ")[:2]
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    start = end + 4
    if "chunked" in headers.get("transfer-encoding", "").lower():
        chunks, pos = bytearray(), start
        while True:
            eol = buf.find(b"\r\n", pos)
            if eol < 0:
                return None
            size = int(bytes(buf[pos:eol]).split(b";")[0], 16)
            if len(buf) < eol + 2 + size + 2:
                return None
            chunks += buf[eol + 2:eol + 2 + size]
            pos = eol + 2 + size + 2
            if size == 0:
                del buf[:pos]
                return method, target, headers, bytes(chunks)
    length = int(headers.get("content-length", "0") or 0)
    if len(buf) < start + length:
        return None
    body = bytes(buf[start:start + length])
    del buf[:start + length]
    return method, target, headers, body
