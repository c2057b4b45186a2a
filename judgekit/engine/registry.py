"""The model providers judgekit can call, one :class:`ProviderSpec` each.

Adding a provider means adding one spec here (and its module under
``judgekit/engine/providers/``): its key and base-URL variables, the model used when no
``--judge`` is given, how bare model names are recognised, the request parameters that
shape answers (part of every cache key), and the factory of its client.

Example:
    >>> spec = PROVIDERS["anthropic"]
    >>> spec.key_var, spec.default_model
    ('ANTHROPIC_API_KEY', 'anthropic:claude-sonnet-4-6')
    >>> parse_model("gpt-4.1")
    ('openai', 'gpt-4.1')
    >>> PROVIDERS["llamacpp"].default_base_url, PROVIDERS["llamacpp"].local
    ('http://127.0.0.1:8080/v1', True)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from judgekit.errors import ConfigError

if TYPE_CHECKING:
    from judgekit.engine.config import EngineConfig
    from judgekit.engine.providers import Provider

ClientFactory = Callable[["EngineConfig", str, "str | None"], "Provider"]


@dataclass(frozen=True)
class ProviderSpec:
    """Everything judgekit knows about one provider, in one place.

    Attributes:
        name: the prefix of model ids (``"anthropic"`` in ``anthropic:claude-x``).
        key_var: environment variable holding the API key.
        base_url_var: environment variable holding a base URL.
        default_model: the model used when the key is set and no ``--judge`` is given.
        bare_prefixes: model names without a prefix that belong to this provider.
        params: the request parameters that shape answers (recorded in cache keys).
        factory: ``(config, api_key, base_url) -> Provider``; imports the SDK lazily.
        default_base_url: where the server is when no base URL is given (local presets).
        local: a self-hosted server: no key needed, no price, slots and window asked of it.
        key_required: whether calls need ``key_var`` set (hosted routes whose SDK finds
            credentials itself, like Bedrock and Vertex, and local servers do not).
    """

    name: str
    key_var: str
    base_url_var: str
    default_model: str | None
    bare_prefixes: tuple[str, ...]
    params: Callable[[EngineConfig], dict[str, Any]]
    factory: ClientFactory
    default_base_url: str | None = None
    local: bool = False
    key_required: bool = True


def _anthropic_params(config: EngineConfig) -> dict[str, Any]:
    # the Messages API sets sampling itself: only the token bound and the route shape answers
    return {"max_tokens": config.max_tokens, "route": "tool"}


def _openai_params(config: EngineConfig) -> dict[str, Any]:
    route = "tool" if config.openai_route == "tool" else config.structured_output
    return {"temperature": config.temperature, "max_tokens": config.max_tokens,
            "route": route}


def _anthropic_client(config: EngineConfig, key: str, base_url: str | None) -> Provider:
    from judgekit.engine.providers.anthropic import AnthropicProvider

    return AnthropicProvider(config, api_key=key, base_url=base_url)


def _openai_client(config: EngineConfig, key: str, base_url: str | None) -> Provider:
    from judgekit.engine.providers.openai import OpenAIProvider

    return OpenAIProvider(config, api_key=key, base_url=base_url)


def _azure_client(config: EngineConfig, key: str, base_url: str | None) -> Provider:
    from judgekit.engine.providers.openai import OpenAIProvider

    return OpenAIProvider(config, api_key=key, base_url=base_url, azure=True)


def _bedrock_client(config: EngineConfig, key: str, base_url: str | None) -> Provider:
    from judgekit.engine.providers.anthropic import AnthropicProvider

    return AnthropicProvider(config, api_key=key, base_url=base_url, route="bedrock")


def _vertex_client(config: EngineConfig, key: str, base_url: str | None) -> Provider:
    from judgekit.engine.providers.anthropic import AnthropicProvider

    return AnthropicProvider(config, api_key=key, base_url=base_url, route="vertex")


def _local(name: str, key_var: str, url: str) -> ProviderSpec:
    """A self-hosted OpenAI-compatible server with its usual address."""
    return ProviderSpec(name, key_var, "", None, (), _openai_params, _openai_client,
                        default_base_url=url, local=True, key_required=False)


PROVIDERS: dict[str, ProviderSpec] = {
    spec.name: spec for spec in (
        ProviderSpec("anthropic", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
                     "anthropic:claude-sonnet-4-6", ("claude",), _anthropic_params,
                     _anthropic_client),
        ProviderSpec("openai", "OPENAI_API_KEY", "OPENAI_BASE_URL", "openai:gpt-4.1",
                     ("gpt", "o1", "o3", "o4", "chatgpt"), _openai_params, _openai_client),
        # Azure OpenAI: MODEL is the deployment name; the endpoint comes from
        # AZURE_OPENAI_ENDPOINT (or --base-url), the API version from OPENAI_API_VERSION.
        ProviderSpec("azure", "AZURE_OPENAI_API_KEY", "AZURE_OPENAI_ENDPOINT", None, (),
                     _openai_params, _azure_client),
        # Anthropic on AWS Bedrock and Google Vertex: the SDKs find AWS / Google credentials.
        ProviderSpec("bedrock", "AWS_BEARER_TOKEN_BEDROCK", "ANTHROPIC_BEDROCK_BASE_URL",
                     None, (), _anthropic_params, _bedrock_client, key_required=False),
        ProviderSpec("vertex", "ANTHROPIC_VERTEX_ACCESS_TOKEN", "ANTHROPIC_VERTEX_BASE_URL",
                     None, (), _anthropic_params, _vertex_client, key_required=False),
        _local("vllm", "VLLM_API_KEY", "http://127.0.0.1:8000/v1"),
        _local("ollama", "OLLAMA_API_KEY", "http://127.0.0.1:11434/v1"),
        _local("llamacpp", "LLAMACPP_API_KEY", "http://127.0.0.1:8080/v1"),
        _local("lmstudio", "LMSTUDIO_API_KEY", "http://127.0.0.1:1234/v1"),
    )
}


def _unknown(model: str) -> ConfigError:
    names = ", ".join(f"{p}:<model>" for p in PROVIDERS)
    return ConfigError(f"unknown judge model {model!r}: use one of {names}")


def parse_model(model: str) -> tuple[str, str]:
    """``"anthropic:claude-x"`` → ``("anthropic", "claude-x")``; a bare name is matched to
    its provider by prefix (``claude…`` Anthropic, ``gpt…``/``o1…``/``o3…``/``o4…`` OpenAI)."""
    if ":" in model:
        provider, name = model.split(":", 1)
        if provider in PROVIDERS and name:
            return provider, name
        raise _unknown(model)
    for spec in PROVIDERS.values():
        if model.startswith(spec.bare_prefixes):
            return spec.name, model
    raise _unknown(model)


def spec_for(provider: str) -> ProviderSpec:
    return PROVIDERS[provider]
