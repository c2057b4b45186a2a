"""Embedding paths: quality against plain fp32 sentence-transformers, order, honesty, laziness."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from .conftest import needs_index_extra
from .index_helpers import CORPUS

TEXTS = [*CORPUS.values(), "short", "x = 1", "def f():\n    pass\n" * 40]


def _plain_fp32(texts: list[str]) -> np.ndarray:
    from sentence_transformers import SentenceTransformer

    from judgekit.index.embed import resolve_model

    plain = SentenceTransformer(resolve_model(None)[1], device="cpu")
    return np.asarray(plain.encode(texts, batch_size=32, normalize_embeddings=True))


@pytest.fixture(scope="module")
def reference() -> np.ndarray:
    needs_index_extra()
    return _plain_fp32(TEXTS)


def test_default_embedder_on_cpu_is_int8_onnx_close_to_fp32(embedder: Any, reference: np.ndarray) -> None:
    pytest.importorskip("onnxruntime")
    assert (embedder.backend, embedder.dtype, embedder.device, embedder.fallback) == ("onnx", "int8", "cpu", None)
    got = embedder.encode(TEXTS)
    assert got.dtype == np.float32 and got.shape == (len(TEXTS), embedder.dim)
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-4)
    assert float((reference * got).sum(axis=1).min()) >= 0.97
    assert embedder.probe_min_cosine >= 0.97


def test_torch_path_matches_plain_fp32_within_cosine_099(torch_embedder: Any, reference: np.ndarray) -> None:
    got = torch_embedder.encode(TEXTS)
    assert torch_embedder.backend == "torch"
    assert float((reference * got).sum(axis=1).min()) >= 0.99
    assert torch_embedder.gpu_utilisation is None  # measured on CUDA only


@pytest.mark.parametrize("which", ["embedder", "torch_embedder"])
def test_token_budget_batches_keep_input_order(which: str, request: pytest.FixtureRequest) -> None:
    emb = request.getfixturevalue(which)
    together = emb.encode(TEXTS)
    picks = [0, 4, 6]  # a long, a short and the longest text: they land in different batches
    alone = np.stack([emb.encode([TEXTS[i]])[0] for i in picks])
    assert float((together[picks] * alone).sum(axis=1).min()) > 0.99
    assert emb.encode([]).shape == (0, emb.dim)


def test_groups_are_tokenised_ahead_and_give_the_same_vectors(torch_embedder: Any) -> None:
    whole = torch_embedder.encode(TEXTS)
    group = torch_embedder.group
    try:
        torch_embedder.group = 2  # four groups: each tokenised while the one before runs
        grouped = torch_embedder.encode(TEXTS)
    finally:
        torch_embedder.group = group
    assert float((whole * grouped).sum(axis=1).min()) > 0.999


def test_a_stream_of_groups_gives_each_group_its_vectors_in_order(torch_embedder: Any) -> None:
    """The build's path: one stream over many groups, keyed, each group's rows in its order."""
    whole = torch_embedder.encode(TEXTS)
    cuts = [(0, 3), (3, 4), (4, len(TEXTS))]
    got = list(torch_embedder.encode_stream((lo, TEXTS[lo:hi]) for lo, hi in cuts))
    assert [key for key, _ in got] == [lo for lo, _ in cuts]
    stacked = np.concatenate([vecs for _, vecs in got])
    assert float((whole * stacked).sum(axis=1).min()) > 0.9999


def test_reported_dtype_is_the_dtype_the_weights_run_in(tmp_path: Path) -> None:
    needs_index_extra()
    import torch
    from sentence_transformers import SentenceTransformer

    from judgekit.index.embed import Embedder, model_dtype, resolve_model

    half = tmp_path / "half-model"
    SentenceTransformer(resolve_model(None)[1], device="cpu").half().save(str(half))
    as_fp32 = Embedder(str(half), dtype="float32")
    assert as_fp32.dtype == model_dtype(as_fp32._st) == "float32"  # converted up, not left in fp16
    as_bf16 = Embedder(str(half), dtype="bfloat16")
    assert as_bf16.dtype == "bfloat16" == str(next(as_bf16._st.parameters()).dtype).removeprefix("torch.")
    # the precision check compares with a true fp32 copy of the weights, so bf16 scores below 1
    assert as_bf16.probe_min_cosine is not None and 0.95 <= as_bf16.probe_min_cosine < 1.0
    assert next(as_fp32._st.parameters()).dtype == torch.float32


def test_missing_onnxruntime_falls_back_to_torch_counted_and_said(monkeypatch: pytest.MonkeyPatch) -> None:
    needs_index_extra()
    from judgekit.index.embed import FALLBACKS, load_embedder

    before = FALLBACKS["onnxruntime is not installed"]
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # as if the package were not installed
    emb = load_embedder()
    assert (emb.backend, emb.fallback) == ("torch", "onnxruntime is not installed")
    assert FALLBACKS["onnxruntime is not installed"] == before + 1


def test_unknown_backend_or_dtype_is_a_config_error() -> None:
    from judgekit.errors import ConfigError
    from judgekit.index.embed import load_embedder

    with pytest.raises(ConfigError, match="unknown backend"):
        load_embedder(backend="tpu")
    with pytest.raises(ConfigError, match="unknown dtype"):
        load_embedder(dtype="int4")


def test_importing_the_index_package_imports_no_model_runtime() -> None:
    code = ("import sys, judgekit.index as i; i.index_available(); "
            "print(*(m in sys.modules for m in ('torch', 'sentence_transformers', 'onnxruntime', 'tokenizers')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False"] * 4


def test_code_around_works_without_torch(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("a = 1\nb = 2\nc = 3\n")
    code = (
        "import sys; sys.modules['torch'] = None; sys.modules['sentence_transformers'] = None\n"
        "from judgekit.index import code_around\n"
        f"print(code_around({str(tmp_path)!r}, 'm.py', (2, 2), context=1, numbered=False))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["a = 1", "b = 2", "c = 3"]


def test_onnx_vectors_do_not_depend_on_neighbours_or_on_which_core_ran_them(embedder: Any) -> None:
    """Each text is one unpadded forward pass on one core's session, in whatever order the
    cores take them: the same text gets the same vector in any company."""
    pytest.importorskip("onnxruntime")
    forward = embedder.encode(TEXTS)
    backward = embedder.encode(TEXTS[::-1])[::-1]
    alone = np.stack([embedder.encode([t])[0] for t in TEXTS])
    assert np.allclose(forward, backward, atol=1e-6) and np.allclose(forward, alone, atol=1e-6)
