"""Embeddings from the cached int8 ONNX model with onnxruntime: no torch at run time.

Loading is a tokenizer file and inference sessions (a fraction of a second), which is
what makes a one-query ``judgekit search`` fast. Texts are tokenised by the Rust
tokenizer one group ahead of the model and run one text at a time, unpadded: dynamic
quantisation scales activations by the range of the whole input, so a text's vector would
otherwise depend on the texts (and the padding) batched with it, and on a CPU unpadded
single texts are also the fastest.

The cores work in parallel on different texts: one single-threaded session per core,
each pulling the next text (longest first) from a shared counter. A text's work is a
whole forward pass on one core, so nothing waits at a per-operator barrier
(``python bench/index_speed.py`` reports the rate).

Example:
    >>> emb = OnnxEmbedder.from_export(find_export(model_dir), model_dir)   # doctest: +SKIP
    >>> emb.encode(["def add(a, b): return a + b"]).shape                   # doctest: +SKIP
    (1, 384)
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from judgekit.errors import ConfigError
from judgekit.index.batching import pipelined
from judgekit.index.onnx_cache import OnnxExport
from judgekit.index.tokens import ModelTokenizer, allow_parallelism

#: Texts tokenised per group (the next group is tokenised while this one runs).
GROUP = 1024


def cpu_count() -> int:
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class OnnxEmbedder:
    """The int8 model in onnxruntime, with the same interface as the torch embedder."""

    backend = "onnx"
    device = "cpu"
    dtype = "int8"
    implementation = "onnxruntime"

    def __init__(self, info: OnnxExport, tokenizer: ModelTokenizer, sessions: list[Any], name: str) -> None:
        self.info = info
        self.name = name
        self.tokenizer = tokenizer
        self._sessions = sessions
        self.dim = info.dim
        self.max_length = info.max_length
        self.batch_size = 1
        self.probe_min_cosine: float | None = info.probe_min_cosine
        self.load_seconds = 0.0
        self.export_seconds = 0.0
        self.fallback: str | None = None
        self.gpu_utilisation: float | None = None
        self.tokenize_seconds = 0.0
        self.last_threads: int | None = None

    @classmethod
    def from_export(cls, info: OnnxExport, model_dir: Path, name: str | None = None) -> OnnxEmbedder:
        """Open the exported model; :class:`ConfigError` when onnxruntime cannot run it."""
        allow_parallelism()
        import onnxruntime as ort

        tokenizer = ModelTokenizer.from_dir(model_dir, info.max_length)
        if tokenizer is None:
            raise ConfigError(f"{model_dir}: no tokenizer.json for the ONNX backend")
        sessions = []
        for _ in range(cpu_count()):
            opts = ort.SessionOptions()
            opts.intra_op_num_threads = 1
            opts.inter_op_num_threads = 1
            opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            opts.log_severity_level = 3
            try:
                sessions.append(ort.InferenceSession(info.path, opts, providers=["CPUExecutionProvider"]))
            except Exception as exc:  # onnxruntime raises its own exception types
                raise ConfigError(f"cannot load {info.path}: {exc}".splitlines()[0]) from exc
        return cls(info, tokenizer, sessions, name or info.source)

    def token_lengths(self, texts: Sequence[str]) -> list[int]:
        """Token counts after truncation to the model's window."""
        return [len(x) for x in self.tokenizer.encode(texts)]

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length float32 embeddings, one row per text, in input order."""
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        sessions = self._sessions if len(texts) > 1 else self._sessions[:1]
        stop = threading.Event()
        with ThreadPoolExecutor(max_workers=len(sessions), thread_name_prefix="judgekit-onnx") as pool:
            for offset, ids in pipelined(list(texts), self._tokenize, GROUP):
                order = sorted(range(len(ids)), key=lambda i: -len(ids[i]))  # longest first: even finish
                counter = itertools.count()  # next() on it is atomic under the GIL

                def work(session: Any, ids: list[list[int]] = ids, order: list[int] = order,
                         counter: Any = counter, offset: int = offset) -> None:
                    while not stop.is_set() and (k := next(counter)) < len(order):
                        row = np.asarray([ids[order[k]]], dtype=np.int64)
                        out[offset + order[k]] = self._run(session, row, np.ones_like(row))[0]

                running = [pool.submit(work, s) for s in sessions]
                try:
                    for done in running:
                        done.result()
                except BaseException:  # Ctrl-C: each session stops after its current text
                    stop.set()
                    raise
        self.last_threads = len(sessions)
        return out

    def _tokenize(self, texts: Sequence[str]) -> list[list[int]]:
        began = time.perf_counter()
        ids = self.tokenizer.encode(texts)
        self.tokenize_seconds += time.perf_counter() - began
        return ids

    def _run(self, session: Any, input_ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        feed = {"input_ids": input_ids, "attention_mask": mask}
        if "token_type_ids" in self.info.inputs:
            feed["token_type_ids"] = np.zeros_like(input_ids)
        hidden = session.run(None, feed)[0]
        if self.info.pooling == "cls":
            vecs = hidden[:, 0, :]
        else:
            weights = mask[:, :, None].astype(np.float32)
            vecs = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        unit: np.ndarray = (vecs / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)
        return unit
