"""How the engine calls the model: :class:`EngineConfig`, validated once.

The model id is parsed when the config is built (``claude-x`` becomes
``anthropic:claude-x``); everything downstream reads ``provider`` and ``model_name``.
A judge string ``MODEL@URL`` (the command line's judge option and
:func:`judgekit.evaluate`'s ``judge`` alike) is parsed here too, once: the judge calls that
server, with no key needed. Verdicts are cached under the model and the server that gave
them (:meth:`EngineConfig.verdict_scope`).
:func:`judge_configs` turns the judges given (one, or several for a jury) into configs.

Example:
    >>> c = EngineConfig(model="claude-haiku-4-5", concurrency=8)
    >>> c.model, c.provider, c.model_name
    ('anthropic:claude-haiku-4-5', 'anthropic', 'claude-haiku-4-5')
    >>> c = EngineConfig(model="openai:m1@http://127.0.0.1:8081/v1")
    >>> c.model, c.base_url, c.cache_scope
    ('openai:m1', 'http://127.0.0.1:8081/v1', 'http://127.0.0.1:8081/v1')
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, \
    model_validator

from judgekit.engine.events import EngineEvent
from judgekit.engine.modes import Choice
from judgekit.engine.redact import register_url
from judgekit.engine.registry import BUILTINS, default_judges, parse_model, spec_for
from judgekit.engine.serving import is_local_url
from judgekit.engine.urls import redact_url
from judgekit.errors import ConfigError


def _how_to_enable() -> str:
    judges = default_judges(BUILTINS)
    models = " or ".join(f"{spec.name}:<model>" for spec in judges)
    keys = " / ".join(spec.key_var for spec in judges)
    local = [spec for spec in BUILTINS if spec.local and spec.default_base_url]
    shown = next((spec for spec in local if spec.name == "llamacpp"), local[0])
    others = ", ".join(f"{spec.name}:" for spec in local if spec is not shown)
    return (f"judging skipped: pass {{option:judge}} {models} (or set {keys}), or MODEL@URL "
            f"for a server of your own, no key needed ({shown.name}:<model>@"
            f"{shown.default_base_url}; also {others})")


#: One line callers print when judging is skipped for want of a model (``{option:judge}``
#: is the caller's way to name the judge model; see :func:`judgekit.errors.render_options`).
HOW_TO_ENABLE = _how_to_enable()


def check_base_url(url: str, where: str = "{option:base_url}") -> str:
    """``url`` when it is an ``http(s)://host...`` URL; else :class:`ConfigError`
    (``where`` names what gave it: the option by default, or an environment variable).
    The secrets it holds are registered for redaction (:func:`register_url`)."""
    register_url(url)
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  a port that is not a number is refused here
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{where} {redact_url(url)!r} is not a URL: expected "
                          "http://HOST[:PORT][/PATH] or https://...")
    return url


def split_judge(text: str) -> tuple[str, str | None]:
    """``MODEL@URL`` → ``(MODEL, URL)``; ``MODEL`` → ``(MODEL, None)``. Only an ``@`` that
    starts ``http://`` or ``https://`` begins a URL (model names may hold ``@`` too).

    Example:
        >>> split_judge("openai:m1@http://127.0.0.1:8081/v1")
        ('openai:m1', 'http://127.0.0.1:8081/v1')
        >>> split_judge("vertex:claude-sonnet-4@20250514")
        ('vertex:claude-sonnet-4@20250514', None)
    """
    for scheme in ("@http://", "@https://"):
        at = text.find(scheme)
        if at > 0:
            shown = f"{text[:at]}@{redact_url(text[at + 1:])}"
            return text[:at], check_base_url(text[at + 1:], where=f"{{option:judge}} {shown!r}:")
    return text, None


def _check_named_api(model: str, url: str) -> None:
    """A bare model name before ``@URL`` that names no provider (``smollm2@URL``) is refused
    with the forms that work: the server's API must be named, as ``llamacpp:smollm2@URL``
    (or ``openai:`` for any OpenAI-compatible server)."""
    try:
        parse_model(model)
    except ConfigError:
        if ":" in model:
            raise
        shown = redact_url(url)
        raise ConfigError(
            f"{{option:judge}} {model}@{shown}: name the API the server speaks before the "
            f"model: llamacpp:{model}@{shown} (llama.cpp), ollama:, vllm:, lmstudio:, or "
            f"openai:{model}@{shown} for any OpenAI-compatible server") from None


#: defaults for a hosted API and for a self-hosted server (see :meth:`EngineConfig.settled`).
HOSTED_CONCURRENCY = 16
HOSTED_TIMEOUT_S = 60.0
HOSTED_TIMEOUT_RETRIES = 2
LOCAL_TIMEOUT_S = 600.0
#: model answers asked per item before it is unscored (1 + re-asks).
MAX_TRIES = 3
#: attempts per call on transient failures (the first and its retries).
RETRY_ATTEMPTS = 8
#: the longest ``retry-after`` honoured, in seconds (a longer one is cut to it, counted).
RETRY_AFTER_MAX_S = 30.0
#: how verdicts are asked of OpenAI-compatible servers unless told.
STRUCTURED_OUTPUT: Choice = "auto"
#: the smallest context window a judge model may be said to have, in tokens.
MIN_CONTEXT_WINDOW = 256
#: the environment variable naming the verdict cache file, and the file without it.
CACHE_ENV = "JUDGEKIT_CACHE"
DEFAULT_CACHE_PATH = "~/.cache/judgekit/verdicts.sqlite"


def cache_file(given: Path | None = None) -> Path:
    """The SQLite file of the verdict cache: ``given``, else ``$JUDGEKIT_CACHE``, else the
    default under the user's cache directory."""
    if given is not None:
        return Path(given).expanduser()
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env).expanduser()
    return Path(DEFAULT_CACHE_PATH).expanduser()


class EngineConfig(BaseModel):
    """How the engine calls the model.

    ``model`` is ``"anthropic:<model>"`` or ``"openai:<model>"`` (any OpenAI-compatible
    server through ``base_url``); providers, their key and base-URL variables are listed
    in :mod:`judgekit.engine.registry`.
    """

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    model: str
    base_url: str | None = None
    #: what tells this judge apart in the verdict cache beside its model id; ``None``: its
    #: server, when it has a base URL (:meth:`verdict_scope`).
    cache_scope: str | None = None
    #: calls in flight at most; ``None``: 16 for a hosted API, the slots a self-hosted
    #: server reports (one when it reports none).
    concurrency: int | None = Field(None, ge=1)
    cache_path: Path | None = None
    use_cache: bool = True
    #: ask again for items the verdict cache holds as unscored (no valid verdict); False:
    #: such an item is served from the cache, unscored, with no call.
    retry_unscored: bool = True
    #: model answers asked per item before it is ``unscored`` (1 + re-asks).
    max_tries: int = Field(MAX_TRIES, ge=1)
    #: no call is admitted unless spend so far plus its worst-case cost fits under this.
    max_cost_usd: float | None = Field(None, gt=0)
    dry_run: bool = False
    batch: bool = False
    temperature: float = 0.0
    max_tokens: int = Field(2048, ge=1)
    #: whether the caller wants a progress display (the caller draws it from the events).
    progress: bool = True
    #: seconds before one HTTP call is abandoned; ``None``: 60 for a hosted API, 600 for a
    #: self-hosted server (a CPU model is slow, and an abandoned request keeps it busy).
    timeout: float | None = Field(None, gt=0)
    #: attempts per call on transient failures (429, 5xx, timeouts, dropped connections,
    #: answers that are not the API's JSON).
    retry_attempts: int = Field(RETRY_ATTEMPTS, ge=1)
    #: a call that timed out is tried again at most this many times; ``None``: twice for a
    #: hosted API, never for a self-hosted server (it may still be working on the request).
    timeout_retries: int | None = Field(None, ge=0)
    #: how verdicts are asked of OpenAI-compatible servers: ``auto`` finds the strongest
    #: mode the server accepts (see :mod:`judgekit.engine.modes`).
    structured_output: Choice = STRUCTURED_OUTPUT
    #: the judge model's context window in tokens; ``None``: asked of a self-hosted
    #: server, else the table of hosted models (see :mod:`judgekit.engine.serving`).
    context_window: int | None = Field(None, ge=MIN_CONTEXT_WINDOW)
    #: first backoff delay in seconds; doubles per attempt, with jitter, capped by ``backoff_max``.
    backoff_base: float = 1.0
    backoff_max: float = 30.0
    #: the longest ``retry-after`` honoured, in seconds; a longer one is cut to it (counted).
    retry_after_max: float = Field(RETRY_AFTER_MAX_S, ge=0)
    #: a :func:`time.monotonic` instant by which the whole run ends: no call starts after
    #: it, and no retry waits past it; ``None``: no deadline.
    deadline_at: float | None = None
    #: OpenAI structured route: JSON-schema response format or a forced function call.
    openai_route: Literal["json_schema", "tool"] = "json_schema"
    #: seconds between polls of a provider batch.
    batch_poll_seconds: float = 30.0
    #: lay requests out for the provider's prompt cache and mark their stable prefix
    #: (Anthropic's ``cache_control``); the first request of a group goes out first.
    prompt_cache: bool = True
    #: seconds a claim on an item in a shared cache lasts without renewal.
    claim_lease: float = Field(30.0, gt=0)
    #: receives progress and notes (the engine itself never prints).
    on_event: Callable[[EngineEvent], None] | None = Field(None, exclude=True, repr=False)

    @model_validator(mode="before")
    @classmethod
    def _judge_url(cls, data: Any) -> Any:
        """``model`` given as ``MODEL@URL``: that server is the base URL and the cache scope."""
        if isinstance(data, dict) and isinstance(data.get("model"), str):
            model, url = split_judge(data["model"])
            if url:
                _check_named_api(model, url)
                data = {**data, "model": model, "base_url": url,
                        "cache_scope": data.get("cache_scope") or redact_url(url)}
        return data

    @field_validator("model")
    @classmethod
    def _parse_model(cls, value: str) -> str:
        provider, name = parse_model(value)
        return f"{provider}:{name}"

    @field_validator("base_url")
    @classmethod
    def _check_url(cls, value: str | None) -> str | None:
        return check_base_url(value) if value else value

    @property
    def provider(self) -> str:
        return self.model.partition(":")[0]

    @property
    def model_name(self) -> str:
        return self.model.partition(":")[2]

    def resolved_cache_path(self) -> Path:
        """The SQLite file of the verdict cache."""
        return cache_file(self.cache_path)

    def resolved_base_url(self) -> str | None:
        if self.base_url:
            return self.base_url
        spec = spec_for(self.provider)
        env = os.environ.get(spec.base_url_var) if spec.base_url_var else None
        if env:
            return check_base_url(env, where=spec.base_url_var)
        return spec.default_base_url

    def verdict_scope(self) -> str | None:
        """What keys this judge's verdicts in the cache beside the provider and model: the
        server that answers (the base URL given, ``MODEL@URL``'s, the provider's base-URL
        variable's or a local preset's address, its credentials left out), or
        ``cache_scope`` when given; ``None`` for a hosted API at its own address. One model
        name on two servers (a broken one and a working one, say) never shares verdicts.

        Example:
            >>> EngineConfig(model="llamacpp:m", base_url="http://127.0.0.1:9/v1").verdict_scope()
            'http://127.0.0.1:9/v1'
        """
        if self.cache_scope:
            return self.cache_scope
        url = self.resolved_base_url()
        return redact_url(url) if url else None

    @property
    def local(self) -> bool:
        """The judge is a self-hosted OpenAI-compatible server (a local preset, or
        ``openai:`` with a base URL on this machine or a private network)."""
        spec = spec_for(self.provider)
        return spec.local or (spec.name == "openai" and is_local_url(self.resolved_base_url()))

    def settled(self, slots: int | None = None) -> EngineConfig:
        """This config with concurrency and timeouts decided: what was given, else the
        defaults for a hosted API or a self-hosted server (``slots``: what it reports)."""
        local = self.local
        update: dict[str, Any] = {}
        if self.concurrency is None:
            update["concurrency"] = (slots or 1) if local else HOSTED_CONCURRENCY
        if self.timeout is None:
            update["timeout"] = LOCAL_TIMEOUT_S if local else HOSTED_TIMEOUT_S
        if self.timeout_retries is None:
            update["timeout_retries"] = 0 if local else HOSTED_TIMEOUT_RETRIES
        return self.model_copy(update=update) if update else self

    def request_params(self) -> dict[str, Any]:
        """The request parameters that shape answers, as recorded in cache keys."""
        return spec_for(self.provider).params(self)


Judge = str | EngineConfig


def judge_configs(judge: Judge | Sequence[Judge], **options: Any) -> list[EngineConfig]:
    """One config per judge given: a model id, ``MODEL@URL`` or an :class:`EngineConfig`;
    several are a jury. ``options`` are :class:`EngineConfig` fields for the judges given
    as strings (``base_url``: the server of those given without ``@URL``); a config given
    whole is kept as it is. The same judge (model and server) given twice is an error.

    Example:
        >>> [c.base_url for c in judge_configs(["openai:m1@http://127.0.0.1:1/v1", "openai:m2"],
        ...                                    base_url="http://127.0.0.1:2/v1")]
        ['http://127.0.0.1:1/v1', 'http://127.0.0.1:2/v1']
    """
    given = [judge] if isinstance(judge, (str, EngineConfig)) else list(judge)
    configs = []
    for one in given:
        if isinstance(one, EngineConfig):
            configs.append(one)
            continue
        if not isinstance(one, str) or not one.strip():
            raise ConfigError(f"{{option:judge}} {one!r}: expected a model such as "
                              "anthropic:<model>, or MODEL@URL")
        try:
            configs.append(EngineConfig(**{**options, "model": one}))
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(p) for p in error["loc"]) or "judge"
            raise ConfigError(f"judge {one!r}: {where}: {error['msg']}") from None
    seen = [(c.model, c.base_url) for c in configs]
    if len(set(seen)) != len(seen):
        raise ConfigError("{option:judge}: the same judge is given twice")
    return configs


def split_model(model: str) -> tuple[str, str]:
    """Split ``"anthropic:claude-x"`` into ``("anthropic", "claude-x")``.

    Example:
        >>> split_model("openai:gpt-4.1")
        ('openai', 'gpt-4.1')
    """
    return parse_model(model)
