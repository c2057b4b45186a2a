"""Text fields kept to their head and tail, and marked where they were cut.

Two places cut a result's text: ``judgekit run`` before it stores a result
(:func:`cap_result`: each text field over :data:`FIELD_BYTES` keeps its head and tail, and
the result's ``truncated`` names it with its whole size and SHA-256), and reading, for a
result too long to read whole (:func:`compact_value`: every string over
:data:`READ_FIELD_BYTES` of its JSON text is cut as the text is read, so no such string is
ever held whole). Either way the cut text says so in place (``[... N bytes cut by
judgekit ...]``) and the result's ``truncated`` lists the field: a cut is never silent.

A diff that is cut keeps the list of the files it touched (``agent_files``,
``ground_truth_files``), so scoring still sees every file.

Example:
    >>> text, cut = cut_text("a" * 50 + "b" * 50, 20)
    >>> text.startswith("aaaa") and text.endswith("bbbb"), cut.bytes, cut.kept
    (True, 100, 20)
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

from judgekit.diffs import files_touched
from judgekit.errors import InputError
from judgekit.io import cannot_read, open_regular
from judgekit.ingest.headtail import HEAD_SHARE, HeadTail
from judgekit.ingest.models import Cut, RunResult

FIELD_BYTES = 1_000_000
"""Largest text field ``judgekit run`` stores whole (UTF-8 bytes); a longer one keeps its
head and tail."""
READ_FIELD_BYTES = 1_000_000
"""Largest string of a result too long to read whole that reading keeps whole (bytes of its
JSON text); a longer one keeps its head and tail."""
_BLOCK = 4 * 1024 * 1024
_BODY = re.compile(rb'[^"\\\n]*(?:\\[^\n][^"\\\n]*)*')
_OUTSIDE = re.compile(rb'["\n{}\[\]]')
_READ_MARK = re.compile(r"\[\.\.\. (\d+) bytes cut by judgekit on reading \.\.\.\]")
_DIFF_KEY = re.compile(rb'"(agent_diff|ground_truth_diff)"[ \t\r\n]*:[ \t\r\n]*$')
_HEADER = re.compile(rb'diff --git a/([^"\\ ]+) b/')
_FILES_OF = "__judgekit_files_of_"
"""Prefix of the member reading adds after a cut diff: the files its headers named."""
_MAX_FILES = 100_000
_LISTS = {"agent_diff": "agent_files", "ground_truth_diff": "ground_truth_files"}


def _marker(cut: int, when: str = "") -> str:
    return f"\n[... {cut} bytes cut by judgekit{when} ...]\n"


def cut_text(text: str, limit: int = FIELD_BYTES, *, prior: Cut | None = None
             ) -> tuple[str, Cut | None]:
    """``text`` kept to about ``limit`` UTF-8 bytes (its head and tail) and the :class:`Cut`
    that says so, or ``(text, prior)`` when it fits. ``prior``: the field was cut already
    (its whole size and hash are kept)."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text, prior
    head_n = limit // HEAD_SHARE
    tail_n = limit - head_n
    head = data[:head_n].decode("utf-8", "ignore")
    tail = data[len(data) - tail_n:].decode("utf-8", "ignore")
    whole = prior.bytes if prior is not None else len(data)
    digest = prior.sha256 if prior is not None else hashlib.sha256(data).hexdigest()
    kept = f"{head}{_marker(len(data) - head_n - tail_n)}{tail}"
    return kept, Cut(bytes=whole, kept=head_n + tail_n, sha256=digest)


def _text_fields(result: RunResult) -> Iterator[tuple[str, str, Any, str]]:
    """``(name in truncated, text, owner, attribute or key)`` of each text field judgekit
    caps: diffs, transcript, test output, harness error, string metadata and materials."""
    for name in ("agent_diff", "ground_truth_diff", "transcript", "harness_error"):
        value = getattr(result, name)
        if isinstance(value, str):
            yield name, value, result, name
    if result.test is not None and isinstance(result.test.output, str):
        yield "test.output", result.test.output, result.test, "output"
    for key, value in result.metadata.items():
        if isinstance(value, str):
            yield f"metadata.{key}", value, result.metadata, key
    for key, value in result.materials.items():
        yield f"materials.{key}", value, result.materials, key


def cap_result(result: RunResult, limit: int | None = None) -> int:
    """Cut every text field of ``result`` over ``limit`` bytes in place (a cut diff leaves
    the list of its files; default :data:`FIELD_BYTES`); the number of fields cut (those
    cut before included)."""
    limit = FIELD_BYTES if limit is None else limit
    cuts = dict(result.truncated or {})
    for name, text, owner, attr in list(_text_fields(result)):
        kept, cut = cut_text(text, limit, prior=cuts.get(name))
        if cut is None or kept is text:
            continue
        if name == "agent_diff" and result.agent_files is None:
            result.agent_files = files_touched(text, ())
        if name == "ground_truth_diff" and result.ground_truth_files is None:
            result.ground_truth_files = files_touched(text, ())
        if isinstance(owner, dict):
            owner[attr] = kept
        else:
            setattr(owner, attr, kept)
        cuts[name] = cut
    if cuts:
        result.truncated = cuts
    return len(cuts)


def _safe_end(raw: bytes) -> bytes:
    """The longest prefix of ``raw`` (the inside of a JSON string, cut anywhere) that is
    valid JSON string text: no escape or UTF-8 character left half."""
    return _safe(raw, lambda drop: raw[:len(raw) - drop])


def _safe_start(raw: bytes) -> bytes:
    """The longest suffix of ``raw`` that is valid JSON string text (see :func:`_safe_end`)."""
    return _safe(raw, lambda drop: raw[drop:])


def _safe(raw: bytes, keep: Callable[[int], bytes]) -> bytes:
    """The first of ``keep(0)``, ``keep(1)``, ... (up to 16 bytes dropped) that is valid
    JSON string text; empty when none is."""
    for drop in range(0, min(len(raw), 16) + 1):
        part = keep(drop)
        try:
            orjson.loads(b'"' + part + b'"')
            return part
        except orjson.JSONDecodeError:
            continue
    return b""


class _String(HeadTail):
    """One string of the text being read: all of it up to the cap, then its head and the
    last bytes read."""

    def __init__(self, cap: int, diff: str | None = None) -> None:
        super().__init__(cap)
        #: a diff's field name: the files its headers name are collected as it is read
        self.diff = diff
        self.files: set[bytes] = set()
        self._carry = b""

    def add(self, chunk: bytes) -> None:
        if self.diff is not None and len(self.files) < _MAX_FILES:
            text = self._carry + chunk
            self.files.update(m.group(1) for m in _HEADER.finditer(text))
            self._carry = text[-1024:]
        self.feed(chunk)

    def text(self, closed: bool = True) -> bytes:
        """The string's JSON text, quotes included (``closed``: the closing one too); cut
        in the middle when over the cap (a closed cut diff followed by a member that lists
        the files its headers named)."""
        if not closed:
            return (self.text(True)[:1 + len(self.head) + len(self.tail)] if self.whole
                    else b'"' + bytes(self.head))
        if self.whole:
            return b'"' + bytes(self.head) + bytes(self.tail) + b'"'
        head = _safe_end(bytes(self.head))
        tail = _safe_start(self.last())
        cut = self.size - len(head) - len(tail)
        mark = orjson.dumps(_marker(cut, " on reading"))[1:-1]
        text = b'"' + head + mark + tail + b'"'
        if self.diff is not None:
            files = sorted(f.decode("utf-8", "ignore") for f in self.files)
            text += b',"' + (_FILES_OF + self.diff).encode() + b'":' + orjson.dumps(files)
        return text


def compact_value(path: str | Path, offset: int, where: str, *, limit: int,
                  line: bool, field_bytes: int | None = None) -> tuple[bytes, int]:
    """The JSON text that starts at byte ``offset`` of ``path``, read in blocks, with every
    string over ``field_bytes`` cut to its head and tail; and the bytes of the file it
    covers. ``line``: it ends at the next newline outside a string (a JSON-lines line, the
    newline not included), else where its first value closes. A text still longer than
    ``limit`` once cut is refused (an :class:`InputError` naming ``where``)."""
    cap = READ_FIELD_BYTES if field_bytes is None else field_bytes
    out = bytearray()
    depth = 0
    current: _String | None = None
    pending = b""  # a backslash that ended the last block, inside a string
    consumed = 0
    try:
        fh = open_regular(path)
    except OSError as exc:
        raise cannot_read(path, exc) from None
    with fh:
        fh.seek(offset)
        while True:
            try:
                block = fh.read(_BLOCK)
            except OSError as exc:
                raise cannot_read(path, exc) from None
            if not block:
                break
            data = pending + block
            base = consumed - len(pending)
            pending = b""
            i, n, done = 0, len(data), False
            while i < n:
                if current is not None:
                    e = _BODY.match(data, i).end()  # type: ignore[union-attr]
                    if e < n and data[e] == 0x5C:  # a backslash at the block's end
                        current.add(data[i:e])
                        pending = data[e:]
                        i = n
                        break
                    current.add(data[i:e])
                    if e >= n:
                        i = n
                        break
                    if data[e] == 0x0A:  # a newline in a string: the text ends, left open
                        out += current.text(closed=False)
                        current = None
                        done = True
                        i = e
                        break
                    out += current.text()
                    current = None
                    i = e + 1
                    continue
                m = _OUTSIDE.search(data, i)
                if m is None:
                    out += data[i:]
                    i = n
                    break
                k = m.start()
                c = data[k]
                out += data[i:k]
                i = k + 1
                if c == 0x22:
                    key = _DIFF_KEY.search(out[-64:]) if depth == 1 else None
                    current = _String(cap, key.group(1).decode() if key else None)
                elif c == 0x0A:
                    if line:
                        done = True
                        i = k
                        break
                    out += b"\n"
                else:
                    out.append(c)
                    depth += 1 if c in b"[{" else -1
                    if depth == 0 and not line:
                        done = True
                        break
                if len(out) > limit:
                    break
            consumed = base + i
            if len(out) > limit:
                raise InputError(path, where, f"longer than {limit} bytes even with its "
                                              "long strings cut: refused")
            if done:
                return bytes(out), consumed
    if current is not None:  # the file ends in a string: left open, as it was
        out += current.text(closed=False)
    return bytes(out + pending), consumed + len(pending)


def mark_read_cuts(value: Any) -> int:
    """Note in a result object (``value``, as read) each string that reading cut, in its
    ``truncated`` member; the number noted."""
    if not isinstance(value, dict):
        return 0
    for diff, listed in _LISTS.items():
        files = value.pop(_FILES_OF + diff, None)
        if isinstance(files, list) and value.get(listed) is None:
            value[listed] = files
    found: dict[str, dict[str, Any]] = {}
    stack: list[tuple[str, Any]] = [(k, v) for k, v in value.items() if k != "truncated"]
    while stack:
        name, item = stack.pop()
        if isinstance(item, str):
            m = _READ_MARK.search(item)
            if m is not None:
                kept = len(item.encode("utf-8", "surrogatepass")) - len(m.group(0)) - 2
                found[name] = {"bytes": int(m.group(1)) + kept, "kept": kept}
        elif isinstance(item, dict):
            stack.extend((f"{name}.{k}", v) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((f"{name}[{i}]", v) for i, v in enumerate(item))
    if found:
        prior = value.get("truncated")
        value["truncated"] = {**(prior if isinstance(prior, dict) else {}), **found}
    return len(found)
