"""Which files of a fix commit are its tests (one rule, shared with scoring).

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

from judgekit.scoring.files import is_test_path

__all__ = ["is_test_path"]
