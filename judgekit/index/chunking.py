"""Split source files into chunks: Python by syntax, everything else by line windows.

Python files are parsed with :mod:`ast`: each top-level function is a chunk, each class is
one chunk when it is short and a header chunk plus one chunk per method otherwise; the
module-level code left over is cut into line windows. Definitions longer than
``max_lines`` are windowed too. Other files (and Python that does not parse) become
overlapping line windows.

Given a :class:`TokenFit` (the token count of every line and the model's token window),
sizes follow the model instead of line counts: a definition stays whole when its embedding
text fits the window, and windows grow line by line up to the window, so every line of a
file is embedded somewhere (only a single line longer than the whole window is cut).

The chunker makes plain :class:`Piece` tuples (:func:`chunk_pieces`, what the indexing
path uses: no model object per chunk); :func:`chunk_text` turns them into :class:`Chunk`
models with ``model_construct`` (the chunker checked every value itself).

Example:
    >>> src = "import os\\n\\ndef f():\\n    return 1\\n"
    >>> [(c.kind, c.start_line, c.end_line) for c in chunk_text("m.py", src)]
    [('module', 1, 1), ('function', 3, 4)]
"""

from __future__ import annotations

import ast
import posixpath
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from judgekit.index.models import Chunk, ChunkKind
from judgekit.index.text import WORDS, as_embedded

WINDOW_LINES = 40
WINDOW_OVERLAP = 10
MAX_LINES = 80
#: Longest window, in lines, when windows are sized by tokens.
MAX_WINDOW_LINES = 200


@dataclass(frozen=True)
class TokenFit:
    """What sizing chunks by tokens needs for one file.

    Attributes:
        line_tokens: tokens of each line (0-based list; BERT-style word pieces add up over
            lines, so a run of lines costs the sum of its lines).
        budget: tokens the model embeds per text, special tokens excluded.
        header: tokens of the header line :func:`embedding_text` puts before a chunk, per name.
    """

    line_tokens: list[int]
    budget: int
    header: Callable[[str | None], int]

    def cost(self, start: int, end: int, name: str | None) -> int:
        """Tokens of the embedding text of lines ``start..end`` (1-based, inclusive)."""
        return self.header(name) + sum(self.line_tokens[start - 1 : end])


class Piece(NamedTuple):
    """A chunk as the chunker makes it: the fields of :class:`Chunk` in a plain tuple
    (cheap to make and to send between processes; the chunker made every value)."""

    path: str
    start_line: int
    end_line: int
    kind: ChunkKind
    text: str
    name: str | None


def chunk_text(
    path: str,
    text: str,
    *,
    window: int = WINDOW_LINES,
    overlap: int = WINDOW_OVERLAP,
    max_lines: int = MAX_LINES,
    fit: TokenFit | None = None,
) -> list[Chunk]:
    """Chunk one file's text; ``path`` is kept on each chunk and picks the strategy.

    With ``fit``, chunk sizes come from the model's token window (``window`` and
    ``max_lines`` are then ignored; ``overlap`` is capped at a quarter of each window).
    """
    return _chunks(chunk_pieces(path, text, window=window, overlap=overlap, max_lines=max_lines, fit=fit))


def chunk_pieces(
    path: str,
    text: str,
    *,
    window: int = WINDOW_LINES,
    overlap: int = WINDOW_OVERLAP,
    max_lines: int = MAX_LINES,
    fit: TokenFit | None = None,
) -> list[Piece]:
    """:func:`chunk_text` as plain :class:`Piece` tuples (no model object per chunk)."""
    lines = text.splitlines()
    if not lines:
        return []
    if fit is not None and len(fit.line_tokens) < len(lines):
        raise ValueError(f"{path}: token counts for {len(fit.line_tokens)} lines, text has {len(lines)}")
    if path.endswith((".py", ".pyi")):
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            tree = None
        if tree is not None:
            return _python_chunks(path, lines, tree, window, overlap, max_lines, fit)
    return _window_pieces(path, lines, 1, len(lines), "window", window, overlap, fit=fit)


def _make(path: str, lines: list[str], lo: int, hi: int, kind: ChunkKind, name: str | None) -> Piece:
    return Piece(path, lo, hi, kind, "\n".join(lines[lo - 1 : hi]), name)


def window_chunks(
    path: str,
    lines: list[str],
    start: int,
    end: int,
    kind: ChunkKind,
    window: int = WINDOW_LINES,
    overlap: int = WINDOW_OVERLAP,
    name: str | None = None,
    *,
    fit: TokenFit | None = None,
) -> list[Chunk]:
    """Cut lines ``start..end`` (1-based, inclusive) into windows; blank windows are dropped."""
    return _chunks(_window_pieces(path, lines, start, end, kind, window, overlap, name, fit=fit))


def _chunks(pieces: list[Piece]) -> list[Chunk]:
    return [Chunk.model_construct(path=p.path, start_line=p.start_line, end_line=p.end_line, kind=p.kind,
                                  text=p.text, name=p.name) for p in pieces]


def _window_pieces(
    path: str,
    lines: list[str],
    start: int,
    end: int,
    kind: ChunkKind,
    window: int = WINDOW_LINES,
    overlap: int = WINDOW_OVERLAP,
    name: str | None = None,
    *,
    fit: TokenFit | None = None,
) -> list[Piece]:
    """Cut lines ``start..end`` (1-based, inclusive) into windows; blank windows are dropped."""
    if fit is not None:
        return _token_windows(path, lines, start, end, kind, overlap, name, fit)
    step = max(1, window - overlap)
    out: list[Piece] = []
    lo = start
    while lo <= end:
        hi = min(end, lo + window - 1)
        piece = lines[lo - 1 : hi]
        if any(ln.strip() for ln in piece):
            lo_trim, hi_trim = _trim_blank(piece, lo)
            out.append(_make(path, lines, lo_trim, hi_trim, kind, name))
        if hi == end:
            break
        lo += step
    return out


def _token_windows(
    path: str, lines: list[str], start: int, end: int, kind: ChunkKind, overlap: int, name: str | None, fit: TokenFit
) -> list[Piece]:
    """Greedy windows that fill the token budget; consecutive windows share a few lines."""
    out: list[Piece] = []
    room = fit.budget - fit.header(name)
    lo = start
    while lo <= end:
        while lo <= end and not lines[lo - 1].strip():
            lo += 1  # a window never starts on a blank line
        if lo > end:
            break
        used, hi = fit.line_tokens[lo - 1], lo
        while hi < end and hi - lo + 1 < MAX_WINDOW_LINES and used + fit.line_tokens[hi] <= room:
            used += fit.line_tokens[hi]
            hi += 1
        lo_trim, hi_trim = _trim_blank(lines[lo - 1 : hi], lo)
        out.append(_make(path, lines, lo_trim, hi_trim, kind, name))
        if hi >= end:
            break
        size = hi - lo + 1
        back = min(overlap, size // 4)
        lo = max(lo + 1, hi + 1 - back)
    return out


def _trim_blank(piece: list[str], lo: int) -> tuple[int, int]:
    first = next(i for i, ln in enumerate(piece) if ln.strip())
    last = max(i for i, ln in enumerate(piece) if ln.strip())
    return lo + first, lo + last


def _span(node: ast.AST) -> tuple[int, int]:
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])  # type: ignore[attr-defined]
    end = getattr(node, "end_lineno", None) or node.lineno  # type: ignore[attr-defined]
    return start, end


def _fits(start: int, end: int, name: str | None, max_lines: int, fit: TokenFit | None) -> bool:
    if fit is None:
        return end - start + 1 <= max_lines
    return fit.cost(start, end, name) <= fit.budget


def _definition(
    path: str, lines: list[str], node: ast.AST, kind: ChunkKind, name: str,
    window: int, overlap: int, max_lines: int, fit: TokenFit | None,
) -> list[Piece]:
    start, end = _span(node)
    if _fits(start, end, name, max_lines, fit):
        return [_make(path, lines, start, end, kind, name)]
    return _window_pieces(path, lines, start, end, kind, max(window, max_lines // 2), overlap, name, fit=fit)


def _python_chunks(
    path: str, lines: list[str], tree: ast.Module, window: int, overlap: int, max_lines: int, fit: TokenFit | None
) -> list[Piece]:
    defs = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    chunks: list[Piece] = []
    covered = [False] * (len(lines) + 1)
    for node in tree.body:
        if not isinstance(node, defs):
            continue
        start, end = _span(node)
        for i in range(start, min(end, len(lines)) + 1):
            covered[i] = True
        if isinstance(node, ast.ClassDef):
            chunks.extend(_class_chunks(path, lines, node, window, overlap, max_lines, fit))
        else:
            chunks.extend(_definition(path, lines, node, "function", node.name, window, overlap, max_lines, fit))
    rest: list[Piece] = []
    i = 1
    while i <= len(lines):
        if covered[i]:
            i += 1
            continue
        j = i
        while j + 1 <= len(lines) and not covered[j + 1]:
            j += 1
        rest.extend(_window_pieces(path, lines, i, j, "module", window, overlap, fit=fit))
        i = j + 1
    return sorted(chunks + rest, key=lambda c: (c.start_line, c.end_line))


def _class_chunks(
    path: str, lines: list[str], node: ast.ClassDef, window: int, overlap: int, max_lines: int, fit: TokenFit | None
) -> list[Piece]:
    start, end = _span(node)
    if _fits(start, end, node.name, max_lines, fit):
        return _definition(path, lines, node, "class", node.name, window, overlap, max_lines, fit)
    methods = [n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    out: list[Piece] = []
    covered: set[int] = set()
    for m in methods:
        m_start, m_end = _span(m)
        covered.update(range(m_start, m_end + 1))
        out.extend(_definition(path, lines, m, "method", f"{node.name}.{m.name}", window, overlap, max_lines, fit))
    # The class header and attributes: the class's lines outside its methods.
    header = [i for i in range(start, end + 1) if i not in covered]
    groups: list[tuple[int, int]] = []
    for i in header:
        if groups and groups[-1][1] == i - 1:
            groups[-1] = (groups[-1][0], i)
        else:
            groups.append((i, i))
    for lo, hi in groups:
        out.extend(_window_pieces(path, lines, lo, hi, "class", window, overlap, node.name, fit=fit))
    return out


def embedding_text(chunk: Chunk | Piece, form: str | None = WORDS) -> str:
    """The text embedded for a chunk: its path (and name) as a header line, then its code,
    in the text form ``form`` (:mod:`judgekit.index.text`; default: code read as words)."""
    return as_embedded(header_line(chunk.path, chunk.name) + "\n" + chunk.text, form)


def header_line(path: str, name: str | None) -> str:
    """The first line of a chunk's embedding text: the file's path without its extension
    (in every chunk, and telling a search nothing the code does not), then the name."""
    stem = posixpath.splitext(path)[0]
    return f"{stem} {name}" if name else stem
