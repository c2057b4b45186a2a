"""The stages of a build, overlapped: a thread keeps the scan going while the model runs.

:class:`Feed` iterates a scan (:class:`judgekit.index.scan.FileScan`) in a background
thread into a bounded queue, so worker processes read and chunk files while the calling
thread embeds; :func:`groups` cuts the new chunks into groups of whole files for the
encoder; :func:`encode_groups` runs an embedder over the groups, through its
``encode_stream`` when it has one (the torch encoder keeps one tokeniser pipeline and
one device queue for the whole build) and group by group otherwise.

Example:
    >>> feed = Feed(iter([1, 2]), size=1)
    >>> list(feed)
    [1, 2]
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Generic, TypeVar

import numpy as np

T = TypeVar("T")
K = TypeVar("K")

#: Seconds a blocked producer waits before it checks whether the build stopped.
POLL_S = 0.1


class _End:
    """Marks the end of the items, with the producer's exception if it failed."""

    def __init__(self, error: BaseException | None) -> None:
        self.error = error


class Feed(Generic[T]):
    """Items of ``source`` produced by a daemon thread into a queue of at most ``size``.

    ``wait_seconds`` is the time the consumer spent waiting for an item, ``done_at`` the
    ``perf_counter`` time the source ran out (``None`` before). :meth:`stop` ends the
    producer at its next item.
    """

    def __init__(self, source: Iterator[T], *, size: int, stop: threading.Event | None = None) -> None:
        self._queue: queue.Queue[T | _End] = queue.Queue(maxsize=size)
        self._stop = stop or threading.Event()
        self.wait_seconds = 0.0
        self.done_at: float | None = None
        self._thread = threading.Thread(target=self._produce, args=(source,), name="judgekit-scan", daemon=True)
        self._thread.start()

    def _produce(self, source: Iterator[T]) -> None:
        error: BaseException | None = None
        try:
            for item in source:
                if not self._put(item):
                    return
        except BaseException as exc:  # handed to the consumer, raised there
            error = exc
        self.done_at = time.perf_counter()
        self._put(_End(error))

    def _put(self, item: T | _End) -> bool:
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=POLL_S)
                return True
            except queue.Full:
                continue
        return False

    def __iter__(self) -> Iterator[T]:
        while True:
            began = time.perf_counter()
            item = self._queue.get()
            self.wait_seconds += time.perf_counter() - began
            if isinstance(item, _End):
                if item.error is not None:
                    raise item.error
                return
            yield item

    def stop(self) -> None:
        self._stop.set()


def groups(items: Iterable[T], size: Callable[[T], int], limit: int) -> Iterator[list[T]]:
    """``items`` in runs whose ``size`` adds up to ``limit`` or just past it (never empty)."""
    group: list[T] = []
    count = 0
    for item in items:
        group.append(item)
        count += size(item)
        if count >= limit:
            yield group
            group, count = [], 0
    if group:
        yield group


def encode_groups(embedder: Any, items: Iterable[tuple[K, list[str]]]) -> Iterator[tuple[K, np.ndarray]]:
    """``(key, vectors of texts)`` for each ``(key, texts)``, in order."""
    stream = getattr(embedder, "encode_stream", None)
    if stream is not None:
        yield from stream(items)
        return
    for key, texts in items:
        yield key, embedder.encode(texts)
