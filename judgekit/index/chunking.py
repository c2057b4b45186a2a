"""Split source files into chunks: Python by syntax, everything else by line windows.

Python files are parsed with :mod:`ast`: each top-level function is a chunk, each class is
one chunk when it is short and a header chunk plus one chunk per method otherwise; the
module-level code left over is cut into line windows. Definitions longer than
``max_lines`` are windowed too. Other files (and Python that does not parse) become
overlapping line windows.

Example:
    >>> src = "import os\\n\\ndef f():\\n    return 1\\n"
    >>> [(c.kind, c.start_line, c.end_line) for c in chunk_text("m.py", src)]
    [('module', 1, 1), ('function', 3, 4)]
"""

from __future__ import annotations

import ast

from judgekit.index.models import Chunk, ChunkKind

WINDOW_LINES = 40
WINDOW_OVERLAP = 10
MAX_LINES = 80


def chunk_text(
    path: str,
    text: str,
    *,
    window: int = WINDOW_LINES,
    overlap: int = WINDOW_OVERLAP,
    max_lines: int = MAX_LINES,
) -> list[Chunk]:
    """Chunk one file's text; ``path`` is kept on each chunk and picks the strategy."""
    lines = text.splitlines()
    if not lines:
        return []
    if path.endswith((".py", ".pyi")):
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            tree = None
        if tree is not None:
            return _python_chunks(path, lines, tree, window, overlap, max_lines)
    return window_chunks(path, lines, 1, len(lines), "window", window, overlap)


def window_chunks(
    path: str,
    lines: list[str],
    start: int,
    end: int,
    kind: ChunkKind,
    window: int = WINDOW_LINES,
    overlap: int = WINDOW_OVERLAP,
    name: str | None = None,
) -> list[Chunk]:
    """Cut lines ``start..end`` (1-based, inclusive) into windows; blank windows are dropped."""
    step = max(1, window - overlap)
    out: list[Chunk] = []
    lo = start
    while lo <= end:
        hi = min(end, lo + window - 1)
        piece = lines[lo - 1 : hi]
        if any(ln.strip() for ln in piece):
            lo_trim, hi_trim = _trim_blank(piece, lo)
            body = "\n".join(lines[lo_trim - 1 : hi_trim])
            out.append(Chunk(path=path, start_line=lo_trim, end_line=hi_trim, kind=kind, text=body, name=name))
        if hi == end:
            break
        lo += step
    return out


def _trim_blank(piece: list[str], lo: int) -> tuple[int, int]:
    first = next(i for i, ln in enumerate(piece) if ln.strip())
    last = max(i for i, ln in enumerate(piece) if ln.strip())
    return lo + first, lo + last


def _span(node: ast.AST) -> tuple[int, int]:
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])  # type: ignore[attr-defined]
    end = getattr(node, "end_lineno", None) or node.lineno  # type: ignore[attr-defined]
    return start, end


def _definition(
    path: str, lines: list[str], node: ast.AST, kind: ChunkKind, name: str,
    window: int, overlap: int, max_lines: int,
) -> list[Chunk]:
    start, end = _span(node)
    if end - start + 1 <= max_lines:
        body = "\n".join(lines[start - 1 : end])
        return [Chunk(path=path, start_line=start, end_line=end, kind=kind, text=body, name=name)]
    return window_chunks(path, lines, start, end, kind, max(window, max_lines // 2), overlap, name)


def _python_chunks(
    path: str, lines: list[str], tree: ast.Module, window: int, overlap: int, max_lines: int
) -> list[Chunk]:
    defs = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    chunks: list[Chunk] = []
    covered = [False] * (len(lines) + 1)
    for node in tree.body:
        if not isinstance(node, defs):
            continue
        start, end = _span(node)
        for i in range(start, end + 1):
            covered[i] = True
        if isinstance(node, ast.ClassDef):
            chunks.extend(_class_chunks(path, lines, node, window, overlap, max_lines))
        else:
            chunks.extend(_definition(path, lines, node, "function", node.name, window, overlap, max_lines))
    rest: list[Chunk] = []
    i = 1
    while i <= len(lines):
        if covered[i]:
            i += 1
            continue
        j = i
        while j + 1 <= len(lines) and not covered[j + 1]:
            j += 1
        rest.extend(window_chunks(path, lines, i, j, "module", window, overlap))
        i = j + 1
    return sorted(chunks + rest, key=lambda c: (c.start_line, c.end_line))


def _class_chunks(
    path: str, lines: list[str], node: ast.ClassDef, window: int, overlap: int, max_lines: int
) -> list[Chunk]:
    start, end = _span(node)
    if end - start + 1 <= max_lines:
        return _definition(path, lines, node, "class", node.name, window, overlap, max_lines)
    methods = [n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    out: list[Chunk] = []
    covered: set[int] = set()
    for m in methods:
        m_start, m_end = _span(m)
        covered.update(range(m_start, m_end + 1))
        out.extend(_definition(path, lines, m, "method", f"{node.name}.{m.name}", window, overlap, max_lines))
    # The class header and attributes: the class's lines outside its methods.
    header = [i for i in range(start, end + 1) if i not in covered]
    groups: list[tuple[int, int]] = []
    for i in header:
        if groups and groups[-1][1] == i - 1:
            groups[-1] = (groups[-1][0], i)
        else:
            groups.append((i, i))
    for lo, hi in groups:
        out.extend(window_chunks(path, lines, lo, hi, "class", window, overlap, node.name))
    return out


def embedding_text(chunk: Chunk) -> str:
    """The text embedded for a chunk: its path (and name) as a header line, then its code."""
    head = f"{chunk.path} {chunk.name}" if chunk.name else chunk.path
    return f"{head}\n{chunk.text}"
