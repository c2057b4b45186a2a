"""A bound on what one answer of a model server may weigh, below the SDKs.

A verdict is a few kilobytes; a server that answers megabytes (a runaway reasoning field,
a wrong endpoint streaming a file) should cost neither memory nor disk. The SDK clients
are given a transport that refuses an answer whose ``Content-Length`` is over
``MAX_ANSWER_BYTES`` before reading it, and stops reading one that grows past it. Batch
result files (``/files/{id}/content``, ``/messages/batches/{id}/results``) are not bounded:
they hold many answers.

Example:
    >>> str(AnswerTooLarge(10**9, MAX_ANSWER_BYTES))
    'the answer is larger than 64 MiB (1000000000 bytes announced): not read'
"""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator
from functools import lru_cache
from types import ModuleType
from typing import Any

#: the largest answer read from a model server, in bytes.
MAX_ANSWER_BYTES = 64 * 1024 * 1024
#: paths whose answers are batch result files (many answers in one).
_BATCH_RESULTS = ("/content", "/results")


class AnswerTooLarge(Exception):
    """A server's answer was over the bound; nothing more of it was read."""

    def __init__(self, size: int | None, limit: int) -> None:
        self.size, self.limit = size, limit
        told = f" ({size} bytes announced)" if size is not None else ""
        super().__init__(f"the answer is larger than {limit // (1024 * 1024)} MiB{told}: "
                         "not read")


@lru_cache(maxsize=None)
def _transport_class(http: ModuleType) -> Any:
    """The bounded transport for ``http``, the HTTP library an SDK is built on (httpx or
    a fork of it with the same transport interface)."""

    class Bounded(http.AsyncByteStream):  # type: ignore[name-defined,misc]
        def __init__(self, inner: Any, limit: int) -> None:
            self.inner, self.limit, self.seen = inner, limit, 0

        async def __aiter__(self) -> AsyncIterator[bytes]:
            async for chunk in self.inner:
                self.seen += len(chunk)
                if self.seen > self.limit:
                    raise AnswerTooLarge(None, self.limit)
                yield chunk

        async def aclose(self) -> None:
            await self.inner.aclose()

    class BoundedTransport(http.AsyncBaseTransport):  # type: ignore[name-defined,misc]
        """``inner`` with every answer but batch result files bounded to ``limit`` bytes."""

        def __init__(self, inner: Any, limit: int = MAX_ANSWER_BYTES) -> None:
            self.inner, self.limit = inner, limit

        async def handle_async_request(self, request: Any) -> Any:
            response = await self.inner.handle_async_request(request)
            if request.url.path.endswith(_BATCH_RESULTS):
                return response
            length = response.headers.get("content-length", "")
            if length.isdigit() and int(length) > self.limit:
                await response.aclose()
                raise AnswerTooLarge(int(length), self.limit)
            response.stream = Bounded(response.stream, self.limit)
            return response

        async def aclose(self) -> None:
            await self.inner.aclose()

    return BoundedTransport


def bounded_transport(client_class: type, verify: Any) -> Any:
    """The transport of an SDK client whose HTTP client class is ``client_class`` (the
    SDK's ``DefaultAsyncHttpxClient``): connections pooled as the SDK pools them, answers
    bounded."""
    base = next(c for c in client_class.__mro__[1:] if c.__name__ == "AsyncClient")
    http = importlib.import_module(base.__module__.partition(".")[0])
    limits = http.Limits(max_connections=1000, max_keepalive_connections=100)
    return _transport_class(http)(http.AsyncHTTPTransport(verify=verify, limits=limits))
