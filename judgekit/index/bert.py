"""BERT sentence encoders in plain torch: the torch backend without sentence-transformers.

Importing sentence-transformers costs seconds that a whole ``judgekit index`` run pays
before its first chunk, several times what torch alone costs (``python
bench/index_speed.py --torch-backend`` measures both, and the whole command). Most embedding models in use for code search
are BERT encoders saved by sentence-transformers, so for them the forward pass is done
here, from the saved weights, with torch alone:

* :func:`read_layout` reads a model directory (``modules.json``, ``config.json``,
  ``sentence_bert_config.json``, the pooling config) and says whether this module can run
  it, or why not. Supported: a ``Transformer`` module of ``model_type`` ``bert`` with
  absolute positions and a GELU activation, ``Pooling`` by mean or CLS token, optionally
  ``Normalize``; weights in ``model.safetensors`` or ``pytorch_model.bin``; no prompts and
  no lower-casing done outside the tokenizer. Anything else runs in sentence-transformers.
* :func:`load_encoder` builds the network: embeddings, then per layer one fused QKV
  projection, :func:`torch.nn.functional.scaled_dot_product_attention` (a fused kernel
  where the device has one) under the padding mask, and the post-norm residual
  blocks; then the pooling. Its fp32 embeddings equal sentence-transformers' to float
  rounding (``tests/index/test_bert.py``).

Example:
    >>> layout, why_not = read_layout(model_dir)         # doctest: +SKIP
    >>> encoder = load_encoder(layout, device="cpu")      # doctest: +SKIP
    >>> encoder(input_ids, attention_mask).shape           # doctest: +SKIP
    torch.Size([2, 384])
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Activation names of ``config.json`` and the ``approximate`` argument of torch's GELU.
GELU = {"gelu": "none", "gelu_new": "tanh", "gelu_pytorch_tanh": "tanh"}
#: Weight files read, in order of preference.
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
TRANSFORMER = "sentence_transformers.models.Transformer"
POOLING = "sentence_transformers.models.Pooling"
NORMALIZE = "sentence_transformers.models.Normalize"


@dataclass(frozen=True)
class BertLayout:
    """What :func:`load_encoder` needs to know of a saved model."""

    weights: Path
    hidden: int
    heads: int
    layers: int
    intermediate: int
    vocab: int
    positions: int
    token_types: int
    eps: float
    gelu: str
    pooling: str
    max_seq_length: int


def read_layout(model_dir: str | Path) -> tuple[BertLayout | None, str]:
    """``(layout, "")`` when this module can run the model, else ``(None, why not)``."""
    root = Path(model_dir)
    try:
        modules = _json(root / "modules.json")
        config = _json(root / "config.json")
    except (OSError, ValueError) as exc:
        return None, f"no sentence-transformers layout ({exc.__class__.__name__})"
    if not isinstance(modules, list) or not modules:
        return None, "modules.json lists no modules"
    kinds = [str(m.get("type", "")) for m in modules if isinstance(m, dict)]
    if kinds[:2] != [TRANSFORMER, POOLING] or any(k != NORMALIZE for k in kinds[2:]):
        return None, f"modules {kinds} are not Transformer, Pooling[, Normalize]"
    if modules[0].get("path", "") not in ("", "."):
        return None, "the transformer is not at the model's root"
    if config.get("model_type") != "bert":
        return None, f"model_type {config.get('model_type')!r} is not bert"
    if config.get("position_embedding_type", "absolute") != "absolute":
        return None, f"position embeddings {config.get('position_embedding_type')!r} are not absolute"
    gelu = GELU.get(str(config.get("hidden_act", "")))
    if gelu is None:
        return None, f"activation {config.get('hidden_act')!r} is not a GELU"
    try:
        st_config = _json(root / "sentence_bert_config.json")
        pool = _json(root / str(modules[1].get("path", "1_Pooling")) / "config.json")
        st_model = _json(root / "config_sentence_transformers.json") if (
            root / "config_sentence_transformers.json").is_file() else {}
    except (OSError, ValueError) as exc:
        return None, f"unreadable sentence-transformers config ({exc.__class__.__name__})"
    if st_config.get("do_lower_case"):
        return None, "the model lower-cases text outside its tokenizer"
    if st_model.get("prompts") or st_model.get("default_prompt_name"):
        return None, "the model uses prompts"
    pooling = _pooling(pool)
    if pooling is None:
        return None, "pooling is neither mean nor CLS token"
    weights = next((root / name for name in WEIGHT_FILES if (root / name).is_file()), None)
    if weights is None:
        return None, f"no weights file ({' or '.join(WEIGHT_FILES)})"
    try:
        hidden, heads = int(config["hidden_size"]), int(config["num_attention_heads"])
        positions = int(config["max_position_embeddings"])
        layout = BertLayout(
            weights=weights, hidden=hidden, heads=heads, layers=int(config["num_hidden_layers"]),
            intermediate=int(config["intermediate_size"]), vocab=int(config["vocab_size"]),
            positions=positions, token_types=int(config.get("type_vocab_size", 2)),
            eps=float(config.get("layer_norm_eps", 1e-12)), gelu=gelu, pooling=pooling,
            max_seq_length=min(int(st_config.get("max_seq_length") or positions), positions),
        )
    except (KeyError, TypeError, ValueError) as exc:
        return None, f"config.json lacks a usable {exc}"
    if hidden % heads:
        return None, "hidden size is not a multiple of the heads"
    return layout, ""


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _pooling(pool: dict[str, Any]) -> str | None:
    modes = {k for k, v in pool.items() if k.startswith("pooling_mode") and v}
    if modes == {"pooling_mode_mean_tokens"}:
        return "mean"
    if modes == {"pooling_mode_cls_token"}:
        return "cls"
    return None


def _torch_modules() -> tuple[Any, Any]:
    import torch
    from torch import nn

    return torch, nn


def weight_names(state: dict[str, Any]) -> dict[str, Any]:
    """Checkpoint names made uniform: no ``bert.`` prefix, ``gamma``/``beta`` as weight/bias."""
    out = {}
    for name, value in state.items():
        key = name.removeprefix("bert.")
        if key.endswith("LayerNorm.gamma"):
            key = key.removesuffix("gamma") + "weight"
        elif key.endswith("LayerNorm.beta"):
            key = key.removesuffix("beta") + "bias"
        out[key] = value
    return out


def load_encoder(layout: BertLayout, device: str = "cpu") -> Any:
    """The encoder module with the saved weights, in fp32 on ``device``, in eval mode.

    ``ValueError`` when the weights do not match the layout (missing tensors, wrong shapes).
    """
    torch, _ = _torch_modules()
    state = weight_names(_read_weights(torch, layout.weights))
    module = _module_class()(layout)
    module.load_checkpoint(state)
    return module.to(device).eval()


def _read_weights(torch: Any, path: Path) -> dict[str, Any]:
    if path.suffix == ".safetensors":
        from safetensors.torch import load_file

        return dict(load_file(str(path), device="cpu"))
    return dict(torch.load(str(path), map_location="cpu", weights_only=True))


_CLASS: Any = None


def _module_class() -> Any:
    """The ``nn.Module`` subclass, defined on first use so that importing this file needs no torch."""
    global _CLASS
    if _CLASS is None:
        _CLASS = _define()
    return _CLASS


def _define() -> Any:
    return _encoder_class(_layer_class())


def _layer_class() -> Any:
    """One post-norm transformer layer: fused QKV attention, then the feed-forward block."""
    from torch import nn
    from torch.nn import functional

    class Layer(nn.Module):
        def __init__(self, lay: BertLayout) -> None:
            super().__init__()
            self.qkv = nn.Linear(lay.hidden, 3 * lay.hidden)
            self.attn_out = nn.Linear(lay.hidden, lay.hidden)
            self.attn_norm = nn.LayerNorm(lay.hidden, eps=lay.eps)
            self.up = nn.Linear(lay.hidden, lay.intermediate)
            self.down = nn.Linear(lay.intermediate, lay.hidden)
            self.out_norm = nn.LayerNorm(lay.hidden, eps=lay.eps)
            self.heads, self.gelu = lay.heads, lay.gelu

        def forward(self, x: Any, mask: Any) -> Any:
            rows, width, hidden = x.shape
            qkv = self.qkv(x).view(rows, width, 3, self.heads, hidden // self.heads).permute(2, 0, 3, 1, 4)
            att = functional.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], attn_mask=mask)
            x = self.attn_norm(x + self.attn_out(att.transpose(1, 2).reshape(rows, width, hidden)))
            return self.out_norm(x + self.down(functional.gelu(self.up(x), approximate=self.gelu)))

    return Layer


def _encoder_class(layer: Any) -> Any:
    """Embeddings, the layers (``layer`` each), then the pooling."""
    import torch
    from torch import nn

    class Encoder(nn.Module):
        """Token ids and attention mask in, one pooled (not normalised) vector per row out."""

        def __init__(self, lay: BertLayout) -> None:
            super().__init__()
            self.layout = lay
            self.words = nn.Embedding(lay.vocab, lay.hidden)
            self.positions = nn.Embedding(lay.positions, lay.hidden)
            self.token_types = nn.Embedding(max(lay.token_types, 1), lay.hidden)
            self.norm = nn.LayerNorm(lay.hidden, eps=lay.eps)
            self.layers = nn.ModuleList(layer(lay) for _ in range(lay.layers))

        @property
        def device(self) -> Any:
            return self.words.weight.device

        def forward(self, input_ids: Any, attention_mask: Any) -> Any:
            width = input_ids.shape[1]
            x = self.words(input_ids) + self.positions.weight[:width] + self.token_types.weight[0]
            x = self.norm(x)
            keep = attention_mask.bool()
            mask = keep[:, None, None, :]
            for each in self.layers:
                x = each(x, mask)
            if self.layout.pooling == "cls":
                return x[:, 0]
            weights = keep.unsqueeze(-1).to(x.dtype)
            return (x * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1e-9)

        def load_checkpoint(self, state: dict[str, Any]) -> None:
            """Copy a BERT checkpoint's tensors in; ``ValueError`` naming what is missing."""
            mine = _own_names(state, self.layout.layers, torch.cat)
            missing = sorted(k for k, v in mine.items() if v is None)
            if missing:
                raise ValueError(f"the checkpoint lacks {len(missing)} tensors, e.g. {missing[0]}")
            own = self.state_dict()
            wrong = [k for k, v in mine.items() if tuple(v.shape) != tuple(own[k].shape)]
            if wrong:
                raise ValueError(f"tensor {wrong[0]} has shape {tuple(mine[wrong[0]].shape)}, "
                                 f"config.json says {tuple(own[wrong[0]].shape)}")
            self.load_state_dict({k: v.to(torch.float32) for k, v in mine.items()})

    return Encoder


def _own_names(state: dict[str, Any], layers: int, cat: Any) -> dict[str, Any]:
    """A BERT checkpoint's tensors under the encoder's names (``None`` where missing);
    ``cat`` joins the query, key and value projections into one."""
    mine: dict[str, Any] = {
        "words.weight": state.get("embeddings.word_embeddings.weight"),
        "positions.weight": state.get("embeddings.position_embeddings.weight"),
        "token_types.weight": state.get("embeddings.token_type_embeddings.weight"),
        "norm.weight": state.get("embeddings.LayerNorm.weight"),
        "norm.bias": state.get("embeddings.LayerNorm.bias"),
    }
    for i in range(layers):
        at = f"encoder.layer.{i}."
        for end in ("weight", "bias"):
            parts = [state.get(f"{at}attention.self.{p}.{end}") for p in ("query", "key", "value")]
            mine[f"layers.{i}.qkv.{end}"] = None if any(p is None for p in parts) else cat(parts)
            mine[f"layers.{i}.attn_out.{end}"] = state.get(f"{at}attention.output.dense.{end}")
            mine[f"layers.{i}.attn_norm.{end}"] = state.get(f"{at}attention.output.LayerNorm.{end}")
            mine[f"layers.{i}.up.{end}"] = state.get(f"{at}intermediate.dense.{end}")
            mine[f"layers.{i}.down.{end}"] = state.get(f"{at}output.dense.{end}")
            mine[f"layers.{i}.out_norm.{end}"] = state.get(f"{at}output.LayerNorm.{end}")
    return mine
