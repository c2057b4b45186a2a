"""Code context for context arms: a :class:`ContextSource` per retrieval method.

``index`` uses judgekit's semantic index (the ``index`` extra); ``grep`` ranks files by
the identifiers of the bug description they contain, with no extra dependency.

The semantic index is built once per checked-out commit and node, in an index cache
(``$JUDGEKIT_INDEX_DIR``, default ``~/.cache/judgekit/indexes``), under a file lock, and
shared by every later attempt on that commit; each result records the build time and
whether the index was reused.

Example:
    >>> source = get_context_source("grep")
    >>> block = source.context(ws, "session Vary header", max_tokens=2000)  # doctest: +SKIP
    >>> block.files                                                                 # doctest: +SKIP
    ['src/flask/sessions.py']
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import math
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

from judgekit.errors import ConfigError
from judgekit.paths import Escapes


@dataclass(frozen=True)
class ContextBlock:
    """Text to add to the prompt and the repository files it was taken from."""

    text: str
    files: list[str] = field(default_factory=list)
    stats: dict[str, object] = field(default_factory=dict)
    """Facts recorded with the result (for the index: build time, reuse)."""


@runtime_checkable
class ContextSource(Protocol):
    """Retrieves code context for a query from a checked-out workspace."""

    name: str

    def context(self, workspace: Path, query: str, *, max_tokens: int) -> ContextBlock: ...


def default_index_dir() -> Path:
    """``$JUDGEKIT_INDEX_DIR``, else ``~/.cache/judgekit/indexes``."""
    env = os.environ.get("JUDGEKIT_INDEX_DIR")
    return Path(env) if env else Path.home() / ".cache" / "judgekit" / "indexes"


def _head(workspace: Path) -> str:
    out = subprocess.run(["git", "-c", "core.fsmonitor=false", "rev-parse", "HEAD"],
                         cwd=workspace, capture_output=True, text=True, check=False,
                         env={**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null",
                              "GIT_CONFIG_NOSYSTEM": "1"})
    head = out.stdout.strip()
    if out.returncode != 0 or not re.fullmatch(r"[0-9a-f]{40,64}", head):
        raise ConfigError(f"cannot read the checked-out commit of {workspace}")
    return head


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(f"{path}.lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


class IndexSource:
    """Semantic retrieval through :mod:`judgekit.index`, one index per commit."""

    name = "index"

    def __init__(self, cache_dir: str | Path | None = None) -> None:
        try:
            from judgekit import index as _index
        except ImportError as exc:
            raise ConfigError(
                "the context arm needs the semantic index: install judgekit[index] "
                f"or use {{option:context_source}} grep ({exc})"
            ) from None
        if hasattr(_index, "index_available") and not _index.index_available():
            raise ConfigError("the semantic index is not available: install judgekit[index] "
                              "or use {option:context_source} grep")
        self._index = _index
        self.cache_dir = Path(cache_dir) if cache_dir else default_index_dir()

    def __getstate__(self) -> dict[str, Path]:
        return {"cache_dir": self.cache_dir}

    def __setstate__(self, state: dict[str, Path]) -> None:
        IndexSource.__init__(self, state["cache_dir"])

    def ensure(self, workspace: Path) -> tuple[Path, dict[str, object]]:
        """The index of ``workspace``'s commit, built now unless a cached one exists."""
        commit = _head(workspace)
        target = self.cache_dir / commit
        meta_file = target / "judgekit-build.json"
        with _locked(target):
            if meta_file.is_file():
                meta = json.loads(meta_file.read_text(encoding="utf-8"))
                return target, {"context_index_build_s": meta.get("build_s"),
                                "context_index_reused": True, "context_index_commit": commit}
            staging = Path(tempfile.mkdtemp(prefix=".build-", dir=self.cache_dir))
            started = time.monotonic()
            try:
                self._index.build_index(workspace, staging)
                build_s = round(time.monotonic() - started, 3)
                (staging / "judgekit-build.json").write_text(
                    json.dumps({"build_s": build_s, "commit": commit}), encoding="utf-8")
                shutil.rmtree(target, ignore_errors=True)
                staging.rename(target)
            finally:
                shutil.rmtree(staging, ignore_errors=True)
        return target, {"context_index_build_s": build_s, "context_index_reused": False,
                        "context_index_commit": commit}

    def context(self, workspace: Path, query: str, *, max_tokens: int) -> ContextBlock:
        """Query the index of the workspace's commit (built once, then shared)."""
        out_dir, stats = self.ensure(workspace)
        index = self._index.CodeIndex.open(out_dir)
        block = self._index.context_block(index, query, max_tokens=max_tokens)
        return ContextBlock(text=block.text, files=sorted(set(block.files)), stats=stats)


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:[.:]{1,2}[A-Za-z_][A-Za-z0-9_]*)*")
_CODE = re.compile(r"`([^`\n]+)`|\b([A-Za-z_][A-Za-z0-9_.]*)\(")
_STOP = set("""
about above after again also because been before being below between both could does doing
down during each error every from further have having here into itself just more most
other over same should some such than that their them then there these they this those
through under until very want were what when where which while will with would your when
instead only still like without called returns return value values using used uses fix
""".split())
_MAX_FILE_BYTES = 400_000


def keywords(text: str) -> list[str]:
    """Identifier-like words of ``text`` worth searching for (deduplicated, in order)."""
    seen: dict[str, None] = {}
    for code in _CODE.findall(text):  # `name` or name(...): kept even when short
        for token in _WORD.findall(code[0] or code[1]):
            if len(token) >= 2:
                seen.setdefault(token, None)
    for token in _WORD.findall(text):
        for part in {token, *re.split(r"[.:]+", token)}:
            if len(part) >= 4 and part.lower() not in _STOP:
                seen.setdefault(part, None)
    return list(seen)


class GrepSource:
    """Ranks tracked files by the description's identifiers they contain (tf-idf-like)."""

    name = "grep"

    def __init__(self, max_files: int = 5, snippet_lines: int = 6) -> None:
        self.max_files = max_files
        self.snippet_lines = snippet_lines

    def _files(self, workspace: Path) -> list[str]:
        out = subprocess.run(["git", "-c", "core.fsmonitor=false", "ls-files", "-z"],
                             cwd=workspace, capture_output=True, check=False)
        return [p for p in out.stdout.decode("utf-8", "replace").split("\0") if p]

    def context(self, workspace: Path, query: str, *, max_tokens: int) -> ContextBlock:
        words = keywords(query)
        if not words:
            return ContextBlock("")
        texts: dict[str, str] = {}
        hits: dict[str, Counter[str]] = {}
        df: Counter[str] = Counter()
        escapes = Escapes()
        for rel in self._files(workspace):
            path = escapes.check(workspace, rel)  # a tracked link may point out of it
            if path is None:
                continue
            try:
                if path.stat().st_size > _MAX_FILE_BYTES:
                    continue
                data = path.read_bytes()
            except OSError:
                continue
            if b"\0" in data[:4096]:
                continue
            text = data.decode("utf-8", "replace")
            found = Counter({w: text.count(w) for w in words if w in text})
            if found:
                texts[rel], hits[rel] = text, found
                df.update(found.keys())
        n = max(len(texts), 1)
        scores = {rel: sum(math.log(1 + c) * math.log(1 + n / df[w]) for w, c in found.items())
                  for rel, found in hits.items()}
        ranked = sorted(scores, key=lambda r: (-scores[r], r))[: self.max_files]
        budget = max_tokens * 4
        parts: list[str] = []
        used: list[str] = []
        for rel in ranked:
            snippet = self._snippet(texts[rel], hits[rel])
            piece = f"### {rel}\n```\n{snippet}\n```\n"
            if sum(map(len, parts)) + len(piece) > budget:
                break
            parts.append(piece)
            used.append(rel)
        stats: dict[str, object] = {"context_paths_refused": escapes.count} \
            if escapes.count else {}
        return ContextBlock("".join(parts), sorted(used), stats)

    def _snippet(self, text: str, found: Counter[str]) -> str:
        lines = text.splitlines()
        rare = sorted(found, key=lambda w: (found[w], w))
        for word in rare:
            for i, line in enumerate(lines):
                if word in line:
                    lo = max(i - self.snippet_lines, 0)
                    hi = min(i + self.snippet_lines + 1, len(lines))
                    return "\n".join(f"{k + 1:>5}  {lines[k]}" for k in range(lo, hi))
        return ""


def get_context_source(name: str, *, index_dir: str | Path | None = None) -> ContextSource:
    """The context source named ``index`` or ``grep``."""
    if name == "index":
        return IndexSource(index_dir)
    if name == "grep":
        return GrepSource()
    raise ConfigError(f"unknown context source {name!r} (expected 'index' or 'grep')")
