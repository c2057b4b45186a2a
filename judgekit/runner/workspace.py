"""Mirrors and isolated workspaces for commit-revert tasks.

Each remote repository is mirrored once under a cache directory. A workspace is a new
repository in a temp dir holding only the history up to the fix commit's parent (the
fix itself is not reachable from it), with git hooks disabled and credential prompts off.

Example:
    >>> cache = MirrorCache("/tmp/judgekit-mirrors")          # doctest: +SKIP
    >>> fix = cache.resolve(task.repo_source(), task.commit)  # doctest: +SKIP
    >>> ws = Workspace.create(fix)                             # doctest: +SKIP
    >>> ws.path                                               # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import git

from judgekit.errors import RunnerError
from judgekit.runner.suite import RepoSource
from judgekit.runner.testfiles import is_test_path

GIT_ENV = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_ASKPASS": "true",
    "SSH_ASKPASS": "true",
    "GIT_SSH_COMMAND": "ssh -o BatchMode=yes",
    "GIT_CONFIG_NOSYSTEM": "1",
}
"""Environment for every git command: never prompt for credentials."""

_NO_HOOKS = ["-c", "core.hooksPath=/dev/null", "-c", "credential.helper="]

ARTIFACT_EXCLUDES = (
    "/.venv/", "/venv/", "__pycache__/", "*.pyc", "/.pytest_cache/", "/.mypy_cache/",
    "/.ruff_cache/", "/node_modules/", "/target/", "*.egg-info/",
)
"""Build and environment artifacts never counted as part of the agent's change."""

_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


def _git(cwd: str | Path) -> git.Git:
    g = git.Git(str(cwd))
    g.update_environment(**GIT_ENV)
    return g


def _run(g: git.Git, *args: str, what: str) -> str:
    try:
        return str(g.execute(["git", *_NO_HOOKS, *args], strip_newline_in_stdout=False))
    except git.GitCommandError as exc:
        detail = (exc.stderr or "").strip().splitlines()
        raise RunnerError(f"{what} failed: {detail[-1] if detail else exc}") from None


@contextlib.contextmanager
def _repo_lock(path: Path) -> Iterator[None]:
    """Serialise work on one mirror across threads and processes."""
    with _locks_guard:
        lock = _locks.setdefault(str(path), threading.Lock())
    path.parent.mkdir(parents=True, exist_ok=True)
    with lock, open(f"{path}.lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


@dataclass(frozen=True)
class FixCommit:
    """A resolved fix commit in a source repository (mirror or local path)."""

    source: Path
    commit: str
    parent: str
    diff: str
    files: tuple[str, ...]

    def split_files(self, globs: list[str] | None = None) -> tuple[list[str], list[str]]:
        """The fix's files as ``(source files, test files)``."""
        tests = [f for f in self.files if is_test_path(f, globs)]
        return [f for f in self.files if f not in tests], tests

    def patch(self, paths: list[str]) -> str:
        """Binary-safe patch from parent to fix, limited to ``paths``."""
        if not paths:
            return ""
        return _run(_git(self.source), "diff", "--binary", "--full-index", "--no-color",
                    "--no-ext-diff", self.parent, self.commit, "--", *paths, what="git diff")


def default_mirror_dir() -> Path:
    """``$JUDGEKIT_MIRROR_DIR``, else ``~/.cache/judgekit/mirrors``."""
    env = os.environ.get("JUDGEKIT_MIRROR_DIR")
    return Path(env) if env else Path.home() / ".cache" / "judgekit" / "mirrors"


class MirrorCache:
    """One bare mirror per remote repository; local repositories are used in place."""

    def __init__(self, root: str | Path | None = None) -> None:
        self.root = Path(root) if root else default_mirror_dir()

    def ensure(self, source: RepoSource, commit: str) -> Path:
        """Return a git directory that holds ``commit``, cloning or fetching as needed."""
        if source.local:
            path = Path(source.url)
            if not path.exists():
                raise RunnerError(f"local repository {source.url} does not exist")
            return path
        mirror = self.root / f"{source.key}.git"
        with _repo_lock(mirror):
            if not mirror.exists():
                tmp = Path(tempfile.mkdtemp(prefix=".clone-", dir=self.root))
                try:
                    _run(_git(self.root), "clone", "--mirror", "--quiet", source.url, str(tmp),
                         what=f"cloning {source.url}")
                    tmp.rename(mirror)
                finally:
                    shutil.rmtree(tmp, ignore_errors=True)
            elif not _has_commit(mirror, commit):
                _run(_git(mirror), "fetch", "--quiet", "--prune", "origin",
                     what=f"fetching {source.url}")
        return mirror

    def resolve(self, source: RepoSource, commit: str) -> FixCommit:
        """Find ``commit`` and its first parent, and the fix's diff."""
        repo_dir = self.ensure(source, commit)
        g = _git(repo_dir)
        if not _has_commit(repo_dir, commit):
            raise RunnerError(f"commit {commit} not found in {source.url}")
        full = _run(g, "rev-parse", f"{commit}^{{commit}}", what="rev-parse").strip()
        parents = _run(g, "rev-list", "--parents", "-n", "1", full, what="rev-list").split()
        if len(parents) < 2:
            raise RunnerError(f"commit {full} has no parent (a root commit cannot be reverted)")
        parent = parents[1]
        diff = _run(g, "diff", "--binary", "--full-index", "--no-color", "--no-ext-diff",
                    parent, full, what="git diff")
        names = _run(g, "diff", "--name-only", "-z", "--no-renames", parent, full,
                     what="git diff --name-only")
        files = tuple(sorted(n for n in names.split("\0") if n))
        return FixCommit(source=repo_dir, commit=full, parent=parent, diff=diff, files=files)


def _has_commit(repo_dir: Path, commit: str) -> bool:
    try:
        _git(repo_dir).execute(["git", "cat-file", "-e", f"{commit}^{{commit}}"])
        return True
    except git.GitCommandError:
        return False


class Workspace:
    """A fresh repository at the fix's parent in its own temp dir.

    ``root`` holds the repository (``root/repo``) and judgekit's own files (prompt, logs)
    next to it, outside the agent's working tree.
    """

    def __init__(self, root: Path, fix: FixCommit) -> None:
        self.root = root
        self.path = root / "repo"
        self.fix = fix
        self.base = fix.parent
        self.git = _git(self.path)

    @classmethod
    def create(cls, fix: FixCommit, *, tmp_dir: str | Path | None = None,
               depth: int | None = None) -> Workspace:
        """Check out ``fix.parent`` into a new temp dir; the fix commit is not fetched."""
        root = Path(tempfile.mkdtemp(prefix="judgekit-ws-", dir=tmp_dir))
        ws = cls(root, fix)
        try:
            ws.path.mkdir()
            g = ws.git
            _run(g, "init", "--quiet", what="git init")
            for key, value in (("core.hooksPath", "/dev/null"), ("credential.helper", ""),
                               ("user.name", "judgekit"), ("user.email", "judgekit@localhost"),
                               ("commit.gpgsign", "false"), ("protocol.version", "2")):
                _run(g, "config", key, value, what="git config")
            fetch = ["fetch", "--quiet", "--no-tags"]
            if depth:
                fetch.append(f"--depth={depth}")
            _run(g, *fetch, str(fix.source), fix.parent, what="fetching the parent commit")
            _run(g, "checkout", "--quiet", "-b", "judgekit-task", fix.parent, what="checkout")
            with open(ws.path / ".git" / "info" / "exclude", "a", encoding="utf-8") as fh:
                fh.write("\n".join(ARTIFACT_EXCLUDES) + "\n")
        except BaseException:
            ws.cleanup()
            raise
        return ws

    def freeze_setup(self) -> None:
        """Treat what the setup command left behind as the starting point.

        New untracked paths are excluded from later diffs; changes to tracked files are
        committed, and that commit becomes the diff base.
        """
        status = _run(self.git, "status", "--porcelain", "-z", "--untracked-files=normal",
                      what="git status")
        entries = [e for e in status.split("\0") if e]
        untracked = [e[3:] for e in entries if e.startswith("??")]
        if untracked:
            with open(self.path / ".git" / "info" / "exclude", "a", encoding="utf-8") as fh:
                fh.write("".join(f"/{p}\n" for p in untracked))
        if any(not e.startswith("??") for e in entries):
            _run(self.git, "add", "-A", what="git add")
            _run(self.git, "commit", "--quiet", "--no-verify", "-m", "judgekit: setup",
                 what="git commit")
            self.base = _run(self.git, "rev-parse", "HEAD", what="rev-parse").strip()

    def diff(self) -> str:
        """Everything changed since the base (committed, staged, unstaged, untracked)."""
        _run(self.git, "add", "-A", what="git add")
        return _run(self.git, "diff", "--cached", "--binary", "--full-index", "--no-color",
                    "--no-ext-diff", self.base, what="git diff")

    def apply(self, patch: str, paths: list[str]) -> None:
        """Reset ``paths`` to the base, then apply ``patch`` (which touches only them)."""
        if not patch:
            return
        tracked = set(_run(self.git, "ls-tree", "-r", "--name-only", "-z", self.base, "--",
                           *paths, what="git ls-tree").split("\0"))
        for rel in paths:
            target = self.path / rel
            if rel in tracked:
                _run(self.git, "checkout", self.base, "--", rel, what="git checkout")
            elif target.is_file() or target.is_symlink():
                target.unlink()
        patch_file = self.root / "judgekit-apply.patch"
        patch_file.write_text(patch, encoding="utf-8")
        _run(self.git, "apply", "--binary", "--whitespace=nowarn", str(patch_file),
             what="applying the fix's patch")

    def cleanup(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
