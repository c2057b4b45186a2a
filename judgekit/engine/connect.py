"""From a model id to a client: the provider's key and base URL resolved, its factory
loaded.

A :class:`~judgekit.engine.registry.ProviderSpec` names its factory by a
``"module:function"`` path (or holds the function itself); it is imported here, when the
first client is made, so that reading the registry never loads an SDK.

Example:
    >>> from judgekit.engine.config import EngineConfig
    >>> p = make_provider(EngineConfig(model="openai:gpt-4.1", base_url="http://127.0.0.1:9/v1"))
    >>> p.name, p.model
    ('openai', 'gpt-4.1')
"""

from __future__ import annotations

import importlib
import os

from judgekit.engine.config import EngineConfig
from judgekit.engine.providers import PLACEHOLDER_KEY, Provider
from judgekit.engine.redact import register_secret, register_url
from judgekit.engine.registry import ClientFactory, ProviderSpec, spec_for
from judgekit.errors import ConfigError


def factory_of(spec: ProviderSpec) -> ClientFactory:
    """The client factory of ``spec``, its module imported when it is given by path."""
    if not isinstance(spec.factory, str):
        return spec.factory
    module, _, name = spec.factory.partition(":")
    factory: ClientFactory = getattr(importlib.import_module(module), name)
    return factory


def make_provider(config: EngineConfig) -> Provider:
    """The provider named by ``config.model``, with key and base URL resolved."""
    spec = spec_for(config.provider)
    base_url = config.resolved_base_url()
    key = os.environ.get(spec.key_var) if spec.key_var else None
    if not key:
        if base_url is None and spec.key_required:
            raise ConfigError(f"{spec.key_var} is not set (needed for {config.model})")
        key = PLACEHOLDER_KEY
    else:
        register_secret(key)  # a server that echoes it: the answer is redacted before storing
    register_url(base_url)
    provider: Provider = factory_of(spec)(config, key, base_url)
    return provider


def api_key_of(config: EngineConfig) -> str | None:
    """The key calls to ``config``'s provider carry (``None`` for a keyless server)."""
    spec = spec_for(config.provider)
    return os.environ.get(spec.key_var) or None if spec.key_var else None
