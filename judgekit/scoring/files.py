"""File-level precision, recall and F1 against the ground-truth commit, over all files and
over the source files alone.

The whole-commit scores compare with other harnesses (bobbin scores the whole commit). The
``source`` scores leave out what the agent was never asked to write: the fix's tests (the
runner withholds them and puts them back before testing; the rule below is the runner's) and
documentation and changelog files.

Example:
    >>> file_scores(["a", "b", "d", "e"], ["a", "b", "c"])
    FileScores(precision=0.5, recall=0.6666666666666666, f1=0.5714285714285715)
    >>> source_files(["src/app.py", "tests/test_app.py", "CHANGES.rst", "docs/api.rst"])
    ['src/app.py']
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Collection, Iterable, Sequence
from functools import lru_cache
from typing import NamedTuple


class FileScores(NamedTuple):
    precision: float
    recall: float
    f1: float


def file_scores(agent: Collection[str], truth: Collection[str]) -> FileScores:
    """Precision 0 for an empty agent set, recall 0 for empty ground truth, F1 0 when both are 0."""
    a, t = set(agent), set(truth)
    hit = len(a & t)
    precision = hit / len(a) if a else 0.0
    recall = hit / len(t) if t else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return FileScores(precision, recall, f1)


# The rule for the test part of a fix: the runner withholds these files from the agent
# (judgekit.execute.testfiles re-exports it) and source scores leave them out.
_TEST_DIRS = {"test", "tests", "testing", "__tests__", "fixtures", "snapshots", "testdata"}
_TEST_NAME = re.compile(
    r"(^test_.*\.py$|.*_test\.(py|go|rs)$|.*_tests?\.rs$|.*\.snap(\.new)?$"
    r"|.*\.(test|spec)\.[jt]sx?$|^conftest\.py$)"
)

_DOC_DIRS = {"docs", "doc", "documentation", "changelog", "changelogs", "changelog.d",
             "changes", "changes.d", "newsfragments", "news", "release-notes"}
_DOC_NAME = re.compile(
    r"^((changes|changelog|history|news|release[-_]?notes|authors|contributors)(\.[a-z]+)?"
    r"|.*\.(md|rst|adoc))$", re.IGNORECASE)


def is_test_path(path: str, globs: Sequence[str] | None = None) -> bool:
    """True when ``path`` is test code or test data (the runner's rule).

    With ``globs`` (a task's ``test_files``) only those patterns decide; otherwise a directory
    named test/tests/fixtures/snapshots/testdata, or a test file name, does.
    """
    if globs is not None:
        return any(fnmatch.fnmatchcase(path, g) for g in globs)
    return _default_is_test(path)


@lru_cache(maxsize=65536)
def _default_is_test(path: str) -> bool:
    parts = path.split("/")
    if any(p in _TEST_DIRS for p in parts[:-1]):
        return True
    return bool(_TEST_NAME.match(parts[-1]))


@lru_cache(maxsize=65536)
def is_doc_path(path: str) -> bool:
    """True for documentation and changelog files (``docs/``, ``CHANGES.rst``, ``*.md``)."""
    parts = path.split("/")
    if any(p.lower() in _DOC_DIRS for p in parts[:-1]):
        return True
    return bool(_DOC_NAME.match(parts[-1]))


def is_source_path(path: str, test_globs: Sequence[str] | None = None) -> bool:
    """Neither a test nor a documentation/changelog file."""
    return not is_test_path(path, test_globs) and not is_doc_path(path)


def source_files(paths: Iterable[str], test_globs: Sequence[str] | None = None) -> list[str]:
    """The sorted paths that are neither tests nor documentation/changelog files."""
    globs = None if test_globs is None else tuple(test_globs)
    return list(_source_files(tuple(sorted(set(paths))), globs))


@lru_cache(maxsize=4096)
def _source_files(paths: tuple[str, ...], globs: tuple[str, ...] | None) -> tuple[str, ...]:
    return tuple(p for p in paths if is_source_path(p, globs))
