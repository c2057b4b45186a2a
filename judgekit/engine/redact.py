"""Keep API keys and other secrets out of everything judgekit prints or writes.

:func:`redact` hides judgekit's own provider keys and key-like tokens in messages
(``[redacted]``). :class:`Redactor` hides named secret values (variables given to agents and
tests, judgekit's provider keys) as ``[REDACTED:NAME]`` and counts what it replaced.

Example:
    >>> redact("invalid x-api-key: sk-ant-api03-abcdefghijklmnop")
    'invalid x-api-key: [redacted]'
    >>> r = Redactor({"OPENAI_API_KEY": "s3cr3t-value"})
    >>> r.text("key=s3cr3t-value")
    'key=[REDACTED:OPENAI_API_KEY]'
    >>> r.counts
    {'OPENAI_API_KEY': 1}
    >>> looks_secret("GITHUB_TOKEN"), looks_secret("LANG")
    (True, False)

A base URL's secrets (user-info, ``?api-key=...``) are registered with :func:`register_url`
when a judge is configured; :func:`redact_data` hides every registered secret in a model's
answer before it is stored (a server may echo the key it received).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from judgekit.engine.urls import url_secrets
from judgekit.secretscan import SECRET_NAME_PARTS, TOKEN, hide_keys, looks_secret

__all__ = ["PROVIDER_KEY_VARS", "SECRET_NAME_PARTS", "Redactor", "looks_secret", "provider_keys",
           "redact", "redact_data", "register_secret", "register_url"]

_TOKEN = TOKEN
_KEY_VARS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_AUTH_TOKEN")
PROVIDER_KEY_VARS: tuple[str, ...] = _KEY_VARS
"""Environment variables holding judgekit's own provider keys."""

_extra: set[str] = set()


def register_secret(value: str | None) -> None:
    """Also redact ``value`` (an API key given other than through the environment)."""
    if value and len(value) >= 4:
        _extra.add(value)


def register_url(url: str | None) -> None:
    """Also redact the secrets ``url`` holds (its password, secret query values)."""
    for value in url_secrets(url):
        register_secret(value)


def _secret_values() -> list[str]:
    """The registered secrets and the provider keys set, longest first."""
    secrets = set(_extra)
    for var in _KEY_VARS:
        value = os.environ.get(var)
        if value and len(value) >= 4:
            secrets.add(value)
    return sorted(secrets, key=len, reverse=True)


def _hide(text: str, secrets: list[str]) -> str:
    for value in secrets:
        if value in text:
            text = text.replace(value, "[redacted]")
    return text


def redact(text: str) -> str:
    """``text`` with key-like tokens and the actual key values replaced by ``[redacted]``."""
    return hide_keys(_hide(text, _secret_values()))[0]


def redact_data(value: Any) -> Any:
    """JSON-like ``value`` (a model's answer) with the actual secret values
    replaced by ``[redacted]`` in every string, keys too. Only the values: an answer's
    prose about "Bearer tokens" or ``sk-`` prefixes is kept as it is."""
    secrets = _secret_values()
    if not secrets:
        return value

    def walk(item: Any) -> Any:
        if isinstance(item, str):
            return _hide(item, secrets)
        if isinstance(item, dict):
            return {walk(k): walk(v) for k, v in item.items()}
        if isinstance(item, list):
            return [walk(v) for v in item]
        return item

    return walk(value)


def provider_keys(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """judgekit's provider keys set in ``environ`` (the process environment by default)."""
    env = os.environ if environ is None else environ
    return {name: env[name] for name in PROVIDER_KEY_VARS if env.get(name)}


class Redactor:
    """Replaces each named secret value by ``[REDACTED:NAME]`` and counts the replacements.

    ``secrets`` maps names to values, or lists ``(name, value)`` pairs (one name may hold
    several values). Longer values are replaced first, so a value holding another keeps its
    own name. Empty values are ignored (there is nothing to hide).
    """

    def __init__(self, secrets: Mapping[str, str] | Iterable[tuple[str, str]] = ()) -> None:
        pairs = secrets.items() if isinstance(secrets, Mapping) else secrets
        unique: dict[str, str] = {}
        for name, value in pairs:
            if value and value not in unique:
                unique[value] = name
        self.secrets: list[tuple[str, str]] = sorted(
            ((name, value) for value, name in unique.items()),
            key=lambda item: len(item[1]), reverse=True)
        self.counts: dict[str, int] = {}

    def __bool__(self) -> bool:
        return bool(self.secrets)

    def text(self, text: str) -> str:
        """``text`` with every secret value replaced (counted in :attr:`counts`)."""
        for name, value in self.secrets:
            found = text.count(value)
            if found:
                text = text.replace(value, f"[REDACTED:{name}]")
                self.counts[name] = self.counts.get(name, 0) + found
        return text

    def data(self, value: Any) -> Any:
        """A copy of JSON-like ``value`` with every string (keys too) passed through :meth:`text`."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.data(k): self.data(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.data(v) for v in value]
        return value

    def plain(self, text: str) -> str:
        """``text`` with every secret value replaced, without counting (for messages)."""
        for name, value in self.secrets:
            text = text.replace(value, f"[REDACTED:{name}]")
        return text
