"""Mirrors and isolated workspaces for commit-revert tasks.

Each remote repository is mirrored once under a cache directory. A workspace is a temp
dir holding:

- ``repo/``: the agent's checkout, a new repository holding only the history up to the
  fix commit's parent (the fix itself is not reachable from it). It has no remote, no
  ``FETCH_HEAD``, no reflogs and no alternates: nothing in it names the source repository.
- ``judgekit.git/``: judgekit's own git directory for the same work tree, outside the
  agent's reach (the sandbox never shows it). Every git command judgekit runs after the
  agent started uses this directory with a hardened configuration (no fsmonitor, hooks,
  external diff, textconv or filter drivers, no user or system configuration), so nothing
  the agent plants in ``repo/.git`` is ever executed by judgekit.
- ``home/`` (the private ``HOME``), ``io/`` (prompt and transcript), ``logs/`` and ``tmp/``
  (``TMPDIR`` when no sandbox gives a private ``/tmp``).

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
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import git

from judgekit.errors import RunnerError
from judgekit.ingest.suites import RepoSource
from judgekit.execute.process import Capture
from judgekit.execute.testfiles import is_test_path
from judgekit.paths import contained

GIT_ENV = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_ASKPASS": "true",
    "SSH_ASKPASS": "true",
    "GIT_SSH_COMMAND": "ssh -o BatchMode=yes",
    "GIT_CONFIG_NOSYSTEM": "1",
}
"""Environment for every git command: never prompt for credentials."""

_NO_HOOKS = ["-c", "core.hooksPath=/dev/null", "-c", "credential.helper="]

HARDENED_ENV = {
    **GIT_ENV,
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_SYSTEM": "/dev/null",
    "GIT_ATTR_NOSYSTEM": "1",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_EXTERNAL_DIFF": "",
    "GIT_PAGER": "cat",
}
"""Environment for judgekit's git commands in a workspace: no user or system config."""

HARDENED = [
    "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false",
    "-c", "core.untrackedCache=false", "-c", "core.attributesFile=/dev/null",
    "-c", "core.sshCommand=false", "-c", "core.pager=cat", "-c", "credential.helper=",
    "-c", "diff.external=", "-c", "safe.directory=*", "-c", "protocol.allow=never",
    "-c", "protocol.file.allow=always", "-c", "core.symlinks=true",
]
"""Command-line settings of every judgekit git command in a workspace."""

_TRUSTED_CONFIG = """[core]
\trepositoryformatversion = 0
\tbare = false
\tfilemode = true
\tlogAllRefUpdates = false
\thooksPath = /dev/null
\tfsmonitor = false
[user]
\tname = judgekit
\temail = judgekit@localhost
[commit]
\tgpgsign = false
[gc]
\tauto = 0
"""

ARTIFACT_EXCLUDES = (
    "/.venv/", "/venv/", "__pycache__/", "*.pyc", "/.pytest_cache/", "/.mypy_cache/",
    "/.ruff_cache/", "/node_modules/", "/target/", "*.egg-info/",
)
"""Build and environment artifacts never counted as part of the agent's change."""

_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


class _Sink:
    """A writable stream that feeds a capture (what git's output is copied into)."""

    def __init__(self, capture: Capture) -> None:
        self.capture = capture

    def write(self, data: bytes) -> int:
        self.capture.feed(data)
        return len(data)


def _git(cwd: str | Path) -> git.Git:
    g = git.Git(str(cwd))
    g.update_environment(**GIT_ENV)
    return g


def _run(g: git.Git, *args: str, what: str, prefix: list[str] | None = None) -> str:
    try:
        return str(g.execute(["git", *(_NO_HOOKS if prefix is None else prefix), *args],
                             strip_newline_in_stdout=False))
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
    objects: Path | None = None
    """The source's object directory (judgekit's own git directory borrows from it)."""

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


def _git_network(args: list[str], cwd: Path, *, what: str,
                 cancel: threading.Event | None) -> None:
    """A git clone/fetch that ends (raising :class:`Cancelled`) as soon as ``cancel`` is set."""
    from judgekit.execute.process import Cancelled

    if cancel is not None and cancel.is_set():
        raise Cancelled("the run was cancelled")
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(["git", *_NO_HOOKS, *args], cwd=cwd, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=err,
                                env={**os.environ, **GIT_ENV}, start_new_session=True)
        while True:
            try:
                proc.wait(timeout=0.2)
                break
            except subprocess.TimeoutExpired:
                if cancel is not None and cancel.is_set():
                    proc.terminate()
                    try:
                        proc.wait(timeout=3)
                    except subprocess.TimeoutExpired:
                        proc.kill()
                        proc.wait()
                    raise Cancelled("the run was cancelled") from None
        if proc.returncode != 0:
            err.seek(0)
            lines = err.read().decode("utf-8", "replace").strip().splitlines()
            raise RunnerError(f"{what} failed: {lines[-1] if lines else proc.returncode}")


class MirrorCache:
    """One bare mirror per remote repository; local repositories are used in place.

    A clone or fetch in progress ends when ``cancel`` is set.
    """

    def __init__(self, root: str | Path | None = None, *,
                 cancel: threading.Event | None = None) -> None:
        self.root = Path(root) if root else default_mirror_dir()
        self.cancel = cancel

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
                    _git_network(["clone", "--mirror", "--quiet", source.url, str(tmp)],
                                 self.root, what=f"cloning {source.url}", cancel=self.cancel)
                    tmp.rename(mirror)
                finally:
                    shutil.rmtree(tmp, ignore_errors=True)
            elif not _has_commit(mirror, commit):
                _git_network(["fetch", "--quiet", "--prune", "origin"], mirror,
                             what=f"fetching {source.url}", cancel=self.cancel)
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
        objects = _run(g, "rev-parse", "--path-format=absolute", "--git-path", "objects",
                       what="rev-parse").strip()
        return FixCommit(source=repo_dir, commit=full, parent=parent, diff=diff, files=files,
                         objects=Path(objects))


def _has_commit(repo_dir: Path, commit: str) -> bool:
    try:
        _git(repo_dir).execute(["git", "cat-file", "-e", f"{commit}^{{commit}}"])
        return True
    except git.GitCommandError:
        return False


_AGENT_CONFIG = (("core.hooksPath", "/dev/null"), ("credential.helper", ""),
                 ("user.name", "judgekit"), ("user.email", "judgekit@localhost"),
                 ("commit.gpgsign", "false"), ("core.logAllRefUpdates", "false"),
                 ("gc.auto", "0"))


class Workspace:
    """A fresh checkout of the fix's parent in its own temp dir (see the module notes)."""

    def __init__(self, root: Path, fix: FixCommit) -> None:
        self.root = root
        self.path = root / "repo"
        self.git_dir = root / "judgekit.git"
        self.home = root / "home"
        self.io = root / "io"
        self.logs = root / "logs"
        self.tmp = root / "tmp"
        self.fix = fix
        self.base = fix.parent
        self.git = _git(self.path)
        self.git.update_environment(**HARDENED_ENV, GIT_DIR=str(self.git_dir),
                                    GIT_WORK_TREE=str(self.path))

    @classmethod
    def create(cls, fix: FixCommit, *, tmp_dir: str | Path | None = None,
               depth: int | None = None) -> Workspace:
        """Check out ``fix.parent`` into a new temp dir; the fix commit is not fetched."""
        root = Path(tempfile.mkdtemp(prefix="judgekit-ws-", dir=tmp_dir))
        ws = cls(root, fix)
        try:
            for d in (ws.path, ws.home, ws.io, ws.logs, ws.tmp):
                d.mkdir()
            ws._init_trusted()
            ws._init_agent_repo(depth)
        except BaseException:
            ws.cleanup()
            raise
        return ws

    def _init_trusted(self) -> None:
        """judgekit's git dir: borrows the source's objects, holds the parent as its base."""
        g = _git(self.root)
        g.update_environment(**HARDENED_ENV)
        _run(g, "init", "--quiet", "--bare", str(self.git_dir), what="git init",
             prefix=HARDENED)
        (self.git_dir / "config").write_text(_TRUSTED_CONFIG, encoding="utf-8")
        shutil.rmtree(self.git_dir / "hooks", ignore_errors=True)
        objects = self.fix.objects or self.fix.source / "objects"
        (self.git_dir / "objects" / "info" / "alternates").write_text(f"{objects}\n")
        self._git("update-ref", "refs/judgekit/base", self.fix.parent, what="update-ref")
        self._git("symbolic-ref", "HEAD", "refs/judgekit/base", what="symbolic-ref")
        self._git("read-tree", self.fix.parent, what="read-tree")
        with open(self.git_dir / "info" / "exclude", "a", encoding="utf-8") as fh:
            fh.write("\n".join(ARTIFACT_EXCLUDES) + "\n")

    def _init_agent_repo(self, depth: int | None) -> None:
        """The agent's repository: parent history only, no trace of where it came from."""
        g = _git(self.path)
        g.update_environment(**HARDENED_ENV)
        _run(g, "init", "--quiet", what="git init", prefix=HARDENED)
        for key, value in _AGENT_CONFIG:
            _run(g, "config", key, value, what="git config", prefix=HARDENED)
        fetch = ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head"]
        if depth:
            fetch.append(f"--depth={depth}")
        _run(g, *fetch, str(self.git_dir), f"{self.fix.parent}:refs/heads/judgekit-task",
             what="fetching the parent commit", prefix=HARDENED)
        _run(g, "checkout", "--quiet", "judgekit-task", what="checkout", prefix=HARDENED)
        dot = self.path / ".git"
        for leftover in ("FETCH_HEAD", "ORIG_HEAD", "logs", "hooks"):
            target = dot / leftover
            if target.is_dir():
                shutil.rmtree(target, ignore_errors=True)
            else:
                target.unlink(missing_ok=True)
        (dot / "objects" / "info" / "alternates").unlink(missing_ok=True)
        with open(dot / "info" / "exclude", "a", encoding="utf-8") as fh:
            fh.write("\n".join(ARTIFACT_EXCLUDES) + "\n")

    def _git(self, *args: str, what: str) -> str:
        """A hardened git command on judgekit's git dir with the workspace as work tree."""
        return _run(self.git, *args, what=what, prefix=HARDENED)

    def freeze_setup(self) -> None:
        """Treat what the setup command left behind as the starting point.

        New untracked paths are excluded from later diffs; changes to tracked files are
        committed, and that commit becomes the diff base.
        """
        status = self._git("status", "--porcelain", "-z", "--untracked-files=normal",
                           what="git status")
        entries = [e for e in status.split("\0") if e]
        untracked = [e[3:] for e in entries if e.startswith("??")]
        if untracked:
            with open(self.git_dir / "info" / "exclude", "a", encoding="utf-8") as fh:
                fh.write("".join(f"/{p}\n" for p in untracked))
        if any(not e.startswith("??") for e in entries):
            self._git("add", "-A", what="git add")
            self._git("commit", "--quiet", "--no-verify", "-m", "judgekit: setup",
                      what="git commit")
            self.base = self._git("rev-parse", "HEAD", what="rev-parse").strip()

    def diff(self) -> str:
        """Everything changed since the base (committed, staged, unstaged, untracked)."""
        self._git("add", "-A", what="git add")
        return self._git("diff", "--cached", "--binary", "--full-index", "--no-color",
                         "--no-ext-diff", "--no-textconv", self.base, what="git diff")

    def diff_capped(self) -> tuple[str, Capture]:
        """:meth:`diff`, read as git writes it into a head-and-tail buffer
        (:class:`~judgekit.execute.process.Capture`): an agent that wrote gigabytes costs no
        more memory than a small change. The text kept, and the capture (its whole size and
        SHA-256, and whether it was cut)."""
        self._git("add", "-A", what="git add")
        capture = Capture()
        try:
            self.git.execute(["git", *HARDENED, "diff", "--cached", "--binary", "--full-index",
                              "--no-color", "--no-ext-diff", "--no-textconv", self.base],
                             output_stream=_Sink(capture))
        except git.GitCommandError as exc:
            detail = (str(exc.stderr or "")).strip().splitlines()
            raise RunnerError(f"git diff failed: {detail[-1] if detail else exc}") from None
        return capture.text(), capture

    def ignored(self) -> list[str]:
        """Untracked paths git ignores, an ignored directory as one ``dir/`` entry."""
        out = self._git("ls-files", "--others", "--ignored", "--exclude-standard", "--directory",
                        "-z", what="git ls-files")
        return [p for p in out.split("\0") if p]

    def apply(self, patch: str, paths: list[str]) -> None:
        """Reset ``paths`` to the base, then apply ``patch`` (which touches only them)."""
        if not patch:
            return
        tracked = set(self._git("ls-tree", "-r", "--name-only", "-z", self.base, "--",
                                *paths, what="git ls-tree").split("\0"))
        for rel in paths:
            target = self.path / rel
            if rel in tracked:
                self._git("checkout", self.base, "--", rel, what="git checkout")
            elif contained(self.path, Path(rel).parent) is None:
                continue  # the agent linked a folder out of the workspace: git apply refuses
            elif target.is_file() or target.is_symlink():
                target.unlink()
        patch_file = self.root / "judgekit-apply.patch"
        patch_file.write_text(patch, encoding="utf-8")
        self._git("apply", "--binary", "--whitespace=nowarn", str(patch_file),
                  what="applying the fix's patch")

    def changed_paths(self) -> list[str]:
        """Paths that differ from the base (as of the last :meth:`diff`)."""
        out = self._git("diff", "--cached", "--name-only", "--no-renames", "-z", self.base,
                        what="git diff --name-only")
        return [p for p in out.split("\0") if p]

    def drop_bytecode(self, paths: list[str]) -> None:
        """Remove Python's cached bytecode of these files.

        Python trusts a ``__pycache__`` entry whose recorded source size and mtime (in whole
        seconds) match, so a same-size edit within the second after an import (a fix
        applied right after a test run) would run the old code.
        """
        for rel in paths:
            if rel.endswith(".py"):
                source = self.path / rel
                if contained(self.path, Path(rel).parent, "__pycache__") is None:
                    continue  # a folder linked out of the workspace: nothing of ours there
                for cached in (source.parent / "__pycache__").glob(f"{source.stem}.*.pyc"):
                    cached.unlink(missing_ok=True)

    def kept_outputs(self) -> list[Path]:
        """The files of judgekit's own that a kept workspace holds: logs and transcript."""
        found = [p for p in sorted(self.logs.iterdir()) if p.is_file()]
        found += [p for p in (self.io / "transcript.txt",) if p.is_file() and not p.is_symlink()]
        return found

    def cleanup(self) -> None:
        """Remove the workspace, including directories the agent made unwritable."""
        opened: set[str] = set()

        def retry(func: object, path: str, _exc: object) -> None:
            try:
                os.chmod(os.path.dirname(path), 0o700)
                if os.path.isdir(path) and not os.path.islink(path):
                    if path not in opened:  # once: a directory that stays put is left
                        opened.add(path)
                        os.chmod(path, 0o700)
                        remove(path)  # what lies deeper may be locked too
                else:
                    os.unlink(path)
            except OSError:
                pass

        def remove(path: str | Path) -> None:
            if sys.version_info >= (3, 12):
                shutil.rmtree(path, onexc=retry)
            else:
                shutil.rmtree(path, onerror=retry)

        interrupted: BaseException | None = None
        for _ in range(3):  # a cancellation arriving mid-removal must not leave half of it
            try:
                remove(self.root)
                break
            except KeyboardInterrupt as exc:
                interrupted = exc
            except FileNotFoundError:
                break
        if interrupted is not None:
            raise interrupted
