"""Which files of a fix commit are its tests.

The test part of a fix is withheld from the agent and applied just before the test
command runs, so the tests the fix added can fail at the parent and pass with a fix.

Example:
    >>> is_test_path("tests/test_basic.py"), is_test_path("src/flask/app.py")
    (True, False)
    >>> is_test_path("crates/x/resources/test/fixtures/a.py")
    True
    >>> is_test_path("src/app.py", ["src/*.py"])
    True
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Sequence

_TEST_DIRS = {"test", "tests", "testing", "__tests__", "fixtures", "snapshots", "testdata"}
_TEST_NAME = re.compile(
    r"(^test_.*\.py$|.*_test\.(py|go|rs)$|.*_tests?\.rs$|.*\.snap(\.new)?$"
    r"|.*\.(test|spec)\.[jt]sx?$|^conftest\.py$)"
)


def is_test_path(path: str, globs: Sequence[str] | None = None) -> bool:
    """True when ``path`` is test code or test data.

    With ``globs`` (from a task's ``test_files``) only those patterns decide; otherwise a
    directory named test/tests/fixtures/snapshots/testdata, or a test file name, does.
    """
    if globs is not None:
        return any(fnmatch.fnmatchcase(path, g) for g in globs)
    parts = path.split("/")
    if any(p in _TEST_DIRS for p in parts[:-1]):
        return True
    return bool(_TEST_NAME.match(parts[-1]))
