"""What a transcript reader is given: the file's text, parsed once as JSON or JSON lines.

Example:
    >>> s = Source.of("t.jsonl", '{"type": "a"}\\n{"type": "b"}\\n')
    >>> s.document is None, [e["type"] for e in s.events]
    (True, ['a', 'b'])
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, overload, runtime_checkable

from judgekit.errors import InputError
from judgekit.jsonread import loads
from judgekit.ingest.transcripts.model import Transcript


class Events(Sequence[dict[str, Any]]):
    """The JSON lines of a text that are objects, each parsed when it is read (only where
    each line starts and ends is kept, so a large file is never held twice), and passed
    through ``scrub`` when one is set: the secrets are hidden as each line is read. The
    first reading of each line is the one ``scrub`` may count (``first`` is true)."""

    def __init__(self, text: str, spans: array[int], where: Path) -> None:
        self._text = text
        self._spans = spans
        self._where = where
        self._read = bytearray(len(spans) // 2)
        self.scrub: Callable[[Any, bool], Any] | None = None

    def __len__(self) -> int:
        return len(self._read)

    def _at(self, i: int) -> dict[str, Any]:
        event = loads(self._text[self._spans[2 * i]:self._spans[2 * i + 1]], self._where)
        if self.scrub is not None:
            event = self.scrub(event, not self._read[i])
            self._read[i] = 1
        return event  # type: ignore[no-any-return]

    @overload
    def __getitem__(self, i: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, i: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, i: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(i, slice):
            return [self._at(k) for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return self._at(i)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for i in range(len(self)):
            yield self._at(i)


@dataclass
class Source:
    """One file: its path, its text, the JSON document it holds (``None`` when it is not
    one JSON value) and its JSON lines (every non-blank line an object; empty otherwise:
    a sequence whose lines are parsed as they are read)."""

    path: Path
    text: str
    document: Any = None
    events: Sequence[dict[str, Any]] = field(default_factory=list)
    #: lines of a JSON-lines file that did not parse (a cut-off last line)
    bad_lines: int = 0

    @classmethod
    def of(cls, path: str | Path, text: str, *, learn: Callable[[Any], None] | None = None
           ) -> Source:
        """``text`` parsed; ``learn`` is shown the document, or each JSON line's value in
        turn (which is not kept: the lines are parsed again when read)."""
        source = cls(Path(path), text)
        start = len(text) - len(text.lstrip())
        if text[start:start + 1] not in ("{", "["):
            return source
        try:
            source.document = loads(text.strip(), path)
        except InputError:
            pass
        else:
            if learn is not None:
                learn(source.document)
            return source
        spans = array("q")
        lines = pos = 0
        while pos < len(text):
            end = text.find("\n", pos)
            end = len(text) if end < 0 else end
            line = text[pos:end]
            if line.strip():
                lines += 1
                try:
                    event = loads(line, path)
                except InputError:
                    event = None
                if isinstance(event, dict):
                    spans.extend((pos, end))
                    if learn is not None:
                        learn(event)
                else:
                    source.bad_lines += 1
            pos = end + 1
        if source.bad_lines * 2 > lines:
            source.bad_lines = 0
        else:
            source.events = Events(text, spans, source.path)
        return source

    def fail(self, field_name: str | None, reason: str) -> InputError:
        """The error for a file of a known format that cannot be read."""
        return InputError(self.path, field_name, reason)


@runtime_checkable
class TranscriptReader(Protocol):
    """Reads one agent's session files."""

    name: str

    def detect(self, source: Source) -> bool:
        """True when ``source`` is this agent's file (judged by its content)."""
        ...

    def read(self, source: Source) -> Transcript:
        """The transcript; raise :class:`~judgekit.errors.InputError` when the file is of
        this format but cannot be read."""
        ...


__all__ = ["Events", "Source", "TranscriptReader"]
