"""Code context for prompts: a token-budgeted block of search hits, and code around lines.

Token counts are estimates (about four characters per token), which is what a budget for
a prompt needs; no tokenizer of any provider is loaded.

Example:
    >>> estimate_tokens("x" * 40)
    10
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from judgekit.errors import InputError
from judgekit.index.models import ContextBlock, Hit
from judgekit.index.search import CodeIndex
from judgekit.paths import contained

CHARS_PER_TOKEN = 4
_LANGS = {
    ".py": "python", ".pyi": "python", ".js": "javascript", ".ts": "typescript", ".tsx": "tsx",
    ".go": "go", ".rs": "rust", ".java": "java", ".c": "c", ".h": "c", ".cpp": "cpp", ".rb": "ruby",
    ".sh": "bash", ".md": "markdown", ".toml": "toml", ".yaml": "yaml", ".yml": "yaml", ".json": "json",
}
HEADER = "## Relevant code from the repository\n\n"


def estimate_tokens(text: str) -> int:
    """A provider-neutral token estimate: characters divided by four, rounded up."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def _snippet(path: str, start: int, end: int, code: str) -> str:
    lang = _LANGS.get(Path(path).suffix.lower(), "")
    return f"### {path}:{start}-{end}\n```{lang}\n{code}\n```\n\n"


def context_block(index: CodeIndex, query: str, *, max_tokens: int = 2000, k: int = 20) -> ContextBlock:
    """The best-matching chunks for ``query`` as markdown, within ``max_tokens``.

    Overlapping hits of one file are merged; a snippet that does not fit whole is cut to
    its first lines when at least a few lines fit. ``files`` lists the files drawn on,
    best first.
    """
    budget = max_tokens - estimate_tokens(HEADER)
    if budget <= 0:
        return ContextBlock(text="", files=[], tokens=0)
    hits = _merge(index.search(query, k=k)) if query.strip() else []
    parts: list[str] = []
    files: list[str] = []
    used = 0
    for hit in hits:
        lines = hit.text.splitlines()
        end = hit.end_line
        while lines:
            piece = _snippet(hit.path, hit.start_line, end, "\n".join(lines))
            cost = estimate_tokens(piece)
            if used + cost <= budget:
                break
            overshoot_lines = max(1, (used + cost - budget) * CHARS_PER_TOKEN // 40)
            lines = lines[: len(lines) - overshoot_lines] if len(lines) > 3 else []
            end = hit.start_line + len(lines) - 1
        if not lines:
            continue
        parts.append(piece)
        used += cost
        if hit.path not in files:
            files.append(hit.path)
    if not parts:
        return ContextBlock(text="", files=[], tokens=0)
    text = HEADER + "".join(parts)
    return ContextBlock(text=text, files=files, tokens=estimate_tokens(text))


def _merge(hits: list[Hit]) -> list[Hit]:
    """Fold hits that overlap an earlier (better) hit of the same file into it."""
    merged: list[Hit] = []
    for hit in hits:
        for i, prev in enumerate(merged):
            if prev.path == hit.path and hit.start_line <= prev.end_line and hit.end_line >= prev.start_line:
                merged[i] = _union(prev, hit)
                break
        else:
            merged.append(hit)
    return merged


def _union(a: Hit, b: Hit) -> Hit:
    lines: dict[int, str] = {}
    for h in (b, a):
        for n, line in enumerate(h.text.splitlines(), h.start_line):
            lines[n] = line
    start, end = min(lines), max(lines)
    text = "\n".join(lines.get(n, "") for n in range(start, end + 1))
    return a.model_copy(update={"start_line": start, "end_line": end, "text": text})


def code_around(
    root: str | Path, path: str, lines: tuple[int, int], *, context: int = 20, numbered: bool = True
) -> str:
    """The lines ``lines`` (1-based, inclusive) of ``root/path`` with ``context`` lines each side.

    Lines are prefixed with their numbers unless ``numbered`` is false.
    """
    target = contained(root, path)
    if target is None:
        raise InputError(path, None, "path leaves the repository root")
    try:
        text = target.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise InputError(target, None, f"cannot read: {exc.strerror or exc}") from None
    all_lines = text.splitlines()
    start, end = sorted(lines)
    lo = max(1, start - context)
    hi = min(len(all_lines), end + context)
    picked = all_lines[lo - 1 : hi]
    if not numbered:
        return "\n".join(picked)
    width = len(str(hi))
    return "\n".join(f"{n:>{width}}  {line}" for n, line in enumerate(picked, lo))


_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


def changed_ranges(diff: str) -> list[tuple[str, tuple[int, int]]]:
    """The ``(path, (first, last))`` line ranges a unified diff touches in the new files.

    Feed them to :func:`code_around` to show a judge the code around a change. Deleted
    files are skipped; a pure deletion maps to the line where the removed text was.

    Example:
        >>> changed_ranges("--- a/x.py\\n+++ b/x.py\\n@@ -3,2 +3,3 @@\\n a\\n+b\\n c\\n")
        [('x.py', (3, 5))]
    """
    out: list[tuple[str, tuple[int, int]]] = []
    path: str | None = None
    previous = ""
    for line in diff.splitlines():
        header = line.startswith("+++ ") and previous.startswith("--- ")
        previous = line
        if header:
            target = line[4:].split("\t")[0].strip()
            path = None if target == "/dev/null" else target.removeprefix("b/")
            continue
        match = _HUNK.match(line)
        if match and path is not None:
            start, count = int(match.group(1)), int(match.group(2) or 1)
            out.append((path, (max(1, start), max(1, start + count - 1))))
    return out
