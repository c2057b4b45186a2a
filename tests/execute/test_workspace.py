"""Workspaces: a fresh, isolated checkout of the fix's parent."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from judgekit.errors import RunnerError
from judgekit.execute import MirrorCache, Workspace
from judgekit.ingest.suites import RepoSource
from judgekit.execute.testfiles import is_test_path

from .conftest import BUGGY, FIXED, Project, git


@pytest.fixture
def fix(project: Project, tmp_path: Path):
    return MirrorCache(tmp_path / "mirrors").resolve(RepoSource(str(project.path), True),
                                                     project.fix[:10])


def test_resolve_finds_the_parent_diff_and_files(fix, project: Project) -> None:
    assert fix.commit == project.fix and fix.parent == project.parent
    assert fix.files == ("calc/__init__.py", "tests/test_calc.py")
    assert fix.split_files() == (["calc/__init__.py"], ["tests/test_calc.py"])
    assert "+    return a + b" in fix.diff


def test_workspace_is_at_the_parent_without_the_fix_or_later_commits(fix, tmp_path) -> None:
    ws = Workspace.create(fix, tmp_dir=tmp_path)
    try:
        assert (ws.path / "calc" / "__init__.py").read_text() == BUGGY
        assert git(ws.path, "rev-parse", "HEAD") == fix.parent
        missing = subprocess.run(["git", "cat-file", "-e", f"{fix.commit}^{{commit}}"],
                                 cwd=ws.path, capture_output=True)
        assert missing.returncode != 0, "the fix commit must not be in the workspace"
        assert not (ws.path / "later.txt").exists()
        assert git(ws.path, "remote") == ""
        assert git(ws.path, "config", "core.hooksPath") == "/dev/null"
    finally:
        ws.cleanup()
    assert not ws.root.exists()


def test_nothing_in_the_workspace_leads_back_to_the_source(fix, project, tmp_path) -> None:
    ws = Workspace.create(fix, tmp_dir=tmp_path)
    try:
        dot = ws.path / ".git"
        for leftover in ("FETCH_HEAD", "ORIG_HEAD", "logs", "objects/info/alternates"):
            assert not (dot / leftover).exists(), leftover
        assert git(ws.path, "remote") == "" and git(ws.path, "reflog") == ""
        needles = [str(project.path).encode(), str(ws.git_dir).encode()]
        for path in dot.rglob("*"):
            if path.is_file():
                data = path.read_bytes()
                assert not any(n in data for n in needles), f"{path} names the source"
        assert git(ws.path, "config", "core.logAllRefUpdates") == "false"
    finally:
        ws.cleanup()


def test_judgekit_git_commands_ignore_what_the_agent_does_to_its_git_dir(fix, tmp_path) -> None:
    """Pointing .git at the source, or planting config, changes nothing judgekit does."""
    marker = tmp_path / "marker"
    ws = Workspace.create(fix, tmp_dir=tmp_path)
    try:
        git(ws.path, "config", "core.fsmonitor", f"touch {marker}")
        git(ws.path, "config", "diff.external", f"touch {marker}")
        (ws.path / "calc" / "__init__.py").write_text(FIXED)
        shutil.rmtree(ws.path / ".git")
        (ws.path / ".git").write_text(f"gitdir: {fix.source}/.git\n")
        before = git(fix.source, "status", "--porcelain")
        diff = ws.diff()
        assert "+    return a + b" in diff and "gitdir" not in diff
        assert git(fix.source, "status", "--porcelain") == before
        assert not marker.exists()
    finally:
        ws.cleanup()


def test_two_workspaces_do_not_share_changes(fix, tmp_path) -> None:
    a, b = Workspace.create(fix, tmp_dir=tmp_path), Workspace.create(fix, tmp_dir=tmp_path)
    try:
        (a.path / "calc" / "__init__.py").write_text(FIXED)
        assert (b.path / "calc" / "__init__.py").read_text() == BUGGY
        assert b.diff() == ""
    finally:
        a.cleanup()
        b.cleanup()


def test_hooks_in_the_workspace_never_run(fix, tmp_path) -> None:
    ws = Workspace.create(fix, tmp_dir=tmp_path)
    try:
        hook = ws.path / ".git" / "hooks" / "pre-commit"
        hook.parent.mkdir(exist_ok=True)
        hook.write_text("#!/bin/sh\ntouch hook-ran\nexit 1\n")
        hook.chmod(0o755)
        (ws.path / "README").write_text("changed\n")
        git(ws.path, "commit", "-qam", "agent commit")
        assert not (ws.path / "hook-ran").exists()
        assert "README" in ws.diff()
    finally:
        ws.cleanup()


def test_diff_covers_new_files_and_commits_but_not_setup_artifacts(fix, tmp_path) -> None:
    ws = Workspace.create(fix, tmp_dir=tmp_path)
    try:
        (ws.path / "build-cache").mkdir()
        (ws.path / "build-cache" / "blob").write_bytes(b"\0\1\2")
        ws.freeze_setup()
        (ws.path / "calc" / "new.py").write_text("X = 1\n")
        (ws.path / "calc" / "__pycache__").mkdir()
        (ws.path / "calc" / "__pycache__" / "x.pyc").write_bytes(b"\0")
        (ws.path / "data.bin").write_bytes(b"\0\xff\0")
        diff = ws.diff()
        assert "calc/new.py" in diff and "data.bin" in diff and "GIT binary patch" in diff
        assert "build-cache" not in diff and "__pycache__" not in diff
    finally:
        ws.cleanup()


def test_apply_replaces_agent_edits_of_the_fix_test_files(fix, tmp_path) -> None:
    ws = Workspace.create(fix, tmp_dir=tmp_path)
    try:
        (ws.path / "tests" / "test_calc.py").write_text("def test_nothing():\n    pass\n")
        ws.apply(fix.patch(["tests/test_calc.py"]), ["tests/test_calc.py"])
        assert "def test_add" in (ws.path / "tests" / "test_calc.py").read_text()
        assert (ws.path / "calc" / "__init__.py").read_text() == BUGGY
    finally:
        ws.cleanup()


def test_a_folder_the_agent_links_out_of_the_workspace_is_not_touched(fix, tmp_path) -> None:
    """Removing bytecode and files before the fix is applied stays inside the workspace,
    whatever links the agent left."""
    host = tmp_path / "host"
    (host / "__pycache__").mkdir(parents=True)
    kept = [host / "__pycache__" / "__init__.cpython-311.pyc", host / "new.py"]
    for path in kept:
        path.write_text("host file")
    ws = Workspace.create(fix, tmp_dir=tmp_path)
    try:
        shutil.rmtree(ws.path / "calc")
        (ws.path / "calc").symlink_to(host)
        ws.drop_bytecode(["calc/__init__.py"])
        ws.apply(fix.patch(["tests/test_calc.py"]), ["calc/new.py", "tests/test_calc.py"])
        assert "def test_add" in (ws.path / "tests" / "test_calc.py").read_text()
        assert all(path.read_text() == "host file" for path in kept)
    finally:
        ws.cleanup()


def test_a_missing_commit_is_a_runner_error(project: Project, tmp_path) -> None:
    with pytest.raises(RunnerError, match="not found"):
        MirrorCache(tmp_path).resolve(RepoSource(str(project.path), True), "deadbeef" * 5)


def test_remote_repositories_are_mirrored_once(project: Project, tmp_path) -> None:
    cache = MirrorCache(tmp_path / "mirrors")
    source = RepoSource(f"file://{project.path}", local=False)
    first = cache.resolve(source, project.fix)
    again = cache.resolve(source, project.fix)
    assert first.source == again.source and first.source.parent == tmp_path / "mirrors"
    assert len(list((tmp_path / "mirrors").glob("*.git"))) == 1


@pytest.mark.parametrize(("path", "expected"), [
    ("tests/test_basic.py", True),
    ("src/flask/sessions.py", False),
    ("crates/ruff_linter/resources/test/fixtures/flake8_pyi/PYI034.py", True),
    ("crates/ruff_linter/src/rules/flake8_pyi/snapshots/x.snap", True),
    ("crates/ruff_linter/src/rules/flake8_pyi/rules/bad.rs", False),
    ("py-polars/tests/unit/operations/test_join.py", True),
    ("CHANGES.rst", False),
])
def test_test_file_heuristic(path: str, expected: bool) -> None:
    assert is_test_path(path) is expected


def test_cleanup_removes_what_the_agent_made_unwritable(fix, tmp_path) -> None:
    ws = Workspace.create(fix, tmp_dir=tmp_path)
    locked = ws.path / "locked" / "inner"
    locked.mkdir(parents=True)
    (locked / "f").write_text("x")
    locked.chmod(0o500)
    (ws.path / "locked").chmod(0o000)
    ws.cleanup()
    assert not ws.root.exists()


def test_a_hanging_clone_ends_when_the_run_is_cancelled(tmp_path) -> None:
    """A remote that never answers does not keep a cancelled run alive."""
    import socket
    import threading
    import time

    from judgekit.execute import Cancelled

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    cancel = threading.Event()
    cache = MirrorCache(tmp_path / "mirrors", cancel=cancel)
    source = RepoSource(f"git://127.0.0.1:{server.getsockname()[1]}/calc.git", local=False)
    threading.Timer(0.5, cancel.set).start()
    started = time.monotonic()
    try:
        with pytest.raises(Cancelled):
            cache.resolve(source, "a" * 40)
    finally:
        server.close()
    assert time.monotonic() - started < 10
    leftovers = [p.name for p in (tmp_path / "mirrors").iterdir()]
    assert leftovers == [f"{source.key}.git.lock"], "no partial clone is left behind"
