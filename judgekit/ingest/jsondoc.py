"""One large JSON run document, read a result at a time.

A ``.json`` run file is one document: a :class:`~judgekit.ingest.models.RunFile` object whose
``results`` list holds the results, or a bare list of results. :func:`stream_document` reads
such a file in blocks and yields the values of the list one by one, so a file of any size is
read in the memory of one result; the object's other members (``format``, ``run_id``, ...)
are read as they come, before or after the list.

A result's end is found where orjson reads a whole value: from a result's first byte, a span
that ends at a ``}`` followed by ``, {`` or ``]`` is valid JSON only when that ``}`` closes the
result (anywhere inside it, a string or a bracket would be left open). Where orjson does not
read the span (a ``}`` inside a string, or a value orjson reads differently from the strict
reader), the bounds are found by scanning the value's strings and brackets, and the strict
reader reads it (:func:`judgekit.ingest.fastjson.loads`).

Errors name the file and the value (``results[12]``, ``run_id``). A result longer than
``limit`` bytes is read again from the file in blocks with its long strings cut
(:func:`judgekit.ingest.cuts.compact_value`, the cuts noted in its ``truncated``); another
value longer than ``limit`` is refused. A pathological file (one multi-GB string) never fills
memory.

Example:
    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("wb", suffix=".json", delete=False) as fh:
    ...     _ = fh.write(b'{"run_id": "r1", "results": [{"a": "}, {"}, {"b": 2}], "x": 1}')
    >>> doc = stream_document(fh.name)
    >>> [(i, value) for i, value, _ in doc.items], doc.members
    ([(0, {'a': '}, {'}), (1, {'b': 2})], {'run_id': 'r1', 'x': 1})
    >>> os.unlink(fh.name)
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judgekit.errors import InputError
from judgekit.io import cannot_read, open_regular
from judgekit.ingest.cuts import compact_value, mark_read_cuts
from judgekit.ingest.fastjson import fast_loads, loads, nested_deeper
from judgekit.ingest.validation import MAX_DEPTH

BLOCK_BYTES = 16 * 1024 * 1024
"""Bytes read from the file at a time."""

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_BRACKET_OR_QUOTE = re.compile(rb'[\[\]{}"]')
_SCALAR_END = re.compile(rb"[,\]}\s]")
_CLOSE = re.compile(rb"\}[ \t\n\r]*(?:,[ \t\n\r]*\{|\])")
_SPACE = re.compile(rb"[ \t\n\r]*")
_TRIES = 8
"""Candidate ends tried with orjson before a result's bounds are found by scanning."""


class _Buffer:
    """A window on the file: ``data[pos:]`` is what is not read yet."""

    def __init__(self, path: Path, limit: int) -> None:
        self.path = path
        self.limit = limit
        self.fh = open_regular(path)
        self.data = b""
        self.pos = 0
        self.eof = False
        self.offset = 0  # file offset of data[0]

    def more(self) -> bool:
        """Read another block; False at the end of the file."""
        if self.eof:
            return False
        try:
            block = self.fh.read(BLOCK_BYTES)
        except OSError as exc:
            raise cannot_read(self.path, exc) from None
        if not block:
            self.eof = True
            return False
        if self.pos:
            self.offset += self.pos
            self.data = self.data[self.pos:] + block
            self.pos = 0
        else:
            self.data += block
        return True

    def skip_ws(self) -> int:
        """Skip whitespace; the next byte (-1 at the end of the file)."""
        while True:
            pos = _SPACE.match(self.data, self.pos).end()  # type: ignore[union-attr]
            self.pos = pos
            if pos < len(self.data):
                return self.data[pos]
            if not self.more():
                return -1

    def close(self) -> None:
        self.fh.close()


def value_end(data: bytes, pos: int) -> int | None:
    """The index just past the JSON value whose first byte is ``data[pos]``, found by its
    strings and brackets only (the value is read afterwards), or ``None`` when ``data`` ends
    before the value does."""
    first = data[pos:pos + 1]
    if first == b'"':
        m = _STRING.match(data, pos)
        return m.end() if m else None
    if first not in (b"{", b"["):
        m = _SCALAR_END.search(data, pos)
        return m.start() if m else None
    depth, i = 0, pos
    while True:
        m = _BRACKET_OR_QUOTE.search(data, i)
        if m is None:
            return None
        at = m.start()
        if data[at] == 0x22:  # a string: skip it whole
            s = _STRING.match(data, at)
            if s is None:
                return None
            i = s.end()
            continue
        depth += 1 if data[at] in b"[{" else -1
        i = at + 1
        if depth == 0:
            return i


@dataclass
class StreamedDocument:
    """What :func:`stream_document` found: the list's values (``items``, an iterator read
    from the file), then, once ``items`` is exhausted, the object's other members."""

    path: Path
    is_list: bool
    #: ``(index, value, (start, end))`` of each value of the list; its bytes in the file
    items: Iterator[tuple[int, Any, tuple[int, int]]]
    members: dict[str, Any] = field(default_factory=dict)
    #: member names in the order they came (``results`` included), duplicates kept
    names: list[str] = field(default_factory=list)

    @property
    def depth(self) -> int:
        """How deep in the document the list's values are."""
        return 1 if self.is_list else 2

    @property
    def prefix(self) -> str:
        """The name of the list in field names (``results[3]``, ``[3]``)."""
        return "" if self.is_list else "results"


class _TooLong(Exception):
    """A value longer than the buffer's limit."""


class NotStreamable(Exception):
    """The document is not a run object with a ``results`` list, nor a list."""


def _fail(path: Path, where: str | None, reason: str) -> InputError:
    return InputError(path, where, reason)


def read_value(raw: bytes, path: Path, where: str, depth: int) -> Any:
    """The value of ``raw`` (the text of one value, ``depth`` levels into the document at
    ``path``), as :func:`stream_document` reads it: orjson's where it agrees with the strict
    reader, else the strict reader's; an :class:`InputError` names ``where``."""
    ok, value = fast_loads(raw, depth)
    if ok:
        return value
    value = loads(raw, path, f"{where}: ")
    if nested_deeper(value, MAX_DEPTH - depth):
        raise _fail(path, where, f"nested deeper than {MAX_DEPTH} levels")
    return value


def _value(buf: _Buffer, where: str, depth: int) -> Any:
    """Read the value at the buffer's position (after whitespace), ``depth`` levels into the
    document, and move past it."""
    try:
        return _raw_value(buf, where, depth)[0]
    except _TooLong:
        raise _fail(buf.path, where, f"longer than {buf.limit} bytes: refused") from None


def _long_value(buf: _Buffer, where: str, depth: int) -> tuple[Any, bytes]:
    """The value at the buffer's position, longer than its limit, read again from the file
    with its long strings cut; the buffer moves past it."""
    start = buf.offset + buf.pos
    raw, consumed = compact_value(buf.path, start, where, limit=buf.limit, line=False)
    try:
        buf.fh.seek(start + consumed)
    except OSError as exc:
        raise cannot_read(buf.path, exc) from None
    buf.data, buf.pos, buf.offset, buf.eof = b"", 0, start + consumed, False
    value = read_value(raw, buf.path, where, depth)
    mark_read_cuts(value)
    return value, raw


def _raw_value(buf: _Buffer, where: str, depth: int) -> tuple[Any, bytes]:
    """:func:`_value`, and the value's text."""
    while True:
        end = value_end(buf.data, buf.pos)
        if end is not None and (end < len(buf.data) or buf.eof):
            break
        if len(buf.data) - buf.pos > buf.limit:
            raise _TooLong
        if not buf.more():
            end = len(buf.data) if end is None else end
            break
    if end - buf.pos > buf.limit:
        raise _TooLong
    raw = buf.data[buf.pos:end]
    buf.pos = end
    return read_value(raw, buf.path, where, depth), raw


def _key(buf: _Buffer) -> str:
    if buf.skip_ws() != 0x22:
        raise NotStreamable
    return str(_value(buf, "(document)", 1))


def _members(buf: _Buffer, doc: StreamedDocument, first: bool) -> bool:
    """Read ``"name": value`` members up to ``results`` (True) or the object's end (False)."""
    while True:
        nxt = buf.skip_ws()
        if nxt == 0x7D and first:  # an empty object
            buf.pos += 1
            return False
        if not first:
            if nxt == 0x7D:
                buf.pos += 1
                return False
            if nxt < 0:
                raise _fail(buf.path, None, "malformed JSON: the file ends inside the "
                                            "document (is it cut short?)")
            if nxt != 0x2C:
                raise _fail(buf.path, None, "malformed JSON: expected ',' or '}' after "
                                            f"{doc.names[-1] if doc.names else 'a member'}")
            buf.pos += 1
        first = False
        name = _key(buf)
        if name == "results" and doc.names.count("results"):
            raise NotStreamable  # a second list: the last one counts
        if buf.skip_ws() != 0x3A:
            raise _fail(buf.path, name, "malformed JSON: expected ':'")
        buf.pos += 1
        doc.names.append(name)
        if name == "results":
            if buf.skip_ws() != 0x5B:
                raise NotStreamable
            buf.pos += 1
            return True
        buf.skip_ws()
        doc.members[name] = _value(buf, name, 1)


def _element(buf: _Buffer, where: str, depth: int) -> tuple[Any, bytes]:
    """The list value that starts at the buffer's position, ``depth`` levels into the
    document, and its text (cut, for one longer than the limit); the position moves past
    it."""
    try:
        return _short_element(buf, where, depth)
    except _TooLong:
        return _long_value(buf, where, depth)


def _short_element(buf: _Buffer, where: str, depth: int) -> tuple[Any, bytes]:
    tries = 0
    skip = 0  # bytes of the value already searched for its end
    if buf.data[buf.pos:buf.pos + 1] == b"{":
        while tries < _TRIES:
            m = _CLOSE.search(buf.data, buf.pos + skip)
            if m is None:
                if len(buf.data) - buf.pos > buf.limit:
                    raise _TooLong
                if not buf.more():
                    break
                continue
            end = m.start() + 1
            if end - buf.pos > buf.limit:
                raise _TooLong
            raw = buf.data[buf.pos:end]
            ok, value = fast_loads(raw, depth)
            if ok:
                buf.pos = end
                return value, raw
            tries += 1
            skip = end - buf.pos
    return _raw_value(buf, where, depth)


def _items(buf: _Buffer, doc: StreamedDocument
           ) -> Iterator[tuple[int, Any, tuple[int, int]]]:
    prefix = doc.prefix
    index = 0
    try:
        if buf.skip_ws() == 0x5D:
            buf.pos += 1
        else:
            while True:
                where = f"{prefix}[{index}]"
                if buf.skip_ws() < 0:
                    raise _fail(buf.path, where, "malformed JSON: the file ends inside the list "
                                                 "(is it cut short?)")
                start = buf.offset + buf.pos
                value, _ = _element(buf, where, doc.depth)
                yield index, value, (start, buf.offset + buf.pos)
                index += 1
                nxt = buf.skip_ws()
                buf.pos += 1
                if nxt == 0x5D:
                    break
                if nxt < 0:
                    raise _fail(buf.path, where, "malformed JSON: the file ends inside the "
                                                 "list (is it cut short?)")
                if nxt != 0x2C:
                    raise _fail(buf.path, where, "malformed JSON: expected ',' or ']' after it")
        if not doc.is_list:
            _members(buf, doc, first=False)
        if buf.skip_ws() >= 0:
            raise _fail(buf.path, None, "malformed JSON: more text follows the document")
    finally:
        buf.close()


def stream_document(path: str | Path, *, limit: int = 64 * 1024 * 1024) -> StreamedDocument:
    """Start reading a run document; raise :class:`NotStreamable` when it is not an object
    whose ``results`` member is a list, nor a list (then read it whole)."""
    path = Path(path)
    buf = _Buffer(path, limit)
    try:
        first = buf.skip_ws()
        if first == 0x5B:
            buf.pos += 1
            doc = StreamedDocument(path, True, iter(()))
        elif first == 0x7B:
            buf.pos += 1
            doc = StreamedDocument(path, False, iter(()))
            if not _members(buf, doc, first=True):
                raise NotStreamable
        else:
            raise NotStreamable
    except BaseException:
        buf.close()
        raise
    doc.items = _items(buf, doc)
    return doc
