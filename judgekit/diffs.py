"""Unified diffs: one hunk model for every part of judgekit that reads a diff.

:func:`parse_diff` turns ``git diff`` output (renames, copies, deletions, new, binary and
mode-only changes, C-quoted paths, ``--no-prefix``), ``diff -u`` / ``diff -ruN`` output and
``svn diff`` output into :class:`FilePatch` objects (old and new path, and the old and new line
span of each :class:`Hunk`). Plain diffs are read hunk by hunk using the line counts of each
``@@`` header, so a removed line that reads ``-- comment`` is never taken for a file header.

Example:
    >>> files_touched("diff --git a/x.py b/x.py\\n--- a/x.py\\n+++ b/x.py\\n@@ -1 +1 @@\\n-a\\n+b\\n")
    ['x.py']
    >>> changed_ranges("--- a/x.py\\n+++ b/x.py\\n@@ -3,2 +3,3 @@\\n a\\n+b\\n c\\n")
    [('x.py', (3, 5))]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from judgekit.infra import (DEFAULT_INFRA_PATHS, IGNORE_FILES, is_bookkeeping_ignore,
                            is_excluded, literal_part)

__all__ = ["DEFAULT_INFRA_PATHS", "FilePatch", "Hunk", "changed_ranges", "excluded_files",
           "files_touched", "is_excluded", "parse_diff", "patch_paths", "split_excluded",
           "strip_paths", "unquote_path"]

_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "a": "\a", "b": "\b", "f": "\f",
            "r": "\r", "v": "\v"}
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_GIT_SECTION = re.compile(r"^diff --git ", re.MULTILINE)
_HUNK_ALL = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)
_BINARY = re.compile(r"^Binary files (.+) and (.+) differ$")
_SPECIAL_MARKERS = ("\nrename ", "\ncopy ", "\nnew file", "\ndeleted file", "/dev/null",
                    "\nBinary files", "\nGIT binary", '"')
_SPECIAL_HEADER = re.compile(
    r"^(?:rename |copy |new file|deleted file|--- /dev/null|\+\+\+ /dev/null|Binary files"
    r"|GIT binary)", re.MULTILINE)
_PREFIX_PAIRS = {("a/", "b/"), ("i/", "w/"), ("c/", "w/"), ("c/", "i/"), ("o/", "w/"),
                 ("w/", "i/"), ("i/", "o/"), ("1/", "2/")}


@dataclass(frozen=True)
class Hunk:
    """One ``@@`` hunk: where it starts and how many lines it spans, before and after."""

    old_start: int
    old_len: int
    new_start: int
    new_len: int


@dataclass
class FilePatch:
    """The change to one file. ``None`` for the old path of a new file, the new of a deletion."""

    old_path: str | None
    new_path: str | None
    hunks: list[Hunk] = field(default_factory=list)
    copy: bool = False
    binary: bool = False

    @property
    def paths(self) -> list[str]:
        """The paths this change touches: a copy only its new path, a rename both."""
        if self.copy:
            return [self.new_path] if self.new_path else []
        out = [p for p in (self.old_path, self.new_path) if p]
        return out[:1] if len(out) == 2 and out[0] == out[1] else out


def unquote_path(path: str) -> str:
    """Undo git's C-style quoting of a path (``"a\\303\\251.py"``); other paths pass as they are."""
    if not (len(path) >= 2 and path[0] == '"' and path[-1] == '"'):
        return path
    body, out, i = path[1:-1], bytearray(), 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in "01234567" and re.match(r"[0-7]{3}", body[i + 1 : i + 4]):
                out.append(int(body[i + 1 : i + 4], 8) & 0xFF)
                i += 4
                continue
            out.extend(_ESCAPES.get(nxt, nxt).encode())
            i += 2
            continue
        out.extend(ch.encode("utf-8", "surrogatepass"))
        i += 1
    return out.decode("utf-8", errors="replace")


def _header(raw: str) -> tuple[str | None, bool]:
    """``(path, absent)`` of a ``---``/``+++`` line body.

    ``absent`` marks the missing side of a new or deleted file in plain diffs: ``diff -N``
    dates it at the epoch, ``svn diff`` calls it ``(nonexistent)``.
    """
    raw = raw.rstrip("\r")
    if raw.startswith('"'):
        end = _closing_quote(raw)
        return (unquote_path(raw[: end + 1]) if end > 0 else raw), False
    name, _, stamp = raw.partition("\t")
    name = name.rstrip()
    if not stamp and name.endswith(")") and " (" in name:  # svn, spaces instead of a tab
        name, _, stamp = name.rpartition(" (")
        stamp = "(" + stamp
    if name == "/dev/null":
        return None, True
    absent = stamp.startswith(("1970-01-01 00:00:00", "(nonexistent)", "Thu Jan  1 00:00:00 1970"))
    return name, absent


def _closing_quote(text: str) -> int:
    i = 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i
        i += 1
    return -1


def _split_git_header(rest: str) -> tuple[str, str]:
    """Split ``a/x b/y`` of a ``diff --git`` line, quoted or not, spaces allowed."""
    rest = rest.strip()
    if rest.startswith('"'):
        end = _closing_quote(rest)
        if end < 0:
            return rest, rest
        return unquote_path(rest[: end + 1]), _unquote_token(rest[end + 1 :].strip())
    if rest.endswith('"'):
        start = rest.rfind(' "')
        if start > 0:
            return rest[:start], unquote_path(rest[start + 1 :])
    # Unquoted: both halves have the same path (after any prefix) when not renamed.
    half = (len(rest) - 1) // 2
    if len(rest) % 2 == 1 and rest[half] == " ":
        a, b = rest[:half], rest[half + 1 :]
        if a == b or (a[1:2] == "/" and b[1:2] == "/" and a[2:] == b[2:]):
            return a, b
    idx = rest.find(" b/")
    return (rest[:idx], rest[idx + 1 :]) if idx > 0 else (rest, rest)


def _unquote_token(token: str) -> str:
    return unquote_path(token) if token.startswith('"') else token


def _strip_git_prefixes(old: str | None, new: str | None, prefixed: bool
                        ) -> tuple[str | None, str | None]:
    if not prefixed:
        return old, new
    return (old[2:] if old else old), (new[2:] if new else new)


def _has_prefixes(a: str, b: str) -> bool:
    return (a[:2], b[:2]) in _PREFIX_PAIRS


def _git_section(text: str, with_hunks: bool = True) -> FilePatch:
    """One ``diff --git`` section. Its bounds are unambiguous, so hunk bodies are not walked."""
    first, _, rest = text.partition("\n")
    a, b = _split_git_header(first[len("diff --git ") :])
    prefixed = _has_prefixes(a, b)
    old, new = _strip_git_prefixes(a, b, prefixed)
    patch = FilePatch(old, new)
    header_end = rest.find("\n@@ ")
    header = rest if header_end < 0 and not rest.startswith("@@ ") else \
        ("" if rest.startswith("@@ ") else rest[:header_end])
    for line in (header.split("\n") if _SPECIAL_HEADER.search(header) else ()):
        if line.startswith("rename from ") or line.startswith("copy from "):
            patch.old_path = _unquote_token(line.split(" from ", 1)[1].rstrip("\r"))
            patch.copy = line.startswith("copy")
        elif line.startswith("rename to ") or line.startswith("copy to "):
            patch.new_path = _unquote_token(line.split(" to ", 1)[1].rstrip("\r"))
        elif line.startswith("new file mode"):
            patch.old_path = None
        elif line.startswith("deleted file mode"):
            patch.new_path = None
        elif line.startswith("--- /dev/null"):
            patch.old_path = None
        elif line.startswith("+++ /dev/null"):
            patch.new_path = None
        elif line.startswith("Binary files ") or line.startswith("GIT binary patch"):
            patch.binary = True
    if with_hunks:
        patch.hunks = [_hunk(m) for m in _HUNK_ALL.finditer(rest)]
    return patch


def _hunk(m: re.Match[str]) -> Hunk:
    return Hunk(int(m.group(1)), 1 if m.group(2) is None else int(m.group(2)),
                int(m.group(3)), 1 if m.group(4) is None else int(m.group(4)))


def _plain_header(old_raw: str, new_raw: str) -> FilePatch:
    """The patch a plain diff's ``---``/``+++`` pair starts (paths relative to the trees)."""
    (old, old_absent), (new, new_absent) = _header(old_raw), _header(new_raw)
    if old and new and old != new:
        po, pn = old.split("/", 1), new.split("/", 1)
        if len(po) == 2 and len(pn) == 2 and po[1] == pn[1]:  # diff -ruN old/ new/
            old, new = po[1], pn[1]
        elif _has_prefixes(old, new):
            old, new = old[2:], new[2:]
        else:  # diff -u x.py.orig x.py: the file is the new one
            old = new
    elif old and new and _has_prefixes(old, new):
        old, new = old[2:], new[2:]
    if old is None and new is not None and new[:2] == "b/":
        new = new[2:]
    if new is None and old is not None and old[:2] == "a/":
        old = old[2:]
    return FilePatch(None if old_absent else old, None if new_absent else new)


def _skip_hunk(lines: list[str], i: int, hunk: Hunk) -> int:
    """Index of the first line after the body of ``hunk``, whose header is at ``i - 1``."""
    old_left, new_left, n = hunk.old_len, hunk.new_len, len(lines)
    while i < n and (old_left > 0 or new_left > 0):
        body = lines[i]
        tag = body[:1]
        if tag == " " or body == "":
            old_left -= 1
            new_left -= 1
        elif tag == "-":
            old_left -= 1
        elif tag == "+":
            new_left -= 1
        elif tag != "\\":
            break
        i += 1
    return i


def _walk_plain(lines: list[str]) -> list[tuple[int, FilePatch]]:
    """``(header line index, patch)`` of a diff without ``diff --git`` headers.

    Each hunk's lines are consumed by the counts of its ``@@`` header.
    """
    found: list[tuple[int, FilePatch]] = []
    current: FilePatch | None = None
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        if line.startswith("--- ") and i + 1 < n and lines[i + 1].startswith("+++ "):
            current = _plain_header(line[4:], lines[i + 1][4:])
            found.append((i, current))
            i += 2
            continue
        m = _HUNK.match(line)
        if m and current is not None:
            hunk = _hunk(m)
            current.hunks.append(hunk)
            i = _skip_hunk(lines, i + 1, hunk)
            continue
        b = _BINARY.match(line)
        if b:
            current = _plain_header(b.group(1), b.group(2))
            current.binary = True
            found.append((i, current))
        i += 1
    return found


def parse_diff(diff: str | None, *, with_hunks: bool = True) -> list[FilePatch]:
    """Every file change of a unified diff, in order.

    ``with_hunks=False`` skips reading ``@@`` headers of ``diff --git`` sections (their file
    paths do not depend on them), for callers that only need paths.
    """
    if not diff:
        return []
    starts = [m.start() for m in _GIT_SECTION.finditer(diff)]
    if not starts:
        return [patch for _, patch in _walk_plain(diff.splitlines())]
    ends = starts[1:] + [len(diff)]
    return [_git_section(diff[s:e], with_hunks) for s, e in zip(starts, ends)]


def _git_paths(diff: str) -> set[str] | None:
    """The paths of a ``diff --git`` diff whose files are all plain modifications: those its
    ``diff --git`` lines name; ``None`` when a file header (its ``diff --git`` line up to its
    first ``@@`` line) holds a rename, copy, new, deleted or binary file, or a quoted path.

    Only the headers are read: the hunk bodies are skipped with ``str.find``, so a diff is
    scanned once. :func:`_git_section` reads nothing else to find a section's paths.
    """
    headers: list[str] = []
    start, size = 0, len(diff)
    while True:
        nxt = diff.find("\ndiff --git ", start)
        end = size if nxt < 0 else nxt
        hunk = diff.find("\n@@ ", start, end)
        headers.append(diff[start : end if hunk < 0 else hunk])
        if nxt < 0:
            break
        start = nxt + 1
    # Joined by newlines, no marker spans two headers (the next starts "diff --git ").
    joined = "\n".join(headers)
    if any(marker in joined for marker in _SPECIAL_MARKERS):
        return None
    paths: set[str] = set()
    for header in headers:
        eol = header.find("\n")
        a, b = _split_git_header(header[11 : eol if eol >= 0 else len(header)].rstrip("\r"))
        if _has_prefixes(a, b):
            a, b = a[2:], b[2:]
        paths.add(a)
        paths.add(b)
    return paths


def patch_paths(patches: Iterable[FilePatch]) -> set[str]:
    return {p for patch in patches for p in patch.paths}


def files_touched(diff: str | None, exclude: Sequence[str] = DEFAULT_INFRA_PATHS) -> list[str]:
    """Return the sorted paths a unified diff changes, without infrastructure paths.

    A rename counts both its old and its new path; a deletion counts the deleted path;
    a copy counts only the new path. A root ``.gitignore`` change that only adds patterns for
    infrastructure paths is left out too (:func:`judgekit.infra.is_bookkeeping_ignore`).
    Results are cached by diff text: a task's ground-truth diff recurs in every attempt of
    every arm.
    """
    if not diff:
        return []
    return list(_recent(diff, tuple(exclude))[0])


def excluded_files(diff: str | None, exclude: Sequence[str] = DEFAULT_INFRA_PATHS) -> list[str]:
    """The sorted paths of ``diff`` that :func:`files_touched` leaves out."""
    if not diff:
        return []
    return list(_recent(diff, tuple(exclude))[1])


_RECENT: list[tuple[str, tuple[str, ...], tuple[tuple[str, ...], tuple[str, ...]]]] = []
_RECENT_SIZE = 4


def _recent(diff: str, exclude: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """:func:`_touched`, looked up first among the last few diffs by comparing texts: a
    diff just read again (a task's fix, in each of its results) is found without hashing
    its text anew, and a different diff usually differs in length."""
    for text, excluded, found in _RECENT:
        if text == diff and excluded == exclude:
            return found
    found = _touched(diff, exclude)
    _RECENT.insert(0, (diff, exclude, found))
    del _RECENT[_RECENT_SIZE:]
    return found


@lru_cache(maxsize=4096)
def _touched(diff: str, exclude: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(kept, left out)`` paths of ``diff``."""
    plain = _git_paths(diff) if diff.startswith("diff --git ") else None
    # Plain modifications only: the paths are those of the ``diff --git`` lines.
    paths = plain if plain is not None else patch_paths(parse_diff(diff, with_hunks=False))
    left = {p for p in paths if is_excluded(p, exclude)}
    if any(p in IGNORE_FILES for p in paths - left):
        left.update(path for text, patch in _sections(diff)
                    if patch is not None and _is_bookkeeping(patch, text, exclude)
                    for path in patch.paths)
    return tuple(sorted(paths - left)), tuple(sorted(left))


def changed_ranges(diff: str | None, *, side: Literal["old", "new"] = "new"
                   ) -> list[tuple[str, tuple[int, int]]]:
    """``(path, (first, last))`` of each hunk, in the ``side`` file's line numbers.

    ``side="new"`` skips deleted files (a pure deletion maps to the line where the removed
    text was); ``side="old"`` skips new files.
    """
    out: list[tuple[str, tuple[int, int]]] = []
    for patch in parse_diff(diff):
        path = patch.new_path if side == "new" else patch.old_path
        if path is None:
            continue
        for h in patch.hunks:
            start, length = (h.new_start, h.new_len) if side == "new" else (h.old_start, h.old_len)
            first = max(1, start)
            out.append((path, (first, max(first, start + length - 1))))
    return out


def _file_sections(diff: str) -> list[str]:
    """The text of each file's section, for diffs with ``diff --git`` headers."""
    starts = [m.start() for m in _GIT_SECTION.finditer(diff)]
    if not starts:
        return []
    head = [diff[: starts[0]]] if starts[0] else []
    return head + [diff[s:e] for s, e in zip(starts, starts[1:] + [len(diff)])]


def _may_name(diff: str, exclude: Sequence[str]) -> bool:
    """False only when no section of ``diff`` can be left out: no ``exclude`` entry (up to
    its first glob character) and no ignore file occurs anywhere in its text (an entry git
    would quote or escape is assumed to occur)."""
    for entry in exclude:
        bare = literal_part(entry)
        if not bare or not bare.isascii() or not bare.isprintable() or '"' in bare \
                or "\\" in bare:
            return True
        if bare in diff:
            return True
    return any(name in diff for name in IGNORE_FILES)


def _sections(diff: str) -> list[tuple[str, FilePatch | None]]:
    """Each file's text with its patch, in order; text before the first file has none."""
    git = _file_sections(diff)
    if git:
        return [(text, _git_section(text, with_hunks=False) if text.startswith("diff --git ")
                 else None) for text in git]
    return [("".join(line + "\n" for line in block), patch)
            for block, patch in _plain_blocks(diff.splitlines())]


def _change_lines(text: str) -> tuple[list[str], list[str]]:
    """The added and the removed lines of the hunks of one file's section."""
    added: list[str] = []
    removed: list[str] = []
    in_hunk = False
    for line in text.split("\n"):
        if line.startswith("@@ "):
            in_hunk = True
        elif in_hunk and line.startswith("+"):
            added.append(line[1:].rstrip("\r"))
        elif in_hunk and line.startswith("-"):
            removed.append(line[1:].rstrip("\r"))
    return added, removed


def _is_bookkeeping(patch: FilePatch, text: str, exclude: Sequence[str]) -> bool:
    """True for a root ignore file's change that only adds infrastructure patterns."""
    if (patch.binary or patch.copy or patch.new_path not in IGNORE_FILES
            or patch.old_path not in (None, patch.new_path)):
        return False
    added, removed = _change_lines(text)
    return is_bookkeeping_ignore(added, removed, exclude)


def _dropped(patch: FilePatch | None, text: str, exclude: Sequence[str]) -> bool:
    if patch is None:
        return False
    return (any(is_excluded(p, exclude) for p in patch.paths)
            or _is_bookkeeping(patch, text, exclude))


def split_excluded(diff: str, exclude: Sequence[str] = DEFAULT_INFRA_PATHS
                   ) -> tuple[str, list[str]]:
    """``diff`` without the sections :func:`strip_paths` drops, and the sorted paths of those
    sections: what a producer leaves out of a change, to be listed beside it."""
    if ((diff.startswith("diff --git ") or "\ndiff --git " in diff)  # git sections, and
            and not _may_name(diff, exclude)):  # none of them can be dropped
        return (diff if diff.endswith("\n") else diff + "\n"), []
    kept: list[str] = []
    left: set[str] = set()
    for text, patch in _sections(diff):
        if patch is not None and _dropped(patch, text, exclude):
            left.update(patch.paths)
        else:
            kept.append(text)
    out = "".join(kept)
    return (out if not out or out.endswith("\n") else out + "\n"), sorted(left)


def strip_paths(diff: str, exclude: Sequence[str] = DEFAULT_INFRA_PATHS) -> str:
    """Return ``diff`` without the file sections of excluded paths, and without a root
    ``.gitignore`` change that only adds patterns for them."""
    return split_excluded(diff, exclude)[0]


def _plain_blocks(lines: list[str]) -> list[tuple[list[str], FilePatch | None]]:
    """Split a plain diff into per-file line blocks (with any preamble lines before each)."""
    found = _walk_plain(lines)
    if not found:
        return [(lines, None)]
    cuts = []
    for s, _ in found:  # a preamble (svn "Index:", "diff -ruN" lines) goes with its file
        j = s
        while j > 0 and lines[j - 1].startswith(("Index: ", "=====", "diff ", "Only in ")):
            j -= 1
        cuts.append(j)
    cuts[0] = 0
    ends = cuts[1:] + [len(lines)]
    return [(lines[c:e], patch) for c, e, (_, patch) in zip(cuts, ends, found)]
