"""Files touched by a unified diff.

Handles ``git diff`` output with renames, copies, deletions, new files, binary files,
mode-only changes and C-quoted paths, as well as plain ``---``/``+++`` diffs.

Example:
    >>> files_touched("diff --git a/x.py b/x.py\\n--- a/x.py\\n+++ b/x.py\\n@@ -1 +1 @@\\n-a\\n+b\\n")
    ['x.py']
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

DEFAULT_INFRA_PATHS: tuple[str, ...] = (".bobbin/", ".claude/", ".judgekit/")
"""Path prefixes of agent and harness infrastructure, excluded from both sides."""

_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "a": "\a", "b": "\b", "f": "\f",
            "r": "\r", "v": "\v"}


def _unquote(path: str) -> str:
    """Undo git's C-style quoting of a path (``"a\\303\\251.py"``)."""
    if not (len(path) >= 2 and path[0] == '"' and path[-1] == '"'):
        return path
    body, out, i = path[1:-1], bytearray(), 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in "01234567" and re.match(r"[0-7]{3}", body[i + 1 : i + 4]):
                out.append(int(body[i + 1 : i + 4], 8))
                i += 4
                continue
            out.extend(_ESCAPES.get(nxt, nxt).encode())
            i += 2
            continue
        out.extend(ch.encode())
        i += 1
    return out.decode("utf-8", errors="replace")


def _strip_prefix(path: str) -> str | None:
    path = _unquote(path.strip())
    if path == "/dev/null":
        return None
    if path[:2] in ("a/", "b/", "i/", "w/", "c/", "o/"):
        return path[2:]
    return path


def _split_git_header(rest: str) -> tuple[str, str]:
    """Split ``a/x b/y`` of a ``diff --git`` line, quoted or not, spaces allowed."""
    rest = rest.strip()
    if rest.startswith('"'):
        end = rest.index('"', 1)
        while rest[end - 1] == "\\":
            end = rest.index('"', end + 1)
        return rest[: end + 1], rest[end + 1 :].strip()
    # Unquoted: both halves have the same path after their prefix when not renamed.
    half = (len(rest) - 1) // 2
    if rest[half] == " " and rest[2:half] == rest[half + 3 :]:
        return rest[:half], rest[half + 1 :]
    idx = rest.find(" b/")
    return (rest[:idx], rest[idx + 1 :]) if idx > 0 else (rest, rest)


def _file_blocks(diff: str) -> Iterable[list[str]]:
    """Split a diff into one list of lines per file section."""
    lines = diff.splitlines()
    git_style = any(line.startswith("diff --git ") for line in lines)

    def starts_section(i: int) -> bool:
        if git_style:
            return lines[i].startswith("diff --git ")
        return (lines[i].startswith("--- ") and i + 1 < len(lines)
                and lines[i + 1].startswith("+++ "))

    block: list[str] = []
    for i, line in enumerate(lines):
        if starts_section(i) and block:
            yield block
            block = []
        block.append(line)
    if block:
        yield block


def _paths_of_block(block: list[str]) -> set[str]:
    paths: set[str] = set()
    old = new = None
    for line in block:
        if line.startswith("@@"):
            break
        if line.startswith("diff --git "):
            a, b = _split_git_header(line[len("diff --git ") :])
            old, new = _strip_prefix(a), _strip_prefix(b)
        elif line.startswith(("rename from ", "copy from ")):
            old = _unquote(line.split(" from ", 1)[1])
        elif line.startswith(("rename to ", "copy to ")):
            new = _unquote(line.split(" to ", 1)[1])
        elif line.startswith("--- "):
            old = _strip_prefix(line[4:].split("\t")[0])
        elif line.startswith("+++ "):
            new = _strip_prefix(line[4:].split("\t")[0])
    is_copy = any(line.startswith("copy from ") for line in block[:8])
    for path in (new,) if is_copy else (old, new):
        if path:
            paths.add(path)
    return paths


def files_touched(diff: str | None, exclude: Sequence[str] = DEFAULT_INFRA_PATHS) -> list[str]:
    """Return the sorted paths a unified diff changes, without infrastructure paths.

    A rename counts both its old and its new path; a deletion counts the deleted path;
    a copy counts only the new path.
    """
    if not diff:
        return []
    paths: set[str] = set()
    for block in _file_blocks(diff):
        paths |= _paths_of_block(block)
    return sorted(p for p in paths if not is_excluded(p, exclude))


def is_excluded(path: str, exclude: Sequence[str] = DEFAULT_INFRA_PATHS) -> bool:
    """True when ``path`` lies under one of the ``exclude`` prefixes (or equals one)."""
    for prefix in exclude:
        bare = prefix.rstrip("/")
        if path == bare or path.startswith(bare + "/"):
            return True
    return False


def strip_paths(diff: str, exclude: Sequence[str] = DEFAULT_INFRA_PATHS) -> str:
    """Return ``diff`` without the file sections of excluded paths."""
    kept: list[str] = []
    for block in _file_blocks(diff):
        if not any(is_excluded(p, exclude) for p in _paths_of_block(block)):
            kept.extend(block)
    return "\n".join(kept) + ("\n" if kept else "")
