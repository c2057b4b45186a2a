"""Code context for context arms: a :class:`ContextProvider` per retrieval method.

``index`` uses judgekit's semantic index (the ``index`` extra); ``grep`` ranks files by
the identifiers of the bug description they contain, with no extra dependency.

Example:
    >>> provider = get_provider("grep")
    >>> block = provider.context(workspace, "session Vary header", max_tokens=2000)  # doctest: +SKIP
    >>> block.files                                                                 # doctest: +SKIP
    ['src/flask/sessions.py']
"""

from __future__ import annotations

import math
import re
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

from judgekit.errors import ConfigError


@dataclass(frozen=True)
class ContextBlock:
    """Text to add to the prompt and the repository files it was taken from."""

    text: str
    files: list[str] = field(default_factory=list)


@runtime_checkable
class ContextProvider(Protocol):
    """Retrieves code context for a query from a checked-out workspace."""

    name: str

    def context(self, workspace: Path, query: str, *, max_tokens: int) -> ContextBlock: ...


class IndexProvider:
    """Semantic retrieval through :mod:`judgekit.index`."""

    name = "index"

    def __init__(self) -> None:
        try:
            from judgekit import index as _index
        except ImportError as exc:
            raise ConfigError(
                "the context arm needs the semantic index: install judgekit[index] "
                f"or use --context-provider grep ({exc})"
            ) from None
        if hasattr(_index, "index_available") and not _index.index_available():
            raise ConfigError("the semantic index is not available: install judgekit[index] "
                              "or use --context-provider grep")
        self._index = _index

    def context(self, workspace: Path, query: str, *, max_tokens: int) -> ContextBlock:
        """Index the workspace's files (into a sibling dir, outside the diff) and query it."""
        out_dir = workspace.parent / "judgekit-index"
        self._index.build_index(workspace, out_dir)
        index = self._index.CodeIndex.open(out_dir)
        block = self._index.context_block(index, query, max_tokens=max_tokens)
        return ContextBlock(text=block.text, files=sorted(set(block.files)))


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


class GrepProvider:
    """Ranks tracked files by the description's identifiers they contain (tf-idf-like)."""

    name = "grep"

    def __init__(self, max_files: int = 5, snippet_lines: int = 6) -> None:
        self.max_files = max_files
        self.snippet_lines = snippet_lines

    def _files(self, workspace: Path) -> list[str]:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=workspace, capture_output=True,
                             check=False)
        return [p for p in out.stdout.decode("utf-8", "replace").split("\0") if p]

    def context(self, workspace: Path, query: str, *, max_tokens: int) -> ContextBlock:
        words = keywords(query)
        if not words:
            return ContextBlock("")
        texts: dict[str, str] = {}
        hits: dict[str, Counter[str]] = {}
        df: Counter[str] = Counter()
        for rel in self._files(workspace):
            path = workspace / rel
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
        return ContextBlock("".join(parts), sorted(used))

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


def get_provider(name: str) -> ContextProvider:
    """The provider named ``index`` or ``grep``."""
    if name == "index":
        return IndexProvider()
    if name == "grep":
        return GrepProvider()
    raise ConfigError(f"unknown context provider {name!r} (expected 'index' or 'grep')")
