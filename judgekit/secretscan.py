"""Secret-looking values in text and JSON, found without knowing the secret itself.

The patterns here are pure (no environment, no configuration): provider keys by their
prefixes (``sk-``, ``sk-ant-``, ``ghp_``, ``AKIA``, ``xox?-``, ``AIza``), ``Bearer`` tokens,
and the values of fields whose name says they hold a secret (``api_key``, ``token``,
``password``, ...). :class:`SecretScrubber` replaces each with ``[redacted]`` and counts
what it replaced. ``judgekit.engine.redact`` builds on these patterns for the values it
knows (judgekit's own keys).

Example:
    >>> s = SecretScrubber()
    >>> s.text("key sk-ant-api03-abcdefghijklmnop used")
    'key [redacted] used'
    >>> s.data({"model_kwargs": {"api_key": "local-123456", "api_base": "http://x"}})
    {'model_kwargs': {'api_key': '[redacted]', 'api_base': 'http://x'}}
    >>> s.count
    2
    >>> looks_secret("GITHUB_TOKEN"), looks_secret("LANG")
    (True, False)
"""

from __future__ import annotations

import re
from typing import Any

#: Key-like tokens: provider key prefixes and bearer tokens.
TOKEN = re.compile(
    r"\b(?:sk|pk|rk)-[A-Za-z0-9_\-]{6,}"
    r"|\bBearer\s+[A-Za-z0-9_\-\.=]{8,}"
    r"|\bgh[pousr]_[A-Za-z0-9]{20,}"
    r"|\bgithub_pat_[A-Za-z0-9_]{20,}"
    r"|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"
    r"|\bxox[abposr]-[A-Za-z0-9\-]{10,}"
    r"|\bAIza[0-9A-Za-z_\-]{30,}"
    r"|\bhf_[A-Za-z0-9]{20,}"
    r"|\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}")
#: A private key block (PEM or OpenSSH), whole.
PRIVATE_KEY = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?-----END [A-Z0-9 ]*PRIVATE "
                         r"KEY-----", re.S)
#: The password of credentials written into a URL (``scheme://user:password@host``).
_URL_PASSWORD = re.compile(r"(?P<pre>\b[A-Za-z][A-Za-z0-9+.\-]*://[^/\s:@\\]+:)"
                           r"(?P<pw>[^@\s/\\]+)(?=@)")

#: A variable or field whose name contains one of these (any case) holds a secret.
SECRET_NAME_PARTS: tuple[str, ...] = ("KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIAL")

#: Names that contain a secret-sounding part but hold none.
_NOT_SECRET = re.compile(r"(?i)^(?:keys?|.*tokens(?:_\w+)?|tokens?_\w+|"
                         r".*_(?:id|ids|name|names|env|var|file|path|type|count|limit|source|"
                         r"helper))$")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
#: A value that names a variable (``ANTHROPIC_API_KEY``) rather than holding a secret.
_VARIABLE_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")

#: ``NAME=value`` / ``"name": "value"`` / ``--name value`` with a secret-sounding name.
_ASSIGNED = re.compile(
    r"""(?ix)
    (?P<name>[A-Za-z_][A-Za-z0-9_\-]*(?:key|token|secret|password|credential)s?)
    (?P<sep>\s*[=:]\s*["']?|["']\s*:\s*["'])
    (?P<value>[^\s"',;&|\\]{6,})""")

REDACTED = "[redacted]"
#: The shortest secret value :meth:`SecretScrubber.learn` hides wherever it appears.
MIN_LEARNED = 8
#: A value already masked by whoever wrote it (``**********``): no secret left to hide.
_MASKED = re.compile(r"^[*\u2022]+$")


def _hidden(value: str) -> bool:
    """Whether ``value`` holds nothing to hide: judgekit's mark or the writer's mask."""
    return value == REDACTED or bool(_MASKED.match(value))


def looks_secret(name: str) -> bool:
    """Whether a variable called ``name`` holds a secret, judged by its name."""
    upper = name.upper()
    return any(part in upper for part in SECRET_NAME_PARTS)


def secret_field(name: str) -> bool:
    """Whether a JSON field called ``name`` holds a secret (``api_key`` yes, ``max_tokens``
    and ``input_tokens`` no)."""
    return looks_secret(name) and not _NOT_SECRET.match(_CAMEL.sub("_", name).replace("-", "_"))


class SecretScrubber:
    """Replaces secret-looking values by ``[redacted]``; :attr:`count` counts replacements.

    ``known`` are secret values to hide wherever they appear (a key the caller knows)."""

    def __init__(self, known: tuple[str, ...] | list[str] = ()) -> None:
        self.known = sorted({v for v in known if v and len(v) >= 4}, key=len, reverse=True)
        self.count = 0

    def text(self, text: str) -> str:
        """``text`` with known values, key-like tokens and assigned secrets replaced."""
        for value in self.known:
            found = text.count(value)
            if found:
                text = text.replace(value, REDACTED)
                self.count += found

        def assigned(match: re.Match[str]) -> str:
            if _hidden(match.group("value")) or not secret_field(match.group("name")):
                return match.group(0)
            self.count += 1
            return f"{match.group('name')}{match.group('sep')}{REDACTED}"

        text = _ASSIGNED.sub(assigned, text)
        for pattern in (PRIVATE_KEY, TOKEN):
            text, n = pattern.subn(REDACTED, text)
            self.count += n

        def password(match: re.Match[str]) -> str:
            if _hidden(match.group("pw")):
                return match.group(0)
            self.count += 1
            return match.group("pre") + REDACTED

        return _URL_PASSWORD.sub(password, text)

    def learn(self, value: Any, name: str | None = None) -> None:
        """Remember, as known values to hide wherever they appear, the secrets ``value``
        (JSON-like) holds under secret-named fields or assigned to secret-named variables
        in its strings (at least :data:`MIN_LEARNED` characters: a short value such as
        ``dummy`` is hidden where it is named, not in every text)."""
        found: set[str] = set()

        def walk(item: Any, key: str | None) -> None:
            if isinstance(item, str):
                if key is not None and secret_field(key) and not _hidden(item) \
                        and not _VARIABLE_NAME.match(item):
                    found.add(item)
                for m in _ASSIGNED.finditer(item):
                    if secret_field(m.group("name")) and not _hidden(m.group("value")):
                        found.add(m.group("value"))
            elif isinstance(item, dict):
                for k, v in item.items():
                    walk(v, k if isinstance(k, str) else None)
            elif isinstance(item, (list, tuple)):
                for v in item:
                    walk(v, None)

        walk(value, name)
        learned = {v for v in found if len(v) >= MIN_LEARNED} - set(self.known)
        if learned:
            self.known = sorted({*self.known, *learned}, key=len, reverse=True)

    def data(self, value: Any, name: str | None = None) -> Any:
        """A copy of JSON-like ``value``: a string under a secret-named field replaced whole,
        every other string passed through :meth:`text`."""
        if isinstance(value, str):
            if name is not None and secret_field(name) and value and not _hidden(value) \
                    and not _VARIABLE_NAME.match(value):
                self.count += 1
                return REDACTED
            return self.text(value)
        if isinstance(value, dict):
            return {k: self.data(v, k if isinstance(k, str) else None) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.data(v) for v in value]
        return value


__all__ = ["MIN_LEARNED", "PRIVATE_KEY", "REDACTED", "SECRET_NAME_PARTS", "TOKEN",
           "SecretScrubber", "looks_secret", "secret_field"]
