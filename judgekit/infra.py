"""What agent CLIs and harnesses write into a task repository: their bookkeeping, not the work.

Each :class:`InfraSource` names the paths one tool writes or keeps in the repository it works
in (its state and history files, its own project folder) and the ignore-file patterns it adds
to hide them. :data:`DEFAULT_INFRA_PATHS` is the union of the paths; an entry is a path prefix
(``.claude/`` covers everything below it), or a glob matched one path component at a time
(``.aider.tags.cache.v*/``).

A change to the repository's root ``.gitignore`` is bookkeeping too when all it does is add
patterns for those paths (aider's ``.aider*``): :func:`is_bookkeeping_ignore`. Any other change
to it stays an edit.

Example:
    >>> is_excluded(".aider.tags.cache.v4/cache.db")
    True
    >>> is_bookkeeping_ignore([".aider*"], [])
    True
    >>> is_bookkeeping_ignore([".aider*", "build/"], [])
    False
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import lru_cache


@dataclass(frozen=True)
class InfraSource:
    """One tool and what it leaves in the repository it works in."""

    name: str
    paths: tuple[str, ...]
    ignore_patterns: tuple[str, ...] = ()
    """Ignore-file lines the tool itself adds for its paths."""


INFRA_SOURCES: tuple[InfraSource, ...] = (
    InfraSource("bobbin", (".bobbin/",)),
    InfraSource("Claude Code", (".claude/",)),
    InfraSource("judgekit", (".judgekit/",)),
    InfraSource("aider", (".aider.chat.history.md", ".aider.input.history",
                          ".aider.tags.cache.v*/"), (".aider*",)),
    InfraSource("Codex CLI", (".codex/",)),
    InfraSource("OpenHands", (".openhands/",)),
    InfraSource("Cursor", (".cursor/",)),
)
"""The tools judgekit knows, with what each writes into the task repository by default."""

DEFAULT_INFRA_PATHS: tuple[str, ...] = tuple(p for s in INFRA_SOURCES for p in s.paths)
"""Path prefixes (or component globs) of agent and harness infrastructure, excluded from both
sides of a comparison."""

IGNORE_FILES: tuple[str, ...] = (".gitignore",)
"""Ignore files whose bookkeeping-only changes are left out (at the repository root, where the
tools write them)."""

_GLOB_CHARS = frozenset("*?[")


def _has_glob(text: str) -> bool:
    return not _GLOB_CHARS.isdisjoint(text)


def literal_part(entry: str) -> str:
    """The text every path under ``entry`` contains: the entry up to its first glob character."""
    bare = entry.rstrip("/")
    for i, ch in enumerate(bare):
        if ch in _GLOB_CHARS:
            return bare[:i]
    return bare


def is_excluded(path: str, exclude: Sequence[str] = DEFAULT_INFRA_PATHS) -> bool:
    """True when ``path`` lies under one of the ``exclude`` entries (or equals one)."""
    if isinstance(exclude, tuple):
        return _is_excluded_cached(path, exclude)
    return _is_excluded(path, exclude)


@lru_cache(maxsize=65536)
def _is_excluded_cached(path: str, exclude: tuple[str, ...]) -> bool:
    return _is_excluded(path, exclude)


def _is_excluded(path: str, exclude: Sequence[str]) -> bool:
    for entry in exclude:
        bare = entry.rstrip("/")
        if _has_glob(bare):
            want, parts = bare.split("/"), path.split("/")
            if len(parts) >= len(want) and all(fnmatchcase(p, w) for p, w in zip(parts, want)):
                return True
        elif path == bare or path.startswith(bare + "/"):
            return True
    return False


def _pattern_body(line: str) -> str:
    """An ignore-file line as a path: anchoring and directory markers taken off."""
    body = line.strip()
    for lead in ("**/", "/"):
        if body.startswith(lead):
            body = body[len(lead):]
    for tail in ("/**", "/"):
        if body.endswith(tail):
            body = body[: -len(tail)]
    return body


def is_infra_pattern(line: str, exclude: Sequence[str] = DEFAULT_INFRA_PATHS) -> bool:
    """True when an ignore-file line hides only infrastructure paths of ``exclude``.

    A plain path must lie under an ``exclude`` entry; a glob must be an ``exclude`` entry
    itself, or the pattern a known tool writes for paths that ``exclude`` lists. Negations and
    comments are never bookkeeping.
    """
    text = line.strip()
    if not text or text.startswith(("#", "!")):
        return False
    body = _pattern_body(text)
    if not body:
        return False
    if not _has_glob(body):
        return is_excluded(body, tuple(exclude))
    if any(body == entry.rstrip("/") for entry in exclude):
        return True
    return any(body in source.ignore_patterns and any(p in exclude for p in source.paths)
               for source in INFRA_SOURCES)


def is_bookkeeping_ignore(added: Sequence[str], removed: Sequence[str],
                          exclude: Sequence[str] = DEFAULT_INFRA_PATHS) -> bool:
    """True when an ignore-file change only adds patterns for infrastructure paths.

    ``added`` and ``removed`` are the change's added and removed lines. A removed line must come
    back unchanged among the added ones (a final newline put in before the appended patterns);
    every other added line is blank or an infrastructure pattern, and there is at least one.
    """
    rest = Counter(added)
    for line in removed:
        if rest[line] <= 0:
            return False
        rest[line] -= 1
    lines = [line for line, n in rest.items() for _ in range(n)]
    patterns = [line for line in lines if line.strip()]
    return bool(patterns) and all(is_infra_pattern(line, exclude) for line in patterns)
