"""Semantic code index: chunk a repository, embed the chunks, search them, build context.

The heavy dependencies (torch, sentence-transformers and the packaged model) are imported
only when something is embedded; check :func:`index_available` first.

Example:
    >>> from judgekit.index import build_index, CodeIndex, context_block  # doctest: +SKIP
    >>> build_index("repo", "repo-index")                                   # doctest: +SKIP
    >>> hits = CodeIndex.open("repo-index").search("retry with backoff", k=5)   # doctest: +SKIP
"""

from __future__ import annotations

import importlib.util

from judgekit.index.build import build_index
from judgekit.index.chunking import chunk_text
from judgekit.index.context import changed_ranges, code_around, context_block, estimate_tokens
from judgekit.index.models import Chunk, ContextBlock, Hit, IndexStats
from judgekit.index.search import CodeIndex
from judgekit.index.similarity import diff_similarities, diff_similarity


def index_available() -> bool:
    """True when torch and sentence-transformers can be imported (nothing is imported)."""
    return all(importlib.util.find_spec(name) is not None for name in ("torch", "sentence_transformers"))


__all__ = [
    "Chunk",
    "CodeIndex",
    "ContextBlock",
    "Hit",
    "IndexStats",
    "build_index",
    "changed_ranges",
    "chunk_text",
    "code_around",
    "context_block",
    "diff_similarities",
    "diff_similarity",
    "estimate_tokens",
    "index_available",
]
