"""Is the judge's server there, and is it the API named? Asked once, before any item.

A wrong base URL should cost seconds, not minutes of retries: before a run sends its first
call, :func:`check_server` asks the API's list of models (``GET {base}/models``, or
``/v1/models`` for Anthropic) within a short deadline. A refused connection, an unknown
host, a TLS failure, a 404 on the API's paths, an authentication failure or an answer that
is not the API's JSON (an HTML page) raises :class:`ServerUnreachable`, naming the judge,
the URL (credentials redacted) and what was wrong. A server that is merely slow to answer
the check is not refused: the calls' own timeouts deal with it.

Example:
    >>> str(ServerUnreachable("openai:m", "http://127.0.0.1:9/v1", "connection refused"))
    'judge openai:m: http://127.0.0.1:9/v1: connection refused'
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from typing import Any

from judgekit.engine.redact import redact
from judgekit.engine.urls import join_url, redact_url
from judgekit.errors import ConfigError

#: seconds the whole check may take; a server slower than this is not refused.
CHECK_DEADLINE_S = 3.0


class ServerUnreachable(ConfigError):
    """The judge's server is not there, or is not the API named (see the module docstring)."""

    def __init__(self, model: str, url: str, problem: str) -> None:
        self.model, self.url, self.problem = model, redact_url(url), problem
        super().__init__(f"judge {model}: {self.url}: {problem}")


@dataclass(frozen=True)
class Verdict:
    """What the check found: ``problem`` is ``None`` when the server is the API named;
    ``slow`` when it did not answer within the deadline (not a failure)."""

    problem: str | None = None
    slow: bool = False


def _connect_problem(exc: BaseException) -> str:
    """A refused connection, an unknown host or a TLS failure, said plainly."""
    text = f"{type(exc).__name__}: {exc}"
    lowered = text.lower()
    if "certificate" in lowered or "ssl" in lowered or "tls" in lowered:
        return f"TLS failed ({redact(str(exc))[:160]})"
    if "name or service not known" in lowered or "nodename nor servname" in lowered or (
            "temporary failure in name resolution" in lowered) or "getaddrinfo" in lowered:
        return "unknown host (the name does not resolve)"
    if "refused" in lowered or "connecterror" in lowered.replace(" ", ""):
        return "connection refused (is the server running, on this port?)"
    return f"cannot connect ({redact(text)[:160]})"


def _not_api(response: Any) -> str | None:
    """Why a 200 answer is not an API's list of models, or ``None`` when it is."""
    head = response.content[:200].decode("utf-8", "replace")
    try:
        data = json.loads(response.content)
    except ValueError:
        kind = "an HTML page" if "<html" in head.lower() or "<!doctype" in head.lower() else (
            "text that is not JSON")
        return f"answers {kind}, not the API's JSON (wrong base URL?): {' '.join(head.split())[:80]!r}"
    if not isinstance(data, dict):
        return "answers JSON of another shape than the API's (wrong base URL?)"
    return None


async def _ask(base: str, models_path: str, headers: dict[str, str]) -> Verdict:
    import httpx

    async with httpx.AsyncClient(timeout=CHECK_DEADLINE_S, headers=headers) as client:
        try:
            response = await client.get(join_url(base, models_path))
        except httpx.TimeoutException:
            return Verdict(slow=True)
        except (httpx.RemoteProtocolError, httpx.ReadError) as exc:
            return Verdict(f"answers with a broken HTTP message ({redact(str(exc))[:120]})")
        except httpx.HTTPError as exc:
            return Verdict(_connect_problem(exc))
        status = response.status_code
        if status == 200:
            return Verdict(_not_api(response))
        if status in (401, 403):
            return Verdict(f"authentication failed (HTTP {status} on {models_path})")
        if status == 404:
            # a server without a list of models: its completion path must exist then
            chat = "/v1/messages" if models_path == "/v1/models" else "/chat/completions"
            try:
                answer = await client.post(join_url(base, chat), json={})
            except httpx.HTTPError:
                return Verdict("not found (HTTP 404): wrong path in the base URL?")
            if answer.status_code == 404:
                return Verdict(f"not found (HTTP 404 on {models_path} and {chat}): wrong "
                               "path in the base URL?")
            return Verdict()
        if status >= 500 and status not in (502, 503, 504, 529):
            return Verdict(f"the server failed (HTTP {status} on {models_path})")
        return Verdict()


#: servers that passed the check in this process (by model and URL) and when: a run that
#: checks its judges before loading its inputs is not checked again when it calls.
_PASSED: dict[tuple[str, str], float] = {}
#: seconds a passed check stands.
PASSED_FOR_S = 600.0


async def check_server(model: str, base_url: str, models_path: str,
                       headers: dict[str, str]) -> Verdict:
    """Raise :class:`ServerUnreachable` unless the server at ``base_url`` answers as the API
    (see the module docstring); a server slow to answer gives ``Verdict(slow=True)``."""
    key = (model, base_url)
    if time.monotonic() - _PASSED.get(key, -PASSED_FOR_S) < PASSED_FOR_S:
        return Verdict()
    try:
        verdict = await asyncio.wait_for(_ask(base_url, models_path, headers),
                                         CHECK_DEADLINE_S)
    except asyncio.TimeoutError:
        verdict = Verdict(slow=True)
    if verdict.problem is not None:
        raise ServerUnreachable(model, base_url, verdict.problem)
    if not verdict.slow:
        _PASSED[key] = time.monotonic()
    return verdict
