"""The int8 ONNX copy of the model: made locally once, cached, checked, found again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from judgekit.index.onnx_cache import FORMAT, INT8_FILE, META_FILE, OnnxExport, cache_dir_for, find_export, fingerprint
from judgekit.index.onnx_export import ensure_int8_export


def _fake_model(tmp_path: Path) -> Path:
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text('{"hidden_size": 8}')
    (model / "model.safetensors").write_bytes(b"weights")
    return model


def _meta(model: Path, folder: Path, cosine: float = 0.99) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / INT8_FILE).write_bytes(b"onnx")
    info = OnnxExport(path="elsewhere", source=str(model), inputs=["input_ids", "attention_mask"], pooling="mean",
                      normalize=True, max_length=16, dim=8, probe_min_cosine=cosine, probe_mean_cosine=cosine,
                      export_seconds=1.0, fingerprint=fingerprint(model), format=FORMAT)
    (folder / META_FILE).write_text(json.dumps(info.__dict__))


def test_the_export_is_found_while_the_weights_are_unchanged(tmp_path: Path) -> None:
    model = _fake_model(tmp_path)
    _meta(model, model / "onnx")
    found = find_export(model)
    assert found is not None and found.path == str(model / "onnx" / INT8_FILE) and found.usable
    (model / "model.safetensors").write_bytes(b"other weights")
    assert find_export(model) is None  # stale: made from other weights


def test_a_low_probe_cosine_makes_the_export_unusable(tmp_path: Path) -> None:
    model = _fake_model(tmp_path)
    _meta(model, model / "onnx", cosine=0.90)
    found = find_export(model)
    assert found is not None and not found.usable


def test_cache_goes_to_the_user_cache_when_the_model_dir_is_read_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = _fake_model(tmp_path)
    assert cache_dir_for(model) == model / "onnx"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if Path(p) == model else real_access(p, mode))
    folder = cache_dir_for(model)
    assert folder.parent == tmp_path / "cache" / "judgekit" / "onnx" and folder.name.startswith("model-")


def test_the_packaged_model_export_is_cached_beside_it_and_reused(embedder: Any) -> None:
    pytest.importorskip("onnxruntime")
    from judgekit.index.embed import resolve_model

    model_dir = Path(resolve_model(None)[1])
    info = find_export(model_dir)
    assert info is not None and info.usable and Path(info.path).is_file()
    assert info.fingerprint == fingerprint(model_dir) and info.probe_min_cosine >= 0.97
    before = Path(info.path).stat().st_mtime_ns
    assert ensure_int8_export(model_dir) == info and Path(info.path).stat().st_mtime_ns == before


def test_searching_needs_no_torch(corpus_index: Path) -> None:
    pytest.importorskip("onnxruntime")
    code = (
        "import sys; sys.modules['torch'] = None; sys.modules['sentence_transformers'] = None\n"
        "from judgekit.cli import main\n"
        f"sys.exit(main(['search', {str(corpus_index)!r}, 'area of a circle', '-k', '1']))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "geometry/circle.py:5-7" in proc.stdout
    lines = proc.stderr.strip().splitlines()
    # the model load is announced when (and only when) it took more than a second
    assert len(lines) <= 1 and all(ln.startswith("loaded embedding model all-MiniLM-L6-v2 (onnx, int8, cpu) in ")
                                   and float(ln.rsplit(" in ", 1)[1].rstrip("s")) > 1.0 for ln in lines)
