"""A tiny real git project with a bug-fix commit, and suite files pointing at it."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

PY = sys.executable

BUGGY = "def add(a, b):\n    return a - b\n\n\ndef neg(a):\n    return -a\n"
FIXED = "def add(a, b):\n    return a + b\n\n\ndef neg(a):\n    return -a\n"
OLD_TESTS = "from calc import neg\n\n\ndef test_neg():\n    assert neg(2) == -2\n"
NEW_TESTS = OLD_TESTS + "\n\ndef test_add():\n    from calc import add\n    assert add(2, 3) == 5\n"


def git(cwd: Path, *args: str) -> str:
    out = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd,
                         check=True, capture_output=True, text=True)
    return out.stdout.strip()


@dataclass(frozen=True)
class Project:
    path: Path
    parent: str
    fix: str


@pytest.fixture(scope="session")
def project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    """calc: ``add`` subtracts; the fix commit corrects it and adds ``test_add``."""
    root = tmp_path_factory.mktemp("calc-project")
    git(root, "init", "-q", "-b", "main")
    (root / "calc").mkdir()
    (root / "tests").mkdir()
    (root / "calc" / "__init__.py").write_text(BUGGY)
    (root / "tests" / "test_calc.py").write_text(OLD_TESTS)
    (root / "README").write_text("calc\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "initial")
    parent = git(root, "rev-parse", "HEAD")
    (root / "calc" / "__init__.py").write_text(FIXED)
    (root / "tests" / "test_calc.py").write_text(NEW_TESTS)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "fix add")
    fix = git(root, "rev-parse", "HEAD")
    (root / "later.txt").write_text("a later commit\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "later work")
    return Project(root, parent, fix)


TEST_CMD = (f"PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 {PY} -m pytest -q -p no:cacheprovider "
            "tests/test_calc.py")


def write_suite(path: Path, project: Project, **overrides: object) -> Path:
    """A suite of one task on ``project`` (keys in ``overrides`` replace the task's)."""
    import yaml

    task = {"id": "calc-001", "repo": str(project.path), "commit": project.fix,
            "description": "add() returns the difference of its arguments instead of the sum.",
            "test_command": TEST_CMD, "language": "python", "difficulty": "easy",
            "tags": ["bug-fix"]}
    task.update(overrides)
    path.write_text(yaml.safe_dump({"name": "calc", "tasks": [task]}))
    return path


@pytest.fixture
def suite_file(tmp_path: Path, project: Project) -> Path:
    return write_suite(tmp_path / "calc.yaml", project)


FIX_AGENT = "sed -i 's/a - b/a + b/' calc/__init__.py"


def sleepers(token: str) -> list[int]:
    """Live ``sleep`` processes whose arguments contain ``token`` (zombies excluded)."""
    import os

    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            argv = Path(f"/proc/{entry.name}/cmdline").read_bytes().split(b"\0")
            state = Path(f"/proc/{entry.name}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state not in ("Z", "X") and argv and os.path.basename(argv[0]) == b"sleep" and any(
                token.encode() in a for a in argv[1:]):
            found.append(int(entry.name))
    return found
