"""Shared fixtures of the index tests: one model load per session, a small real corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgekit.index.embed import Embedder, get_embedder

from .index_helpers import CORPUS, init_repo


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """The packaged default model, loaded once for the whole session."""
    return get_embedder()


@pytest.fixture(scope="session")
def corpus_index(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> Path:
    """An index of :data:`CORPUS`, built once per session (read-only)."""
    from judgekit.index import build_index

    base = tmp_path_factory.mktemp("corpus")
    root = init_repo(base / "repo", dict(CORPUS))
    out = base / "index"
    build_index(root, out)
    return out
