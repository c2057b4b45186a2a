"""Judge server URLs: shown without their secrets, joined without losing their query.

A base URL may carry credentials: user-info (``http://user:pass@host``) and secret-looking
query parameters (``?api-key=...``, ``token=``, ``sig=``, ...). :func:`redact_url` is the
form judgekit stores and prints; :func:`url_secrets` lists the values to hide from any other
text; :func:`join_url` appends a path to the URL's path and keeps its query;
:func:`split_query` parts a URL from its query, and :func:`for_client` from its query and
user-info, for SDKs that would join paths onto the whole URL.

Example:
    >>> redact_url("http://me:s3cret@host:8080/v1?api-key=abc123&region=eu")
    'http://[redacted]@host:8080/v1?api-key=[redacted]&region=eu'
    >>> join_url("http://host/v1?api-key=abc123", "/models")
    'http://host/v1/models?api-key=abc123'
    >>> url_secrets("http://me:s3cret@host/v1?sig=xyz789&region=eu")
    ['s3cret', 'xyz789']
    >>> split_query("http://host/v1?api-key=abc123")
    ('http://host/v1', {'api-key': 'abc123'})
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass, field
from typing import Annotated, NamedTuple, TypedDict
from urllib.parse import parse_qsl, unquote, urlsplit, urlunsplit

from pydantic import AfterValidator

MARKER = "[redacted]"

#: a query parameter whose name holds one of these (any case, ``-``/``_`` ignored) is secret.
_SECRET_PARAM = re.compile(
    r"key|token|secret|sig|pass|pwd|auth|credential|session|cookie|jwt", re.IGNORECASE)


def _secret_param(name: str) -> bool:
    return bool(_SECRET_PARAM.search(unquote(name)))


def _netloc_host(netloc: str) -> tuple[str | None, str]:
    """``(userinfo, host[:port])`` of a URL's network location."""
    userinfo, at, host = netloc.rpartition("@")
    return (userinfo if at else None), host


class _Parts(NamedTuple):
    scheme: str
    userinfo: str | None
    host: str
    path: str
    query: str
    fragment: str


def _parts(url: str) -> _Parts:
    """A URL's parts, split by hand: never fails, whatever the host holds (a redacted
    URL's ``[redacted]@`` is no IPv6 address to :func:`urllib.parse.urlsplit`)."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        scheme, rest = "", url
    end = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    netloc, tail = rest[:end], rest[end:]
    tail, _, fragment = tail.partition("#")
    path, _, query = tail.partition("?")
    userinfo, host = _netloc_host(netloc)
    return _Parts(scheme, userinfo, host, path, query, fragment)


def redact_url(url: str) -> str:
    """``url`` with its user-info and the values of secret-looking query parameters
    replaced by ``[redacted]`` (a redacted URL is left as it is)."""
    p = _parts(url)
    out = f"{p.scheme}://" if p.scheme else ""
    out += (f"{MARKER}@" if p.userinfo is not None else "") + p.host + p.path
    if p.query:
        out += "?" + "&".join(_redact_pair(pair) for pair in p.query.split("&"))
    return out + (f"#{MARKER}" if p.fragment else "")


def _redact_pair(pair: str) -> str:
    name, eq, value = pair.partition("=")
    if eq and value and _secret_param(name):
        return f"{name}={MARKER}"
    return pair


#: a URL field of a model judgekit writes: whatever is given, the redacted form is kept.
RedactedURL = Annotated[str, AfterValidator(redact_url)]


def url_secrets(url: str | None) -> list[str]:
    """The secret values ``url`` holds: its password (or a user-info without one) and
    the values of its secret-looking query parameters, as written and decoded."""
    if not url:
        return []
    parts = _parts(url)
    found: list[str] = []
    userinfo = parts.userinfo
    if userinfo:
        user, colon, password = userinfo.partition(":")
        found.append(password if colon else user)
    for pair in parts.query.split("&") if parts.query else []:
        name, eq, value = pair.partition("=")
        if eq and value and _secret_param(name):
            found.append(value)
    if parts.fragment:
        found.append(parts.fragment)
    out: list[str] = []
    for value in found:
        for form in (value, unquote(value)):
            if form and form != MARKER and form not in out:
                out.append(form)
    return out


def join_url(base: str, path: str) -> str:
    """``base`` with ``path`` appended to its path; its query (and user-info) kept."""
    parts = urlsplit(base)
    joined = parts.path.rstrip("/") + "/" + path.lstrip("/")
    return urlunsplit((parts.scheme, parts.netloc, joined, parts.query, ""))


def strip_path_suffix(base: str, suffix: str) -> str:
    """``base`` without a trailing ``suffix`` (e.g. ``/v1``) on its path; query kept."""
    parts = urlsplit(base)
    path = parts.path.rstrip("/")
    if path.endswith(suffix):
        path = path[:-len(suffix)]
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def split_query(url: str) -> tuple[str, dict[str, str]]:
    """``(url without its query, the query's parameters decoded)``."""
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", "")), query


@dataclass(frozen=True)
class ClientURL:
    """A base URL as an SDK client takes it: no user-info, no query; those travel as a
    ``Basic`` ``Authorization`` header and as query parameters of every request."""

    base_url: str
    query: dict[str, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)


def for_client(url: str) -> ClientURL:
    """``url`` parted for an SDK client (see :class:`ClientURL`).

    Example:
        >>> c = for_client("http://me:pw@host/v1?api-key=k1")
        >>> c.base_url, c.query, c.headers
        ('http://host/v1', {'api-key': 'k1'}, {'Authorization': 'Basic bWU6cHc='})
    """
    bare, query = split_query(url)
    parts = urlsplit(bare)
    userinfo, host = _netloc_host(parts.netloc)
    headers: dict[str, str] = {}
    if userinfo is not None:
        user, _, password = userinfo.partition(":")
        token = f"{unquote(user)}:{unquote(password)}".encode()
        headers["Authorization"] = "Basic " + base64.b64encode(token).decode("ascii")
        bare = urlunsplit((parts.scheme, host, parts.path, "", ""))
    return ClientURL(bare, query, headers)


class ClientOptions(TypedDict, total=False):
    """The options of an SDK client that :func:`client_url` fills in (a provider's own
    options extend these)."""

    default_query: dict[str, str]
    default_headers: dict[str, str]


def client_url(url: str | None, options: ClientOptions) -> str | None:
    """The base URL an SDK client is given for ``url``; its query and user-info are added
    to the client's ``options`` (``default_query``, ``default_headers``)."""
    if not url:
        return url
    parted = for_client(url)
    if parted.query:
        options["default_query"] = {**options.get("default_query", {}), **parted.query}
    if parted.headers:
        options["default_headers"] = {**options.get("default_headers", {}), **parted.headers}
    return parted.base_url
