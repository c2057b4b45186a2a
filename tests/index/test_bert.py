"""judgekit's own BERT encoder: the same vectors as sentence-transformers, without importing it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from judgekit.index.bert import read_layout

from .conftest import needs_index_extra
from .index_helpers import CORPUS

TEXTS = [*CORPUS.values(), "short", "x = 1", "def f():\n    pass\n" * 60, "émoji ✓ and 中文 text"]


def _model_dir() -> Path:
    needs_index_extra()
    from judgekit.index.embed import resolve_model

    return Path(resolve_model(None)[1])


def _copy_model(dst: Path, *, weights: bool = True) -> Path:
    """A copy of the packaged model's small files; the weights linked, not copied."""
    src = _model_dir()
    dst.mkdir()
    for p in src.iterdir():
        if p.is_file() and (weights or p.name not in ("model.safetensors", "pytorch_model.bin")):
            if p.suffix == ".safetensors":
                os.symlink(p, dst / p.name)
            else:
                (dst / p.name).write_bytes(p.read_bytes())
    (dst / "1_Pooling").mkdir()
    (dst / "1_Pooling" / "config.json").write_bytes((src / "1_Pooling" / "config.json").read_bytes())
    return dst


def _plain(model_dir: Path, texts: list[str]) -> np.ndarray:
    from sentence_transformers import SentenceTransformer

    plain = SentenceTransformer(str(model_dir), device="cpu")
    return np.asarray(plain.encode(texts, batch_size=32, normalize_embeddings=True))


@pytest.fixture(scope="module")
def plain_vectors() -> np.ndarray:
    return _plain(_model_dir(), TEXTS)


def test_fp32_vectors_equal_sentence_transformers(plain_vectors: np.ndarray) -> None:
    from judgekit.index.embed import Embedder

    emb = Embedder(None, dtype="float32")
    assert (emb.implementation, emb.why_not_native, emb.dtype) == ("judgekit-bert", "", "float32")
    got = emb.encode(TEXTS)
    assert float(np.abs(got - plain_vectors).max()) < 1e-5
    assert float((got * plain_vectors).sum(axis=1).min()) > 0.99999
    assert (emb.max_length, emb.dim) == (256, 384)


def test_checkpoint_naming_variants_load_to_the_same_vectors(tmp_path: Path, plain_vectors: np.ndarray) -> None:
    """A ``bert.`` prefix, ``gamma``/``beta`` layer norms and a ``pytorch_model.bin`` file."""
    needs_index_extra()
    import torch
    from safetensors.torch import load_file

    from judgekit.index.embed import Embedder

    model = _copy_model(tmp_path / "old-style", weights=False)
    state = load_file(str(_model_dir() / "model.safetensors"))
    renamed = {}
    for name, value in state.items():
        name = name.replace("LayerNorm.weight", "LayerNorm.gamma").replace("LayerNorm.bias", "LayerNorm.beta")
        renamed[f"bert.{name}"] = value
    torch.save(renamed, model / "pytorch_model.bin")
    layout, why = read_layout(model)
    assert layout is not None and layout.weights.name == "pytorch_model.bin", why
    emb = Embedder(str(model), dtype="float32")
    assert emb.implementation == "judgekit-bert"
    assert float(np.abs(emb.encode(TEXTS) - plain_vectors).max()) < 1e-5


def test_a_layout_it_cannot_run_goes_to_sentence_transformers_and_says_why(tmp_path: Path) -> None:
    from judgekit.index.embed import Embedder

    model = _copy_model(tmp_path / "max-pooling")
    pooling = json.loads((model / "1_Pooling" / "config.json").read_text())
    pooling.update(pooling_mode_mean_tokens=False, pooling_mode_max_tokens=True)
    (model / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    emb = Embedder(str(model), dtype="float32")
    assert emb.implementation == "sentence-transformers"
    assert emb.why_not_native == "pooling is neither mean nor CLS token"
    got = emb.encode(TEXTS[:4])
    assert float(np.abs(got - _plain(model, TEXTS[:4])).max()) < 1e-5  # max pooling, as the model says


def test_missing_tensors_are_named(tmp_path: Path) -> None:
    needs_index_extra()
    from safetensors.torch import load_file, save_file

    from judgekit.index.bert import load_encoder

    model = _copy_model(tmp_path / "broken", weights=False)
    state = load_file(str(_model_dir() / "model.safetensors"))
    del state["encoder.layer.3.output.dense.weight"]
    save_file(state, str(model / "model.safetensors"))
    layout, _ = read_layout(model)
    assert layout is not None
    with pytest.raises(ValueError, match=r"lacks 1 tensors, e.g. layers.3.down.weight"):
        load_encoder(layout)


@pytest.mark.parametrize(("change", "reason"), [
    ({"config.json": {"model_type": "roberta"}}, "model_type 'roberta' is not bert"),
    ({"config.json": {"hidden_act": "relu"}}, "activation 'relu' is not a GELU"),
    ({"config.json": {"position_embedding_type": "relative_key"}}, "position embeddings 'relative_key' are not absolute"),
    ({"sentence_bert_config.json": {"do_lower_case": True}}, "the model lower-cases text outside its tokenizer"),
    ({"config_sentence_transformers.json": {"prompts": {"query": "query: "}}}, "the model uses prompts"),
])
def test_layouts_it_does_not_run_are_refused_with_a_reason(
    tmp_path: Path, change: dict[str, dict[str, Any]], reason: str
) -> None:
    model = _copy_model(tmp_path / "model")
    for name, update in change.items():
        path = model / name
        data = json.loads(path.read_text()) if path.is_file() else {}
        path.write_text(json.dumps({**data, **update}))
    assert read_layout(model) == (None, reason)


def test_not_a_sentence_transformers_directory(tmp_path: Path) -> None:
    layout, why = read_layout(tmp_path)
    assert layout is None and why.startswith("no sentence-transformers layout")


def test_the_torch_backend_imports_neither_sentence_transformers_nor_transformers(tmp_path: Path) -> None:
    needs_index_extra()
    code = (
        "import sys\n"
        "from judgekit.index.embed import load_embedder\n"
        "emb = load_embedder(backend='torch')\n"
        "emb.encode(['def f(): return 1'])\n"
        "print(emb.implementation, 'sentence_transformers' in sys.modules, 'transformers' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path,
                         env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert out.stdout.split() == ["judgekit-bert", "False", "False"]
