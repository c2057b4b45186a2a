"""What a provider reads of the engine's configuration.

Providers are built from an :class:`~judgekit.engine.config.EngineConfig`, but they depend
only on these protocols, so the configuration (which parses model ids with the provider
table) and the providers (which the table names) do not import each other.
"""

from __future__ import annotations

from typing import Any, Protocol


class AnswerSettings(Protocol):
    """The settings a provider's answers depend on (recorded in every cache key)."""

    @property
    def max_tokens(self) -> int: ...

    @property
    def temperature(self) -> float: ...

    @property
    def structured_output(self) -> str: ...

    @property
    def openai_route(self) -> str: ...


class ProviderSettings(AnswerSettings, Protocol):
    """The settings a provider client reads (an ``EngineConfig`` has them all)."""

    @property
    def provider(self) -> str: ...

    @property
    def model_name(self) -> str: ...

    @property
    def prompt_cache(self) -> bool: ...

    @property
    def concurrency(self) -> int | None: ...

    @property
    def timeout(self) -> float | None: ...

    def settled(self, slots: int | None = None) -> ProviderSettings:
        """These settings with concurrency and timeouts decided."""
        ...

    def request_params(self) -> dict[str, Any]:
        """The request parameters that shape answers, as recorded in cache keys."""
        ...


__all__ = ["AnswerSettings", "ProviderSettings"]
