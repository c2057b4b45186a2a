"""Model providers: one :class:`Provider` protocol, one module per API.

A provider turns a :class:`~judgekit.engine.types.JudgeRequest` into API calls through
the provider's structured route, parses answers into :class:`Completion` objects, builds
the re-ask turns of the repair loop, and speaks the provider's batch API. Which class
serves which model id is the registry's business (:mod:`judgekit.engine.registry`);
:func:`judgekit.engine.connect.make_provider` builds one.

Example:
    >>> pool = ClientPool(lambda: object(), concurrency=20)
    >>> len(pool.clients)
    2
"""

from __future__ import annotations

import inspect
import itertools
import json
import ssl
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from judgekit.engine.settings import ProviderSettings
from judgekit.engine.modes import Mode
from judgekit.engine.retry import BadAnswer
from judgekit.engine.types import JudgeRequest, Usage

C = TypeVar("C")

#: API key used for keyless OpenAI-compatible servers reached through a base URL.
PLACEHOLDER_KEY = "not-needed"


@dataclass
class Completion:
    """One answer of the model, parsed.

    ``verdict`` is the object from the structured route, else the first JSON object found
    in the text, else ``None``; ``parse_problem`` says why it is ``None``.
    """

    verdict: dict[str, Any] | None
    text: str
    usage: Usage
    assistant: dict[str, Any]
    tool_call_id: str | None = None
    parse_problem: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class Provider(Protocol):
    """What the engine needs from a model API."""

    name: str
    model: str

    def params(self) -> dict[str, Any]:
        """Sampling parameters that shape the answer (part of the cache key)."""

    def start(self, req: JudgeRequest, mode: Mode = "json_schema") -> list[dict[str, Any]]:
        """The opening conversation turns of ``req`` when asked in ``mode``."""

    async def complete(self, req: JudgeRequest, messages: list[dict[str, Any]], *,
                       mode: Mode = "json_schema",
                       max_tokens: int | None = None) -> Completion:
        """One call in structured-output ``mode`` (providers with one route ignore it),
        answering in at most ``max_tokens`` (default: the config's); raises the SDK's
        errors (the engine retries them)."""

    def follow_up(self, req: JudgeRequest, completion: Completion,
                  problems: list[str]) -> list[dict[str, Any]]:
        """Turns to append to re-ask after ``completion`` showed ``problems``."""

    def batch_entry(self, req: JudgeRequest, custom_id: str) -> dict[str, Any]:
        """One request of a provider batch."""

    async def submit_batch(self, entries: list[dict[str, Any]]) -> str:
        """Submit a batch; return its id."""

    async def batch_status(self, batch_id: str) -> str:
        """``"pending"``, ``"ended"`` or ``"failed"``."""

    async def batch_results(self, batch_id: str) -> dict[str, Completion | str]:
        """Per custom id: the completion, or a reason it failed."""

    async def aclose(self) -> None:
        """Release connections."""


def params_for(config: ProviderSettings) -> dict[str, Any]:
    """The request parameters that shape answers, as recorded in cache keys."""
    return config.request_params()


#: connections per SDK client. The HTTP pool under the SDKs scans every connection it holds
#: for each request it places, so one pool of C connections costs O(C) per call; clients
#: of at most this many connections keep that cost flat as concurrency grows.
CONNECTIONS_PER_CLIENT = 16


class ClientPool(Generic[C]):
    """``ceil(concurrency / CONNECTIONS_PER_CLIENT)`` SDK clients, taken in turn per call.

    Example:
        >>> pool = ClientPool(lambda: object(), concurrency=40)
        >>> len(pool.clients), pool.next() is pool.clients[0], pool.next() is pool.clients[1]
        (3, True, True)
    """

    def __init__(self, make: Callable[[], C], concurrency: int) -> None:
        count = max(1, -(-concurrency // CONNECTIONS_PER_CLIENT))
        self.clients: list[C] = [make() for _ in range(count)]
        self._turn = itertools.cycle(range(count))

    @property
    def first(self) -> C:
        return self.clients[0]

    def next(self) -> C:
        return self.clients[next(self._turn)]

    async def aclose(self) -> None:
        for client in self.clients:
            await client.close()  # type: ignore[attr-defined]


@lru_cache(maxsize=1)
def shared_ssl_context() -> ssl.SSLContext:
    """One TLS context for every client (building one reads the CA store: 0.1 s or more)."""
    return ssl.create_default_context()


async def answer_json(raw: Any, expected: str, key: str) -> dict[str, Any]:
    """The JSON object of a raw SDK answer (``with_raw_response``), read without building
    the SDK's model objects; a :class:`BadAnswer` when it is not the API's JSON (an object
    holding ``key``)."""
    read = getattr(raw, "read", None)  # the SDKs' async raw answers are read with await;
    body = read() if callable(read) else raw.content  # their legacy ones hold the bytes
    if inspect.isawaitable(body):
        body = await body
    try:
        data = json.loads(body)
    except ValueError:
        text = body.decode("utf-8", "replace") if isinstance(body, bytes) else str(body)
        raise not_api_json(text, expected) from None
    if not isinstance(data, dict) or key not in data:
        raise not_api_json(json.dumps(data)[:2000], expected, kind="JSON of another shape")
    return data


def token_count(value: Any) -> int:
    """A token count from an answer; anything but a non-negative integer counts 0."""
    return value if type(value) is int and value > 0 else 0


def not_api_json(answer: Any, expected: str, kind: str | None = None) -> BadAnswer:
    """The error for a 200 answer that is not the API's JSON (e.g. a proxy's HTML page);
    ``kind`` names what it was when the caller knows."""
    text = answer if isinstance(answer, str) else repr(answer)
    head = " ".join(text[:2000].split())
    lowered = head.lower()
    kind = kind or ("an HTML page" if "<html" in lowered or "<!doctype" in lowered else
            "malformed JSON" if head.startswith(("{", "[")) else
            "text that is not JSON" if isinstance(answer, str) else
            f"a {type(answer).__name__}")
    return BadAnswer(f"the provider answered HTTP 200 with {kind}, not the API's {expected} "
                     f"JSON (wrong base URL, or a proxy in the way?): {head[:160]!r}")


@lru_cache(maxsize=1)
def _reask() -> dict[str, str]:
    path = Path(__file__).resolve().parent.parent / "reask.json"
    texts: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return texts


def schema_instruction(schema: dict[str, Any]) -> str:
    """What the ``prompt`` mode adds to the question: the schema the answer must follow."""
    return _reask()["schema_in_prompt"].format(
        schema=json.dumps(schema, indent=1, ensure_ascii=False))


def reask_text(problems: list[str], *, tool_name: str | None) -> str:
    """The user turn that shows the model why its answer was refused."""
    texts = _reask()
    how = texts["how_tool"].format(name=tool_name) if tool_name else texts["how_json"]
    listed = "\n".join(f"- {p}" for p in problems[:10])
    return texts["template"].format(problems=listed, how=how)
