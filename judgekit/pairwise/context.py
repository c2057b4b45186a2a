"""Code around the changed lines, from a checkout, so the judge can weigh conventions.

``judgekit.index.code_around`` reads the lines around each hunk when the index package is
installed; otherwise they are read here, the same way. ``repo_root`` is either the
repository itself or a directory holding checkouts named after the repositories.

Example:
    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / "m.py").write_text("".join(f"line {i}\\n" for i in range(1, 40)))
    >>> plain_lines(root, "m.py", (20, 20), margin=1).splitlines()
    ['# m.py, lines 19-21', '19 | line 19', '20 | line 20', '21 | line 21']
    >>> "line 21" in code_context(root, "acme/m", [("m.py", (20, 20))], margin=1)
    True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from judgekit.paths import Escapes, contained

Span = tuple[int, int]
CodeAround = Callable[..., str]


def _index_code_around() -> CodeAround | None:
    try:
        from judgekit.index import code_around
    except ImportError:
        return None
    return code_around


def checkout_for(repo_root: Path, repo: str | None,
                 escapes: Escapes | None = None) -> Path | None:
    """``repo_root/<name>`` when it exists for ``repo`` (owner/name or URL), else
    ``repo_root``; ``None`` when the name leads out of ``repo_root`` (``x/..``, a link
    pointing out), counted in ``escapes``."""
    name = (repo or "").rstrip("/").split("/")[-1].removesuffix(".git")
    if not name:
        return Path(repo_root)
    found = (escapes or Escapes()).check(repo_root, name, where=f"repository {repo!r}")
    if found is None:
        return None
    if found != Path(repo_root).resolve() and found.is_dir():
        return found
    return Path(repo_root)


def plain_lines(root: Path, path: str, span: Span, margin: int = 15) -> str:
    """Lines ``span`` of ``root/path`` with ``margin`` lines either side, numbered (nothing
    for a path that leads out of ``root``)."""
    file = contained(root, path)
    if file is None or not file.is_file():
        return ""
    lines = file.read_text(encoding="utf-8", errors="replace").splitlines()
    lo, hi = max(1, span[0] - margin), min(len(lines), span[1] + margin)
    if lo > hi:
        return ""
    body = "\n".join(f"{n} | {lines[n - 1]}" for n in range(lo, hi + 1))
    return f"# {path}, lines {lo}-{hi}\n{body}"


def code_context(repo_root: Path, repo: str | None, ranges: Sequence[tuple[str, Span]], *,
                 max_chars: int = 12000, margin: int = 15,
                 escapes: Escapes | None = None) -> str | None:
    """Context for every ``(path, span)`` in ``ranges``, deduplicated, bounded by
    ``max_chars``. Nothing is read from outside ``repo_root``: a repository name or a path
    that leads out of it is skipped and counted in ``escapes``."""
    escapes = escapes if escapes is not None else Escapes()
    root = checkout_for(Path(repo_root), repo, escapes)
    if root is None:
        return None
    around = _index_code_around()
    seen: set[tuple[str, Span]] = set()
    parts: list[str] = []
    total = 0
    for path, span in ranges:
        if (path, span) in seen:
            continue
        seen.add((path, span))
        if escapes.check(root, path, where=f"repository {repo!r}") is None:
            continue
        text = ""
        if around is not None:
            try:
                text = around(root, path, span, context=margin) or ""
                if text:
                    text = f"# {path}, around lines {span[0]}-{span[1]}\n{text.rstrip()}"
            except Exception:  # the index is optional: fall back to the plain lines
                text = ""
        if not text:
            text = plain_lines(root, path, span, margin)
        if not text or total + len(text) > max_chars:
            continue
        parts.append(text)
        total += len(text) + 1
    return "\n\n".join(parts) or None
