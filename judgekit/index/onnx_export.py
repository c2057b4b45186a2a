"""A local int8 ONNX copy of a sentence-transformers model, made once and cached.

The transformer of the packaged model is exported to ONNX with torch (opset 17, dynamic
batch and sequence axes); for BERT-style models the graph's attention, GELU and layer
norms are fused into onnxruntime's own operators (``onnxruntime.transformers``); its matrix
multiplications, the fused attention's included, are quantised dynamically to int8 with
one scale per output channel (``onnxruntime.quantization``). The quantised model's
embeddings are checked against the fp32 model on probe texts. The result is
cached (:mod:`.onnx_cache` says where). Nothing is downloaded.

Only the export needs torch; :mod:`.onnx_embed` runs the cached file with onnxruntime.

Example:
    >>> info = ensure_int8_export(model_dir)      # doctest: +SKIP
    >>> info.probe_min_cosine > 0.98              # doctest: +SKIP
    True
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from judgekit.errors import ConfigError
from judgekit.index.onnx_cache import INT8_FILE, META_FILE, OnnxExport, cache_dir_for, find_export, fingerprint
from judgekit.index.onnx_embed import OnnxEmbedder
from judgekit.index.quiet import quiet_loading, quiet_root_logger


def ensure_int8_export(model_dir: Path, cache: Path | None = None, probe: tuple[str, ...] = ()) -> OnnxExport:
    """The cached export, made now when missing or stale (needs torch and onnx)."""
    found = find_export(model_dir, cache)
    if found is not None:
        return found
    return export_int8(model_dir, cache or cache_dir_for(model_dir), probe)


def export_int8(model_dir: Path, folder: Path, probe: tuple[str, ...] = ()) -> OnnxExport:
    """Export, quantise and check; files are written under temporary names, then renamed."""
    began = time.perf_counter()
    torch, st = _load_fp32(model_dir)
    hf, pooling, normalize = _parts(st)
    max_length = int(st.max_seq_length or 512)
    inputs = _input_names(hf)
    folder.mkdir(parents=True, exist_ok=True)
    tag = f"{os.getpid()}-{time.monotonic_ns()}"
    final = _write_int8(torch, hf, inputs, folder, tag)
    texts = list(probe) or ["def f(x):\n    return x + 1", "Fix the pagination of search results."]
    ref = np.asarray(st.encode(texts, batch_size=32, normalize_embeddings=True), dtype=np.float32)
    draft = OnnxExport(
        path=str(final), source=str(model_dir), inputs=inputs, pooling=pooling, normalize=normalize,
        max_length=max_length, dim=int(ref.shape[1]), probe_min_cosine=0.0, probe_mean_cosine=0.0,
        export_seconds=0.0, fingerprint=fingerprint(model_dir),
    )
    got = OnnxEmbedder.from_export(draft, model_dir).encode(texts)
    cos = (ref * got).sum(axis=1)
    info = OnnxExport(**{**asdict(draft), "probe_min_cosine": round(float(cos.min()), 6),
                         "probe_mean_cosine": round(float(cos.mean()), 6),
                         "export_seconds": round(time.perf_counter() - began, 3)})
    meta_tmp = folder / f".meta-{tag}.json"
    meta_tmp.write_text(json.dumps(asdict(info), indent=1) + "\n", encoding="utf-8")
    os.replace(meta_tmp, folder / META_FILE)
    return info


def _load_fp32(model_dir: Path) -> tuple[Any, Any]:
    """torch and the sentence-transformers model in fp32 on the CPU, in eval mode."""
    try:
        import torch
        from onnxruntime.quantization import QuantType, quantize_dynamic  # noqa: F401 - checked here
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise ConfigError(f"exporting the int8 ONNX model needs torch, onnx and onnxruntime: {exc}") from exc

    quiet_loading()
    try:  # attention written out (not a fused torch kernel) is what the graph fuser recognises
        st = SentenceTransformer(str(model_dir), device="cpu", model_kwargs={"attn_implementation": "eager"})
    except (TypeError, ValueError):
        st = SentenceTransformer(str(model_dir), device="cpu")
    st.eval()
    st.to(torch.float32)
    return torch, st


def _input_names(hf: Any) -> list[str]:
    """The graph's inputs: ids and mask, and token types when the model has them."""
    forward_args = hf.forward.__code__.co_varnames
    inputs = ["input_ids", "attention_mask"]
    if "token_type_ids" in forward_args and int(getattr(hf.config, "type_vocab_size", 0) or 0) > 0:
        inputs.append("token_type_ids")
    return inputs


def _write_int8(torch: Any, hf: Any, inputs: list[str], folder: Path, tag: str) -> Path:
    """Export, fuse and quantise into ``folder``; the int8 file, renamed into place."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    fp32 = folder / f".fp32-{tag}.onnx"
    int8 = folder / f".int8-{tag}.onnx"
    try:
        _export(torch, hf, inputs, fp32)
        fused = _fuse(fp32, hf.config)
        with quiet_root_logger():
            quantize_dynamic(
                str(fused or fp32), str(int8), weight_type=QuantType.QInt8, per_channel=True,
                op_types_to_quantize=["MatMul", "Attention"], extra_options={"DefaultTensorType": 1},  # 1: float32
            )
        final = folder / INT8_FILE
        os.replace(int8, final)
    finally:
        for p in (fp32, int8, fp32.with_name(fp32.name + ".data"), _fused_path(fp32)):
            p.unlink(missing_ok=True)
    return final


#: Model types whose graphs onnxruntime's BERT fuser understands.
FUSABLE = frozenset({"bert"})


def _fused_path(fp32: Path) -> Path:
    return fp32.with_name(fp32.stem + "-fused.onnx")


def _fuse(fp32: Path, config: Any) -> Path | None:
    """The graph with fused attention, GELU and layer norms, or ``None`` when it cannot be fused."""
    heads, hidden = getattr(config, "num_attention_heads", None), getattr(config, "hidden_size", None)
    if getattr(config, "model_type", None) not in FUSABLE or not heads or not hidden:
        return None
    try:
        from onnxruntime.transformers import optimizer

        with quiet_root_logger():
            model = optimizer.optimize_model(str(fp32), model_type="bert", num_heads=int(heads),
                                             hidden_size=int(hidden), opt_level=1)
            out = _fused_path(fp32)
            model.save_model_to_file(str(out))
    except Exception:  # noqa: BLE001 - an optional speed-up: the unfused graph is as correct
        return None
    return out


def _parts(st: Any) -> tuple[Any, str, bool]:
    """The transformer, its pooling mode and whether vectors are normalised; only plain stacks."""
    modules = list(st)
    kinds = [type(m).__name__ for m in modules]
    if not kinds or kinds[0] != "Transformer" or len(kinds) < 2 or kinds[1] != "Pooling" or not set(kinds[2:]) <= {"Normalize"}:
        raise ConfigError(f"no ONNX export for a model made of {'+'.join(kinds)}")
    pool = modules[1]
    mode = getattr(pool, "pooling_mode", None) or "mean"
    if isinstance(mode, (tuple, list)):
        mode = mode[0] if len(mode) == 1 else "+".join(mode)
    if mode not in ("mean", "cls"):
        raise ConfigError(f"no ONNX export for pooling mode {mode!r}")
    hf = getattr(modules[0], "auto_model", None) or getattr(modules[0], "model", None)
    if hf is None:
        raise ConfigError("no ONNX export: cannot find the transformer inside the model")
    return hf, str(mode), len(kinds) > 2


def _export(torch: Any, hf: Any, inputs: list[str], path: Path) -> None:
    import warnings

    from torch import nn

    class Body(nn.Module):
        def __init__(self, model: Any) -> None:
            super().__init__()
            self.model = model

        def forward(self, *args: Any) -> Any:
            return self.model(**dict(zip(inputs, args, strict=True))).last_hidden_state

    sample = tuple(torch.ones(2, 16, dtype=torch.long) if n != "token_type_ids" else torch.zeros(2, 16, dtype=torch.long)
                   for n in inputs)
    axes = {n: {0: "batch", 1: "sequence"} for n in [*inputs, "last_hidden_state"]}
    with warnings.catch_warnings(), torch.inference_mode(False), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            Body(hf).eval(), sample, str(path), dynamo=False, input_names=inputs,
            output_names=["last_hidden_state"], dynamic_axes=axes, opset_version=17,
        )
