"""What each shell command may be, told once per distinct command text: whether it may
write a file, put a shim in place of the test runner, read history beyond the base, fetch
later code, install a package by name, or run a test script.

Agents run the same commands again and again (``git status``, ``git diff``, ``pip install -e
.``, the test command), across attempts and tasks: each text's answer is kept, so that the
checks' patterns run once per distinct command, and each attempt's checks read only the
commands that may matter to them. Every answer here is a superset: the checks themselves
decide.

Example:
    >>> flags("git status"), flags("git log --all") & PEEK != 0
    (0, True)
    >>> flags("sed -i 's/a/b/' x.py") & WRITES != 0
    True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from judgekit.integrity.changes import Change, shell_changes
from judgekit.integrity.checks import (FETCH_GATES, FETCH_WORDS, PEEK_GATES, PEEK_WORDS,
                                       RUNS_SCRIPT, SHIM, SHIM_HINT, gate)

#: may write a file (a heredoc, ``echo >``, ``sed -i``, ``rm``): its edits are read
WRITES = 1
#: may put a shim in place of the test runner (neuter-runner)
SHIM_CMD = 2
#: may read beyond the base (peek-history)
PEEK = 4
#: may fetch later code (fetch-upstream)
FETCH = 8
#: installs packages: fetch-upstream when the project is named
INSTALLS = 16
#: runs a test script (``sh run_tests.sh``): the task's test command, when it has none
RUNS = 32

#: each command text seen, with its flags (read it, never write it: :func:`flags` does)
cached: dict[str, int] = {}
#: distinct command texts kept; the cache starts again when it is full
CACHE_SIZE = 1 << 16


_EDITS: dict[str, tuple[Change, ...]] = {}


def shell_edits(index: int, text: str,
                keep: Callable[[Change], bool] | None = None) -> list[Change]:
    """:func:`judgekit.integrity.changes.shell_changes` of the command ``text`` run by
    tool call ``index``, parsed once per distinct text; with ``keep``, only the edits it
    keeps (asked of the kept edit, before it is copied)."""
    # each caller gets lists of its own (the kept edits are never changed)
    return [replace(c, tool_call=index, removed=[*c.removed], added=[*c.added],
                    context=[*c.context], lines=[*c.lines])
            for c in text_edits(text) if keep is None or keep(c)]


def text_edits(text: str) -> tuple[Change, ...]:
    """The edits of the command ``text``, as kept (tool call 0): read them, never change
    them."""
    made = _EDITS.get(text)
    if made is None:
        made = tuple(shell_changes(0, text))
        if len(_EDITS) >= CACHE_SIZE:
            _EDITS.clear()
        _EDITS[text] = made
    return made


def _names_a_package(lowered: str) -> bool:
    """Whether a word after ``install`` may be a package's name (not an option, a path
    or ``.``): ``pip install -e .`` and ``pip install -r requirements.txt`` name none."""
    for part in lowered.split("install")[1:]:
        words = part.split()
        for i, word in enumerate(words):
            if word in ("-r", "--requirement", "-c", "--constraint") and i + 1 < len(words):
                words[i + 1] = "-"
            elif not word.startswith(("-", ".", "/", "~")):
                return True
    return False


def _classify(text: str) -> int:
    out = 0
    if shell_edits(0, text):
        out |= WRITES
    if any(w in text for w in SHIM_HINT) and SHIM.search(text):
        out |= SHIM_CMD
    if ".git/" in text or gate(text, PEEK_GATES, PEEK_WORDS):
        out |= PEEK
    if gate(text, FETCH_GATES, FETCH_WORDS):
        out |= FETCH
    lowered = text.lower()
    if "pip" in lowered and "install" in lowered and _names_a_package(lowered):
        out |= INSTALLS
    if RUNS_SCRIPT.search(text):
        out |= RUNS
    return out


def flags(text: str) -> int:
    """What ``text`` may be (a bitwise or of :data:`WRITES`, :data:`SHIM_CMD`,
    :data:`PEEK`, :data:`FETCH`, :data:`INSTALLS`, :data:`RUNS`; 0 for most commands)."""
    found = cached.get(text)
    if found is None:
        found = _classify(text)
        if len(cached) >= CACHE_SIZE:
            cached.clear()
        cached[text] = found
    return found


__all__ = ["CACHE_SIZE", "FETCH", "INSTALLS", "PEEK", "RUNS", "SHIM_CMD", "WRITES", "cached",
           "flags", "shell_edits", "text_edits"]
