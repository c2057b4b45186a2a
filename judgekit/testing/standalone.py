"""The fake API as a process of its own, for benchmarks and tests that need one.

``python -m judgekit.testing`` reads its options (:mod:`judgekit.testing.cli`) into a
:class:`StandaloneOptions` and calls :func:`serve`, which prints ``{"port": N}`` on one line
and answers until the process is told to stop (SIGTERM, Ctrl-C) or, when asked, until its
standard input closes. It keeps no log of the requests: a long benchmark would fill memory.

Example:
    >>> StandaloneOptions(faults="mix", seed=3).responder() is not None
    True
"""

from __future__ import annotations

import json
import signal
import sys
import threading
from dataclasses import dataclass
from typing import Any, Literal

from judgekit.testing.fakeapi import FakeAPIServer
from judgekit.testing.replies import Reply, Responder, fault_mix


@dataclass(frozen=True)
class StandaloneOptions:
    """How a fake API process answers and when it stops."""

    #: seconds added to every model call's answer
    latency: float = 0.0
    #: the port to listen on (0: any free one)
    port: int = 0
    #: stop when standard input closes (for a parent process)
    until_stdin_closes: bool = False
    #: ``"mix"``: seeded 429s with retry-after, 500s, slow 504s and malformed JSON
    faults: Literal["none", "mix"] = "none"
    #: answer every model call with this HTTP status (e.g. 401)
    status: int | None = None
    #: seed of the fault mix
    seed: int = 0
    #: the shortest prefix the simulated Anthropic prompt cache keeps
    cache_min_tokens: int = 0

    def responder(self) -> Responder | None:
        """What answers model calls: a fixed status, the fault mix, or the default verdict."""
        if self.status is not None:
            status = self.status
            return lambda api, body: Reply.fault(status)
        return fault_mix(self.seed) if self.faults == "mix" else None


class _Discard(list):  # type: ignore[type-arg]
    """A request log that keeps nothing (long benchmark runs)."""

    def append(self, item: Any) -> None:
        pass


def serve(options: StandaloneOptions) -> int:
    """Serve until stopped; print the port first. Returns the exit status (0)."""
    server = FakeAPIServer(options.responder(), latency=options.latency, port=options.port,
                           cache_min_tokens=options.cache_min_tokens)
    server.requests = _Discard()
    server.usages = _Discard()
    server.start()
    print(json.dumps({"port": server.port}), flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        if options.until_stdin_closes:
            sys.stdin.read()
        else:
            while not stop.wait(3600):
                pass
    except KeyboardInterrupt:
        pass
    server.stop()
    return 0
