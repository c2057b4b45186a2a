"""Embedding path: quality against plain fp32 sentence-transformers, order, laziness."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

from judgekit.index import index_available
from judgekit.index.embed import Embedder, resolve_model

from .index_helpers import CORPUS

TEXTS = [*CORPUS.values(), "short", "x = 1", "def f():\n    pass\n" * 40]


def test_vectors_match_plain_fp32_encode_within_cosine_099(embedder: Embedder) -> None:
    from sentence_transformers import SentenceTransformer

    plain = SentenceTransformer(resolve_model(None)[1], device=embedder.device)
    ref = plain.encode(TEXTS, batch_size=32, normalize_embeddings=True)
    got = embedder.encode(TEXTS)
    assert got.dtype == np.float32 and got.shape == (len(TEXTS), embedder.dim)
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-4)
    assert float((ref * got).sum(axis=1).min()) >= 0.99


def test_length_buckets_keep_input_order(embedder: Embedder) -> None:
    together = embedder.encode(TEXTS)
    picks = [0, 4, 6]  # a long, a short and the longest text: they land in different buckets
    alone = np.stack([embedder.encode([TEXTS[i]])[0] for i in picks])
    together = together[picks]
    assert float((together * alone).sum(axis=1).min()) > 0.99
    assert embedder.encode([]).shape == (0, embedder.dim)


def test_importing_the_index_package_does_not_import_torch() -> None:
    code = "import sys, judgekit.index as i; i.index_available(); print('torch' in sys.modules, 'sentence_transformers' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]
    assert index_available() is True
