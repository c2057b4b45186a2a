"""A byte stream kept bounded while it is read: its first bytes and a ring of its last.

The head keeps 1/:data:`HEAD_SHARE` of what is kept, the tail the rest (a log's verdict is
at its end). The tail ring holds at most twice its share before it is trimmed, so feeding
costs no more than copying what is kept.

Example:
    >>> h = HeadTail(10)
    >>> for _ in range(5): h.feed(b"0123456789")
    >>> h.size, h.whole, bytes(h.head), h.last()
    (50, False, b'01', b'23456789')
"""

from __future__ import annotations

HEAD_SHARE = 5
"""The head keeps 1/5 of what is kept, the tail the rest."""


class HeadTail:
    """The first ``cap // HEAD_SHARE`` bytes fed, the last ones up to ``cap`` in all, and
    how many were fed."""

    def __init__(self, cap: int) -> None:
        self.head_n = cap // HEAD_SHARE
        self.tail_n = cap - self.head_n
        self.head = bytearray()
        self.tail = bytearray()
        self.size = 0

    def feed(self, chunk: bytes) -> None:
        self.size += len(chunk)
        room = self.head_n - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            if len(self.tail) > 2 * self.tail_n:
                del self.tail[:-self.tail_n]

    @property
    def whole(self) -> bool:
        """Every byte fed is kept."""
        return self.size <= self.head_n + self.tail_n

    def last(self) -> bytes:
        """The tail as kept: the last ``tail_n`` bytes fed after the head."""
        return bytes(self.tail[-self.tail_n:])
