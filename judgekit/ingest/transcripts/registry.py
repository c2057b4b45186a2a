"""The registry of transcript readers, and :func:`read_transcripts`: a session file in, typed
transcripts out, detected by content.

judgekit's own readers are :data:`BUILTIN`, declared too in the ``judgekit.transcripts``
entry-point group (a test keeps the two equal); other packages add theirs in that group.
They are tried in order, judgekit's first. A file no reader knows is kept as raw text
(``format`` ``raw``) and :attr:`TranscriptFile.unrecognised` says so; a file a reader knows
but cannot read raises :class:`~judgekit.errors.InputError`. Every transcript is redacted
when read: provider keys and secret-looking values become ``[redacted]``, counted in
``Transcript.redactions``.

Example:
    >>> list(BUILTIN)
    ['mini-swe-agent', 'swe-agent', 'claude-code', 'codex', 'openhands', 'aider', 'atif']
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from judgekit.errors import InputError
from judgekit.ingest.transcripts.aider import AiderReader
from judgekit.ingest.transcripts.atif import AtifReader
from judgekit.ingest.transcripts.claude_code import ClaudeCodeReader
from judgekit.ingest.transcripts.codex import CodexReader
from judgekit.ingest.transcripts.files import read_capped
from judgekit.ingest.transcripts.mini_swe_agent import MiniSweAgentReader
from judgekit.ingest.transcripts.model import Transcript
from judgekit.ingest.transcripts.openhands import OpenHandsReader
from judgekit.ingest.transcripts.source import Events, Source, TranscriptReader
from judgekit.ingest.transcripts.swe_agent import SweAgentReader
from judgekit.plugins import GROUPS, load_group
from judgekit.secretscan import SecretScrubber

GROUP = GROUPS["transcripts"]

#: judgekit's own readers by format name, in the order they are tried.
BUILTIN: dict[str, Callable[[], TranscriptReader]] = {
    "mini-swe-agent": MiniSweAgentReader,
    "swe-agent": SweAgentReader,
    "claude-code": ClaudeCodeReader,
    "codex": CodexReader,
    "openhands": OpenHandsReader,
    "aider": AiderReader,
    "atif": AtifReader,
}

#: The largest session file read (bytes); a larger one is an input error, not a hang.
MAX_BYTES = 256 * 1024 * 1024


@dataclass
class TranscriptFile:
    """What one file gave: its transcripts (several for a benchmark's output.jsonl)."""

    path: Path
    transcripts: list[Transcript]
    #: the file was of no known format and is kept as raw text
    unrecognised: bool = False
    #: plug-ins left out, one line each
    problems: list[str] = field(default_factory=list)
    #: the file's text with its secret-looking values redacted
    text: str = ""
    #: lines of a JSON-lines file that are not JSON (a cut-off last line), left out
    bad_lines: int = 0
    #: the secret values the file records (learnt from its secret-named fields), to hide
    #: in any other text of the same run; never stored
    secrets: tuple[str, ...] = field(default=(), repr=False)

    def scrub(self, text: str) -> str:
        """``text`` with this file's secrets and any secret-looking value hidden."""
        return SecretScrubber(list(self.secrets)).text(text)

    def left_out(self) -> str | None:
        """The line saying which lines were left out, or ``None``."""
        if not self.bad_lines:
            return None
        return f"{self.path}: {self.bad_lines} line{'s' * (self.bad_lines != 1)} not JSON, " \
               "left out"

    @property
    def redactions(self) -> int:
        return sum(t.redactions for t in self.transcripts)


@lru_cache(maxsize=1)
def _plugins() -> tuple[tuple[TranscriptReader, ...], tuple[str, ...]]:
    loaded, problems = load_group(GROUP, own=False)
    readers: list[TranscriptReader] = []
    lines = [str(p) for p in problems]
    for plugin, obj in loaded:
        try:
            reader = obj() if isinstance(obj, type) or (
                callable(obj) and not isinstance(obj, TranscriptReader)) else obj
        except Exception as exc:  # a third party's error must not stop the others
            lines.append(f"plug-in {GROUP}:{plugin.name} not loaded: "
                         f"{type(exc).__name__}: {exc}")
            continue
        if not isinstance(reader, TranscriptReader) or reader.name in BUILTIN:
            lines.append(f"plug-in {GROUP}:{plugin.name} not loaded: not a transcript reader "
                         "(it needs name, detect and read) or its name is taken")
            continue
        readers.append(reader)
    return tuple(readers), tuple(lines)


def readers() -> tuple[list[TranscriptReader], list[str]]:
    """The readers in the order they are tried, and the plug-ins left out."""
    plugins, problems = _plugins()
    return [make() for make in BUILTIN.values()] + list(plugins), list(problems)


def detect(source: Source, tried: Sequence[TranscriptReader]) -> TranscriptReader | None:
    for reader in tried:
        try:
            if reader.detect(source):
                return reader
        except (KeyError, TypeError, AttributeError, IndexError, ValueError):
            continue
    return None


def _refuse_cut_json(path: str | Path, text: str) -> None:
    """Raise :class:`InputError` when ``text`` is JSON cut or damaged past its first line
    (a session file of a known format that cannot be read), not text of no known format
    that happens to start with a bracket."""
    stripped = text.lstrip()
    if stripped[:1] not in ("{", "["):
        return
    try:
        json.loads(stripped)
    except json.JSONDecodeError as exc:
        first_line = stripped.find("\n")
        if exc.pos > min(len(stripped) if first_line < 0 else first_line, 64):
            raise InputError(path, None, f"not valid JSON (line {exc.lineno}, column "
                                         f"{exc.colno}: {exc.msg}): a cut or damaged "
                                         "session file") from None
    except RecursionError:
        raise InputError(path, None, "JSON nested too deeply") from None


def parse_text(path: str | Path, text: str, *, known_secrets: Sequence[str] = (),
               keep_text: bool = True) -> TranscriptFile:
    """The transcripts of ``text`` (the content of ``path``), redacted: the file is read as
    written, the secrets it records are learnt (a key under ``api_key``, a variable
    ``..._KEY=`` in a command's output), then hidden wherever they appear, and counted
    once each where they were replaced. A JSON-lines file's lines are parsed as the reader
    reads them (the file is never held as parsed lines and as text at once).

    ``keep_text=False``: :attr:`TranscriptFile.text` is left empty for a file of JSON (one
    copy of a large file fewer; readers of JSON formats get its document or lines)."""
    learner = SecretScrubber(list(known_secrets))
    source = Source.of(path, text, learn=learner.learn)
    structured = source.document is not None or bool(source.events)
    if not structured:
        _refuse_cut_json(path, text)
    learner.learn(text)
    scrubber = SecretScrubber(learner.known)
    if source.document is not None:
        source.document = scrubber.data_in_place(source.document)
    if isinstance(source.events, Events):
        def scrub(event: Any, first: bool) -> Any:
            before = scrubber.count
            event = scrubber.data_in_place(event)
            if not first:  # read again (detection, then the reader): counted once
                scrubber.count = before
            return event
        source.events.scrub = scrub
    elif source.events:
        source.events = scrubber.data(source.events)
    raw_copy = SecretScrubber(learner.known)
    clean = raw_copy.text(text) if keep_text or not structured else ""
    source.text = clean
    if not structured:
        scrubber = raw_copy
    tried, problems = readers()
    reader = detect(source, tried)
    name = str(path)
    if reader is None:
        raw = Transcript(format="raw", source=name, raw=clean, redactions=scrubber.count)
        return TranscriptFile(Path(path), [raw], unrecognised=True, problems=problems,
                              text=clean, secrets=tuple(learner.known))
    try:
        many = getattr(reader, "read_all", None)
        found = list(many(source)) if callable(many) else [reader.read(source)]
    except InputError:
        raise
    except (KeyError, TypeError, AttributeError, IndexError, ValueError) as exc:
        raise InputError(path, None, f"a {reader.name} transcript that cannot be read "
                                     f"({type(exc).__name__}: {exc})") from None
    share = [scrubber.count] + [0] * (len(found) - 1)
    out = [t.model_copy(update={"source": name, "redactions": t.redactions + extra})
           for t, extra in zip(found, share)]
    return TranscriptFile(Path(path), out, problems=problems, text=clean,
                          bad_lines=source.bad_lines, secrets=tuple(learner.known))


def read_transcripts(path: str | Path, *, known_secrets: Sequence[str] = (),
                     within: str | Path | None = None, keep_text: bool = True
                     ) -> TranscriptFile:
    """Read one session file; :class:`InputError` when it cannot be read or is malformed.

    Only a regular file is read (not a device, FIFO or directory), at most
    :data:`MAX_BYTES` counted as they are read; with ``within`` (the directory it was found
    under, or the run file's) only a file that lies under it, links resolved.
    ``keep_text``: as :func:`parse_text`."""
    p = Path(path)
    data = read_capped(p, within=None if within is None else Path(within), limit=MAX_BYTES)
    text = data.decode("utf-8", errors="replace")
    del data
    return parse_text(p, text, known_secrets=known_secrets, keep_text=keep_text)


def read_transcript(path: str | Path, *, known_secrets: Sequence[str] = ()) -> Transcript:
    """The first (usually only) transcript of ``path``."""
    return read_transcripts(path, known_secrets=known_secrets).transcripts[0]


def by_task(files: Sequence[TranscriptFile]) -> dict[str, Transcript]:
    """Transcripts that name their task, by task id."""
    return {t.task_id: t for f in files for t in f.transcripts if t.task_id}



__all__ = ["BUILTIN", "GROUP", "MAX_BYTES", "TranscriptFile", "by_task", "detect",
           "parse_text", "read_transcript", "read_transcripts", "readers"]
