"""What a transcript reader is given: the file's text, parsed once as JSON or JSON lines.

Example:
    >>> s = Source.of("t.jsonl", '{"type": "a"}\\n{"type": "b"}\\n')
    >>> s.document is None, [e["type"] for e in s.events]
    (True, ['a', 'b'])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from judgekit.errors import InputError
from judgekit.jsonread import loads
from judgekit.ingest.transcripts.model import Transcript


@dataclass
class Source:
    """One file: its path, its text, the JSON document it holds (``None`` when it is not
    one JSON value) and its JSON lines (every non-blank line an object; empty otherwise)."""

    path: Path
    text: str
    document: Any = None
    events: list[dict[str, Any]] = field(default_factory=list)
    #: lines of a JSON-lines file that did not parse (a cut-off last line)
    bad_lines: int = 0

    @classmethod
    def of(cls, path: str | Path, text: str) -> Source:
        source = cls(Path(path), text)
        stripped = text.strip()
        if stripped[:1] in ("{", "["):
            try:
                source.document = loads(stripped, path)
                return source
            except InputError:
                pass
            lines = [line for line in stripped.splitlines() if line.strip()]
            for line in lines:
                try:
                    event = loads(line, path)
                except InputError:
                    source.bad_lines += 1
                    continue
                if isinstance(event, dict):
                    source.events.append(event)
                else:
                    source.bad_lines += 1
            if source.bad_lines * 2 > len(lines):
                source.events, source.bad_lines = [], 0
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


__all__ = ["Source", "TranscriptReader"]
