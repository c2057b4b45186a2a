"""Keep API keys out of everything judgekit prints or writes.

Example:
    >>> redact("invalid x-api-key: sk-ant-api03-abcdefghijklmnop")
    'invalid x-api-key: [redacted]'
"""

from __future__ import annotations

import os
import re

_TOKEN = re.compile(r"\b(?:sk|pk|rk)-[A-Za-z0-9_\-]{6,}|\bBearer\s+[A-Za-z0-9_\-\.]{8,}")
_KEY_VARS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_AUTH_TOKEN")
_extra: set[str] = set()


def register_secret(value: str | None) -> None:
    """Also redact ``value`` (an API key given other than through the environment)."""
    if value and len(value) >= 4:
        _extra.add(value)


def redact(text: str) -> str:
    """``text`` with key-like tokens and the actual key values replaced by ``[redacted]``."""
    secrets = set(_extra)
    for var in _KEY_VARS:
        value = os.environ.get(var)
        if value and len(value) >= 4:
            secrets.add(value)
    for value in sorted(secrets, key=len, reverse=True):
        text = text.replace(value, "[redacted]")
    return _TOKEN.sub("[redacted]", text)
