"""Is the judge's server still answering? Counted as calls go out, said when it falls silent.

Example:
    >>> h = Health(); h.waiting = 2; h.last_answer -= 30
    >>> h.check("http://127.0.0.1:8080/v1")
    'the server at http://127.0.0.1:8080/v1 has not answered for 30 s (2 calls waiting)'
    >>> h.answered(0.1); h.check("http://127.0.0.1:8080/v1")
    'the server at http://127.0.0.1:8080/v1 answers again'
"""

from __future__ import annotations

import time


#: seconds without an answer, while calls wait, before the run says the server is silent
#: (or three times the slowest answer so far, if that is longer).
SILENCE_S = 10.0


class Health:
    """Whether the server is still answering: calls waiting (retries included), when it
    last answered, its slowest answer, and the last failure seen since."""

    def __init__(self) -> None:
        self.waiting = 0
        self.last_answer = time.monotonic()
        self.slowest = 0.0
        self.last_failure: str | None = None
        self.silent = False

    def answered(self, took: float) -> None:
        self.last_answer = time.monotonic()
        self.slowest = max(self.slowest, took)
        self.last_failure = None

    def failed(self, cause: str, *, alive: bool) -> None:
        """A call failed; ``alive`` when the server answered it (an HTTP error)."""
        self.last_failure = cause
        if alive:
            self.last_answer = time.monotonic()

    def check(self, url: str) -> str | None:
        """A line to show when the server fell silent or came back, else ``None``."""
        quiet = time.monotonic() - self.last_answer
        limit = max(SILENCE_S, 3 * self.slowest)
        if not self.silent and self.waiting and quiet >= limit:
            self.silent = True
            why = f"; last failure: {self.last_failure}" if self.last_failure else ""
            return (f"the server at {url} has not answered for {quiet:.0f} s "
                    f"({self.waiting} calls waiting{why})")
        if self.silent and quiet < limit:
            self.silent = False
            return f"the server at {url} answers again"
        return None
