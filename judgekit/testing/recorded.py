"""What the fake API keeps of each request it received (:attr:`FakeAPIServer.requests`).

Example:
    >>> Recorded("anthropic", "POST", "/v1/messages", {"model": "m"}).api
    'anthropic'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Recorded:
    """One HTTP request the server received. ``api`` is ``"anthropic"`` or ``"openai"``
    for model calls, ``"anthropic.batches"``, ``"openai.batches"`` or ``"openai.files"``
    for the batch endpoints."""

    api: str
    method: str
    path: str
    body: dict[str, Any] | None
    headers: dict[str, str] = field(default_factory=dict)
    #: the query string of the request's target (without ``?``)
    query: str = ""
