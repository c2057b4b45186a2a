"""The model providers judgekit can call, one :class:`ProviderSpec` each.

A spec says everything judgekit knows about a provider: its key and base-URL variables,
the model used when no judge model is given, how bare model names are recognised, the
request parameters that shape answers (part of every cache key), and the factory of its
client. Each built-in spec is a constant of this module named after its provider
(:data:`ANTHROPIC`, :data:`OPENAI`, :data:`LLAMACPP`, ...).

Other installed packages add providers through the entry-point group
``judgekit.providers``: each entry names a :class:`ProviderSpec` object, under the
provider's name (``myprov = "mypkg.judge:MYPROV"`` makes ``myprov:<model>`` a judge
model). judgekit declares its own specs the same way; where its entries are missing from
the installed metadata (a source tree that was not installed), the built-in table stands
in for them. A plug-in named like a built-in provider is ignored, and one that cannot be
loaded is left out; both are kept as problems (:func:`problems`) for the caller to report.

Example:
    >>> spec = PROVIDERS["anthropic"]
    >>> spec.key_var, spec.default_model
    ('ANTHROPIC_API_KEY', 'anthropic:claude-sonnet-4-6')
    >>> parse_model("gpt-4.1")
    ('openai', 'gpt-4.1')
    >>> LLAMACPP.default_base_url, LLAMACPP.local
    ('http://127.0.0.1:8080/v1', True)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from judgekit.engine.settings import AnswerSettings
from judgekit.errors import ConfigError
from judgekit.plugins import GROUPS, Plugin, PluginProblem, load_group

#: ``(config, api_key, base_url) -> Provider``: builds the client of one engine (an
#: :class:`~judgekit.engine.config.EngineConfig` in, a
#: :class:`~judgekit.engine.providers.Provider` out), or the ``"module:function"`` path
#: of such a function, imported when a client is first made.
ClientFactory = Callable[[Any, str, "str | None"], Any]


@dataclass(frozen=True)
class ProviderSpec:
    """Everything judgekit knows about one provider, in one place.

    Attributes:
        name: the prefix of model ids (``"anthropic"`` in ``anthropic:claude-x``).
        key_var: environment variable holding the API key.
        base_url_var: environment variable holding a base URL.
        default_model: the model used when the key is set and no judge model is given.
        bare_prefixes: model names without a prefix that belong to this provider.
        params: the request parameters that shape answers (recorded in cache keys).
        factory: ``(config, api_key, base_url) -> Provider``, or its ``"module:function"``
            path (the SDK is imported only when a client is made).
        default_base_url: where the server is when no base URL is given (local presets).
        local: a self-hosted server: no key needed, no price, slots and window asked of it.
        key_required: whether calls need ``key_var`` set (hosted routes whose SDK finds
            credentials itself, like Bedrock and Vertex, and local servers do not).
        models_path: the API's list of models below the base URL (``"/models"`` for an
            OpenAI-compatible one, ``"/v1/models"`` for Anthropic's): asked once before a
            run to check that the server given answers as that API; ``None``: not checked.
    """

    name: str
    key_var: str
    base_url_var: str
    default_model: str | None
    bare_prefixes: tuple[str, ...]
    params: Callable[[AnswerSettings], dict[str, Any]]
    factory: ClientFactory | str
    default_base_url: str | None = None
    local: bool = False
    key_required: bool = True
    models_path: str | None = None


def anthropic_params(config: AnswerSettings) -> dict[str, Any]:
    """What shapes an answer of the Messages API: it sets sampling itself, so only the
    token bound and the route."""
    return {"max_tokens": config.max_tokens, "route": "tool"}


def openai_params(config: AnswerSettings) -> dict[str, Any]:
    """What shapes an answer of an OpenAI-compatible server."""
    route = "tool" if config.openai_route == "tool" else config.structured_output
    return {"temperature": config.temperature, "max_tokens": config.max_tokens,
            "route": route}


_ANTHROPIC_MODULE = "judgekit.engine.providers.anthropic"
_OPENAI_MODULE = "judgekit.engine.providers.openai"


def _local(name: str, key_var: str, url: str) -> ProviderSpec:
    """A self-hosted OpenAI-compatible server with its usual address."""
    return ProviderSpec(name, key_var, "", None, (), openai_params,
                        f"{_OPENAI_MODULE}:openai_client", default_base_url=url,
                        local=True, key_required=False, models_path="/models")


ANTHROPIC = ProviderSpec("anthropic", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
                         "anthropic:claude-sonnet-4-6", ("claude",), anthropic_params,
                         f"{_ANTHROPIC_MODULE}:anthropic_client", models_path="/v1/models")
OPENAI = ProviderSpec("openai", "OPENAI_API_KEY", "OPENAI_BASE_URL", "openai:gpt-4.1",
                      ("gpt", "o1", "o3", "o4", "chatgpt"), openai_params,
                      f"{_OPENAI_MODULE}:openai_client", models_path="/models")
#: Azure OpenAI: the model is the deployment name; the endpoint comes from
#: AZURE_OPENAI_ENDPOINT (or a base URL), the API version from OPENAI_API_VERSION.
AZURE = ProviderSpec("azure", "AZURE_OPENAI_API_KEY", "AZURE_OPENAI_ENDPOINT", None, (),
                     openai_params, f"{_OPENAI_MODULE}:azure_client")
#: Anthropic on AWS Bedrock and Google Vertex: the SDKs find AWS / Google credentials.
BEDROCK = ProviderSpec("bedrock", "AWS_BEARER_TOKEN_BEDROCK", "ANTHROPIC_BEDROCK_BASE_URL",
                       None, (), anthropic_params, f"{_ANTHROPIC_MODULE}:bedrock_client",
                       key_required=False)
VERTEX = ProviderSpec("vertex", "ANTHROPIC_VERTEX_ACCESS_TOKEN", "ANTHROPIC_VERTEX_BASE_URL",
                      None, (), anthropic_params, f"{_ANTHROPIC_MODULE}:vertex_client",
                      key_required=False)
VLLM = _local("vllm", "VLLM_API_KEY", "http://127.0.0.1:8000/v1")
OLLAMA = _local("ollama", "OLLAMA_API_KEY", "http://127.0.0.1:11434/v1")
LLAMACPP = _local("llamacpp", "LLAMACPP_API_KEY", "http://127.0.0.1:8080/v1")
LMSTUDIO = _local("lmstudio", "LMSTUDIO_API_KEY", "http://127.0.0.1:1234/v1")

#: judgekit's own providers, in the order they are listed and bare names are matched.
BUILTINS: tuple[ProviderSpec, ...] = (ANTHROPIC, OPENAI, AZURE, BEDROCK, VERTEX, VLLM,
                                      OLLAMA, LLAMACPP, LMSTUDIO)


@dataclass
class _Table:
    specs: dict[str, ProviderSpec]
    problems: list[PluginProblem]
    reported: int = field(default=0)


_table: _Table | None = None


def _refusal(plugin: Plugin, obj: Any, taken: Mapping[str, ProviderSpec]) -> str | None:
    """Why ``obj``, loaded from ``plugin``, cannot join the table (``None``: it can)."""
    if not isinstance(obj, ProviderSpec):
        return f"{plugin.value} is a {type(obj).__name__}, not a ProviderSpec"
    if obj.name != plugin.name:
        return f"its spec is named {obj.name!r}, not {plugin.name!r}"
    if plugin.name in taken and not plugin.builtin:
        return "judgekit has a provider of that name; the plug-in is ignored"
    return None


def _build() -> _Table:
    specs = {spec.name: spec for spec in BUILTINS}
    loaded, problems = load_group(GROUPS["providers"])
    for plugin, obj in loaded:  # judgekit's own entries come first
        refusal = _refusal(plugin, obj, specs)
        if refusal is not None:
            problems.append(PluginProblem(GROUPS["providers"], plugin.name,
                                          plugin.distribution, refusal))
        else:
            specs[plugin.name] = obj
    return _Table(specs, problems)


def _current() -> _Table:
    global _table
    if _table is None:
        _table = _build()
    return _table


def providers() -> Mapping[str, ProviderSpec]:
    """Every provider by name: judgekit's own, then those of plug-ins (read once, kept
    until :func:`refresh`)."""
    return _current().specs


def refresh() -> None:
    """Read the plug-ins again on next use (after packages were installed, say)."""
    global _table
    _table = None


def problems() -> list[PluginProblem]:
    """The provider plug-ins left out, and why."""
    return list(_current().problems)


def unreported_problems() -> list[PluginProblem]:
    """The problems no caller has taken yet (each is handed out once)."""
    table = _current()
    new = table.problems[table.reported:]
    table.reported = len(table.problems)
    return new


class _Providers(Mapping[str, ProviderSpec]):
    """:func:`providers` as a mapping that reads the registry when first used."""

    def __getitem__(self, name: str) -> ProviderSpec:
        return providers()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(providers())

    def __len__(self) -> int:
        return len(providers())

    def __repr__(self) -> str:
        return f"PROVIDERS({', '.join(providers())})"


#: Every provider by name, plug-ins included (:func:`providers`, read on first use).
PROVIDERS: Mapping[str, ProviderSpec] = _Providers()


def _unknown(model: str) -> ConfigError:
    names = ", ".join(f"{p}:<model>" for p in providers())
    provider = model.split(":", 1)[0]
    why = "".join(f"; {p}" for p in problems() if p.name == provider)
    return ConfigError(f"unknown judge model {model!r}: use one of {names}{why}")


def parse_model(model: str) -> tuple[str, str]:
    """``"anthropic:claude-x"`` → ``("anthropic", "claude-x")``; a bare name is matched to
    its provider by prefix (``claude…`` Anthropic, ``gpt…``/``o1…``/``o3…``/``o4…`` OpenAI)."""
    table = providers()
    if ":" in model:
        provider, name = model.split(":", 1)
        if provider in table and name:
            return provider, name
        raise _unknown(model)
    for spec in table.values():
        if spec.bare_prefixes and model.startswith(spec.bare_prefixes):
            return spec.name, model
    raise _unknown(model)


def spec_for(provider: str) -> ProviderSpec:
    """The spec of ``provider`` (a name :func:`parse_model` gave)."""
    return providers()[provider]


def default_judges(specs: Iterable[ProviderSpec] | None = None) -> tuple[ProviderSpec, ...]:
    """The providers (of ``specs``, default: every one) that have a default model, in the
    order they are tried when no judge model is given: the first whose key is set."""
    return tuple(spec for spec in (providers().values() if specs is None else specs)
                 if spec.default_model)
