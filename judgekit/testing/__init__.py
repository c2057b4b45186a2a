"""Test helpers: a local fake of the Anthropic and OpenAI APIs for tests and benchmarks.

Example:
    >>> from judgekit.testing import FakeAPIServer, Reply
    >>> with FakeAPIServer(lambda api, body: Reply.ok({"winner": "A"})) as server:
    ...     server.url.startswith("http://127.0.0.1:")
    True
"""

from judgekit.testing.fakeapi import FakeAPIServer
from judgekit.testing.recorded import Recorded
from judgekit.testing.replies import (
    Reply,
    Responder,
    example_for,
    fault_mix,
    prompt_of,
    scripted,
)

__all__ = ["FakeAPIServer", "Recorded", "Reply", "Responder", "example_for", "fault_mix",
           "prompt_of", "scripted"]
