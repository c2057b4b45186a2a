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

import base64
import binascii
import re
from functools import lru_cache
from typing import Any

#: Where a key with a short, common prefix (``sk-``) may start: after a character that is
#: not part of a word, after an escape a tool printed (``\n``, ``\t``: a letter follows the
#: backslash), or after a URL-encoded character (``%3D``).
_START = r"(?:(?<![A-Za-z0-9_])|(?<=\\[nrtbfv])|(?<=%[0-9A-Fa-f]{2}))"
#: A key body of letters and digits holding an upper-case letter, a lower-case letter and a
#: digit (a legacy OpenAI key): told from a word however it is glued to what precedes it.
_MIXED = r"(?=[A-Za-z0-9]{0,200}[A-Z])(?=[A-Za-z0-9]{0,200}[a-z])(?=[A-Za-z0-9]{0,200}[0-9])"
#: The same for a body that may hold ``-`` and ``_`` (an OpenAI project key).
_MIXED_DASHED = _MIXED.replace("A-Za-z0-9", r"A-Za-z0-9_\-")

#: Key-like tokens: provider keys by their shapes, and bearer tokens. A distinctive prefix
#: (``sk-ant-``, ``sk-proj-``, ``ghp_``, ``github_pat_``, ``xoxb-``, ``AIza``, ``hf_``,
#: ``AKIA``) is a key wherever it starts, glued to a word or a digit too; a short one
#: (``sk-``) only where a key can start (:data:`_START`) or with a key's mixed body. A body
#: stops at a backslash, a quote or ``%``, so a redaction never eats a JSON escape.
TOKEN = re.compile(
    r"sk-ant-[a-z]{2,6}[0-9]{2}-[A-Za-z0-9_\-]{16,}"
    r"|sk-(?:proj|svcacct|admin)-" + _MIXED_DASHED + r"[A-Za-z0-9_\-]{20,}"
    r"|sk-" + _MIXED + r"[A-Za-z0-9]{32,}"
    + r"|" + _START + r"(?:sk|pk|rk)-[A-Za-z0-9_\-]{6,}"
    r"|\bBearer\s+[A-Za-z0-9_\-\.=]{8,}"
    r"|gh[pousr]_[A-Za-z0-9]{20,}"
    r"|github_pat_[A-Za-z0-9_]{20,}"
    r"|(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])"
    r"|xox[abposre]-[A-Za-z0-9\-]{10,}"
    r"|AIza[0-9A-Za-z_\-]{30,}"
    r"|hf_[A-Za-z0-9]{30,}"
    r"|" + _START + r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}")
#: An AWS secret access key (40 characters of base64) within a line of the access key id
#: before it: told from other base64 only by that neighbour (or by its name:
#: ``aws_secret_access_key=``, which :data:`_ASSIGNED` hides).
_AWS_SECRET = re.compile(
    r"(?P<id>(?:AKIA|ASIA)[0-9A-Z]{16})(?![0-9A-Z])(?P<gap>[\s\S]{1,100}?)"
    + _START.replace("A-Za-z0-9_", "A-Za-z0-9+/")
    + r"(?P<secret>" + _MIXED.replace("A-Za-z0-9", "A-Za-z0-9+/") + r"[A-Za-z0-9+/]{40})"
    r"(?![A-Za-z0-9+/=])")
_AWS_ID = re.compile(r"(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])")
#: A run of base64 (standard or URL-safe) long enough to hold a key.
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_\-]{28,}={0,2}")
#: The distinctive key prefixes looked for inside base64.
_B64_PREFIXES = (b"sk-", b"sk-ant-", b"sk-proj-", b"ghp_", b"gho_", b"ghs_", b"ghu_", b"github_pat_",
                 b"xoxb-", b"xoxp-", b"xoxa-", b"AIza", b"hf_", b"AKIA", b"ASIA")


def _b64_fragments(prefix: bytes) -> list[str]:
    """What ``prefix`` looks like inside base64 at each of the three byte alignments (the
    characters its bits alone decide)."""
    out = []
    for k in range(3):
        enc = base64.b64encode(b"\0" * k + prefix + b"\0\0\0").decode()
        start, end = -(-8 * k // 6), 8 * (k + len(prefix)) // 6
        if end - start >= 3:
            out.append(enc[start:end])
    return out


_B64_FRAGMENTS = tuple({f for p in _B64_PREFIXES for f in _b64_fragments(p)})


def _base64_key(run: str) -> bool:
    """Whether base64 ``run`` decodes (at some alignment) to text holding a key."""
    std = run.rstrip("=").replace("-", "+").replace("_", "/")
    if not any(f in std for f in _B64_FRAGMENTS):
        return False
    for offset in range(4):
        part = std[offset:]
        if len(part) % 4 == 1:
            part = part[:-1]
        part += "=" * (-len(part) % 4)
        try:
            decoded = base64.b64decode(part, validate=True).decode("latin-1")
        except (binascii.Error, ValueError):
            continue
        if TOKEN.search(decoded):
            return True
    return False


#: What any key of :data:`TOKEN` holds: a text without it is passed over at once.
_KEY_HINT = re.compile(r"sk-|pk-|rk-|Bearer|gh[pousr]_|github_pat_|AKIA|ASIA|xox|AIza|hf_|eyJ")
#: What a name :data:`_ASSIGNED` finds holds (any case).
_NAME_HINT = re.compile(r"(?i)key|token|secret|password|credential")
#: The shortest text that can hold a key :func:`hide_keys` finds.
_SHORTEST = 16


def hide_keys(text: str) -> tuple[str, int]:
    """``text`` with key-shaped tokens, AWS secret keys beside their ids and base64 holding
    a key replaced by ``[redacted]``; how many were replaced."""
    count = 0
    if len(text) < _SHORTEST:
        return text, 0
    if _AWS_ID.search(text):
        def aws(match: re.Match[str]) -> str:
            nonlocal count
            count += 1
            return match.group("id") + match.group("gap") + REDACTED
        text = _AWS_SECRET.sub(aws, text)
    if _KEY_HINT.search(text):
        text, n = TOKEN.subn(REDACTED, text)
        count += n

    def wrapped(match: re.Match[str]) -> str:
        nonlocal count
        if not _base64_key(match.group(0)):
            return match.group(0)
        count += 1
        return REDACTED

    return _BASE64_RUN.sub(wrapped, text), count


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
    (?:(?<![A-Za-z0-9_\-])|(?<=%[0-9A-Fa-f]{2}))
    (?P<name>[A-Za-z_][A-Za-z0-9_\-]{0,80}(?:key|token|secret|password|credential)s?)
    (?P<sep>\s*[=:]\s*["']?|["']\s*:\s*["']|%3[DdAa](?:%22)?)
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


@lru_cache(maxsize=4096)
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

        if _NAME_HINT.search(text):
            text = _ASSIGNED.sub(assigned, text)
        n = 0
        if "PRIVATE KEY-----" in text:
            text, n = PRIVATE_KEY.subn(REDACTED, text)
        text, found = hide_keys(text)
        self.count += n + found

        def password(match: re.Match[str]) -> str:
            if _hidden(match.group("pw")):
                return match.group(0)
            self.count += 1
            return match.group("pre") + REDACTED

        return _URL_PASSWORD.sub(password, text) if "://" in text else text

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
                for m in (_ASSIGNED.finditer(item) if _NAME_HINT.search(item) else ()):
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

    def data_in_place(self, value: Any, name: str | None = None) -> Any:
        """:meth:`data` that changes ``value``'s objects and lists in place rather than
        copying them (a large document is not held twice); the value, or its new string."""
        if isinstance(value, dict):
            for key in value:
                value[key] = self.data_in_place(value[key], key if isinstance(key, str)
                                                else None)
            return value
        if isinstance(value, list):
            for i, item in enumerate(value):
                value[i] = self.data_in_place(item)
            return value
        return self.data(value, name)


__all__ = ["MIN_LEARNED", "PRIVATE_KEY", "REDACTED", "SECRET_NAME_PARTS", "TOKEN",
           "SecretScrubber", "hide_keys", "looks_secret", "secret_field"]
