"""What a model server can do: its context window, how many requests it serves at once, and
whether it counts tokens for us.

Local servers say some of it themselves, each in its own dialect:

| server            | context window                          | slots                | token count                 |
|-------------------|-----------------------------------------|----------------------|-----------------------------|
| llama.cpp server  | ``GET /props`` ``n_ctx``                 | ``/props`` ``total_slots`` | ``POST /tokenize``     |
| llama-cpp-python  | (learnt from its context-length error)  | one at a time        | ``POST /extras/tokenize/count`` |
| vLLM              | ``GET /v1/models`` ``max_model_len``    | (batches many)       | ``POST /tokenize``          |
| Ollama            | ``POST /api/show`` ``num_ctx``          | (not said)           | none                        |
| LM Studio         | ``GET /api/v0/models`` ``loaded_context_length`` | (not said)  | none                        |

Hosted models' windows come from the data file ``context_windows.json``. ``probe`` asks
only servers that are not one of the hosted APIs, each request within a short total
deadline (a server trickling its answer is cut off), and never fails: what it cannot
learn stays ``None``.

Example:
    >>> is_local_url("http://127.0.0.1:8080/v1"), is_local_url("https://api.openai.com/v1")
    (True, False)
    >>> server_root("http://127.0.0.1:8080/v1")
    'http://127.0.0.1:8080'
    >>> known_window("anthropic", "claude-sonnet-4-6")
    200000
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from judgekit.engine.urls import join_url, strip_path_suffix

#: seconds each probe request may take, its body included.
PROBE_TIMEOUT_S = 3.0
#: seconds the whole probe may take; what was not learnt by then stays unknown.
PROBE_DEADLINE_S = 8.0
#: seconds a token count may take before the estimate is used instead.
COUNT_TIMEOUT_S = 30.0
#: the context window Ollama gives a model unless ``num_ctx`` is set.
OLLAMA_DEFAULT_CTX = 4096


@dataclass
class ServerInfo:
    """What one server said about itself (``None``: not said)."""

    context_window: int | None = None
    window_source: str | None = None
    slots: int | None = None
    slots_source: str | None = None
    #: how to count tokens on this server: ``"llama-cpp-python"``, ``"llama.cpp"``,
    #: ``"vllm"``, or ``None`` (estimate them).
    tokenizer: str | None = None
    server: str | None = None
    #: the probe ran out of time before asking everything.
    cut_short: bool = False


def is_local_url(url: str | None) -> bool:
    """A URL on this machine or a private network (a self-hosted server)."""
    if not url:
        return False
    host = (urlsplit(url).hostname or "").lower()
    if host in ("localhost", "host.docker.internal") or host.endswith((".local", ".internal",
                                                                     ".localhost")):
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return "." not in host  # a bare host name on the local network
    return ip.is_loopback or ip.is_private or ip.is_link_local


def server_root(base_url: str) -> str:
    """``base_url`` without a trailing ``/v1``: where a server's own endpoints live."""
    return strip_path_suffix(base_url, "/v1")


@lru_cache(maxsize=1)
def _windows() -> dict[str, dict[str, int]]:
    path = Path(__file__).resolve().parent / "context_windows.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    return {k: v for k, v in data.items() if not k.startswith("_")}


def known_window(provider: str, model: str) -> int | None:
    """The context window of a hosted model from the shipped table (longest prefix wins)."""
    table = _windows().get(provider) or {}
    best = max((p for p in table if model.startswith(p)), key=len, default=None)
    return table[best] if best is not None else None


def _int(value: Any) -> int | None:
    return value if type(value) is int and value > 0 else None


async def _get(client: Any, url: str) -> Any:
    try:
        response = await asyncio.wait_for(client.get(url), PROBE_TIMEOUT_S)
    except Exception:  # noqa: BLE001  a probe never fails the run
        return None
    if response.status_code != 200:
        return None
    try:
        return response.json()
    except ValueError:
        return None


async def _post(client: Any, url: str, body: dict[str, Any], *,
                timeout: float = PROBE_TIMEOUT_S) -> Any:
    try:
        response = await asyncio.wait_for(client.post(url, json=body), timeout)
    except Exception:  # noqa: BLE001
        return None
    if response.status_code != 200:
        return None
    try:
        return response.json()
    except ValueError:
        return None


def _from_props(info: ServerInfo, props: Any) -> None:
    if not isinstance(props, dict):
        return
    settings = props.get("default_generation_settings")
    n_ctx = _int(props.get("n_ctx")) or (_int(settings.get("n_ctx"))
                                          if isinstance(settings, dict) else None)
    if n_ctx:
        info.context_window, info.window_source = n_ctx, "server (/props n_ctx)"
        info.server = "llama.cpp"
    slots = _int(props.get("total_slots"))
    if slots:
        info.slots, info.slots_source = slots, "server (/props total_slots)"


def _from_models(info: ServerInfo, models: Any, model: str) -> None:
    data = models.get("data") if isinstance(models, dict) else None
    if not isinstance(data, list):
        return
    entries = [m for m in data if isinstance(m, dict)]
    entry = next((m for m in entries if m.get("id") == model), entries[0] if entries else None)
    if entry is None:
        return
    window = _int(entry.get("max_model_len"))
    if window and info.context_window is None:
        info.context_window, info.window_source = window, "server (/v1/models max_model_len)"
        info.server = info.server or "vllm"
    if entry.get("owned_by") == "me" and info.server is None:
        info.server = "llama-cpp-python"


def _from_lmstudio(info: ServerInfo, models: Any, model: str) -> None:
    data = models.get("data") if isinstance(models, dict) else None
    if not isinstance(data, list) or info.context_window is not None:
        return
    for entry in data:
        if isinstance(entry, dict) and entry.get("id") == model:
            window = _int(entry.get("loaded_context_length")) or _int(
                entry.get("max_context_length"))
            if window:
                info.context_window = window
                info.window_source = "server (/api/v0/models loaded_context_length)"
                info.server = "lmstudio"


def _from_ollama(info: ServerInfo, shown: Any) -> None:
    if not isinstance(shown, dict) or info.context_window is not None:
        return
    params = shown.get("parameters")
    if isinstance(params, str):
        for line in params.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == "num_ctx" and parts[1].isdigit():
                info.context_window = int(parts[1])
                info.window_source = "server (/api/show num_ctx)"
    if info.context_window is None and ("model_info" in shown or "modelfile" in shown):
        info.context_window = OLLAMA_DEFAULT_CTX
        info.window_source = f"Ollama's default num_ctx ({OLLAMA_DEFAULT_CTX})"
    info.server = "ollama"


async def probe(base_url: str, model: str, api_key: str | None) -> ServerInfo:
    """Ask a self-hosted server at ``base_url`` what it can do (see the module table),
    within ``PROBE_DEADLINE_S``: what was learnt by then is kept, the rest stays unknown."""
    info = ServerInfo()
    try:
        await asyncio.wait_for(_probe(info, base_url, model, api_key), PROBE_DEADLINE_S)
    except asyncio.TimeoutError:
        info.cut_short = True
    return info


async def _probe(info: ServerInfo, base_url: str, model: str, api_key: str | None) -> None:
    import httpx

    root = server_root(base_url)
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    async with httpx.AsyncClient(timeout=PROBE_TIMEOUT_S, headers=headers) as client:
        _from_props(info, await _get(client, join_url(root, "/props")))
        _from_models(info, await _get(client, join_url(base_url, "/models")), model)
        if info.context_window is None:
            _from_lmstudio(info, await _get(client, join_url(root, "/api/v0/models")), model)
        if info.context_window is None and info.server is None:
            _from_ollama(info, await _post(client, join_url(root, "/api/show"),
                                           {"model": model}))
        counted = await _post(client, join_url(root, "/extras/tokenize/count"),
                              {"input": "hello", "model": model})
        if isinstance(counted, dict) and _int(counted.get("count")):
            info.tokenizer = info.server = "llama-cpp-python"
            if info.slots is None:
                info.slots, info.slots_source = 1, "llama-cpp-python serves one at a time"
        else:
            tokens = await _post(client, join_url(root, "/tokenize"),
                                 {"content": "hello", "prompt": "hello", "model": model})
            if isinstance(tokens, dict) and (isinstance(tokens.get("tokens"), list)
                                             or _int(tokens.get("count"))):
                info.tokenizer = "vllm" if "count" in tokens else "llama.cpp"
                window = _int(tokens.get("max_model_len"))
                if window and info.context_window is None:
                    info.context_window = window
                    info.window_source = "server (/tokenize max_model_len)"


async def count_tokens(base_url: str, model: str, api_key: str | None, tokenizer: str,
                       text: str, client: Any) -> int | None:
    """Tokens of ``text`` as the server counts them (``None`` when it did not answer)."""
    root = server_root(base_url)
    if tokenizer == "llama-cpp-python":
        got = await _post(client, join_url(root, "/extras/tokenize/count"),
                          {"input": text, "model": model},
                          timeout=COUNT_TIMEOUT_S)
        return _int(got.get("count")) if isinstance(got, dict) else None
    if tokenizer == "vllm":
        got = await _post(client, join_url(root, "/tokenize"), {"model": model, "prompt": text},
                          timeout=COUNT_TIMEOUT_S)
        return _int(got.get("count")) if isinstance(got, dict) else None
    got = await _post(client, join_url(root, "/tokenize"), {"content": text},
                          timeout=COUNT_TIMEOUT_S)
    tokens = got.get("tokens") if isinstance(got, dict) else None
    return len(tokens) if isinstance(tokens, list) else None
