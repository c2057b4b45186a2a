"""A test hook: an encoder that returns zero vectors at once, in place of the model.

With ``JUDGEKIT_INDEX_ENCODER=zeros`` in the environment, :func:`judgekit.index.embed.get_embedder`
returns a :class:`ZeroEmbedder`: no model is loaded and every text gets a zero vector of
the model's dimension, instantly (``zeros:RATE``: at ``RATE`` texts per second, a stand-in
for a slow model, e.g. to interrupt a build while it embeds). It measures everything ``judgekit index`` does around
the model (listing, reading, hashing, chunking, handing texts over, writing). An index
built so is marked (``backend`` ``zeros``), finds nothing useful, and is embedded again
whole by the next build without the hook.

Example:
    >>> ZeroEmbedder("m", 4, 256).encode(["a", "b"]).shape
    (2, 4)
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

#: The environment variable of the hook, and the value that turns it on.
STUB_ENV = "JUDGEKIT_INDEX_ENCODER"
STUB_VALUE = "zeros"
#: What the manifest of an index embedded by the stub says its backend was.
STUB_BACKEND = "zeros"


def stub_requested() -> bool:
    """True when the environment asks for the zero encoder."""
    return stub_rate() is not None


def stub_rate() -> float | None:
    """``None`` without the hook; else the texts per second it pretends (``0.0``: instant)."""
    value = os.environ.get(STUB_ENV, "").strip().lower()
    name, _, rate = value.partition(":")
    if name != STUB_VALUE:
        return None
    try:
        return max(0.0, float(rate)) if rate else 0.0
    except ValueError:
        return 0.0


class ZeroEmbedder:
    """Zero vectors of the model's dimension, with the embedder interface; nothing loaded."""

    backend = STUB_BACKEND
    device = "cpu"
    dtype = "float32"
    implementation = "zeros"
    tokenizer = None

    def __init__(self, name: str, dim: int, max_length: int, rate: float = 0.0) -> None:
        self.name = name
        self.rate = rate
        self.dim = dim
        self.max_length = max_length
        self.batch_size = 1
        self.load_seconds = 0.0
        self.export_seconds = 0.0
        self.probe_min_cosine: float | None = None
        self.fallback: str | None = None
        self.gpu_utilisation: float | None = None
        self.last_threads: int | None = None
        self.tokenize_seconds = 0.0

    @classmethod
    def for_model(cls, name: str, source: str) -> ZeroEmbedder:
        """The stub for a model directory (its dimension and window read from its config)."""
        dim, max_length = 384, 256
        try:
            dim = int(json.loads((Path(source) / "config.json").read_text(encoding="utf-8"))["hidden_size"])
            config = json.loads((Path(source) / "sentence_bert_config.json").read_text(encoding="utf-8"))
            max_length = int(config["max_seq_length"])
        except (OSError, ValueError, KeyError, TypeError):
            pass
        return cls(name, dim, max_length, stub_rate() or 0.0)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if self.rate > 0:
            time.sleep(len(texts) / self.rate)  # Ctrl-C ends the sleep
        return np.zeros((len(texts), self.dim), dtype=np.float32)

    def token_lengths(self, texts: Sequence[str]) -> list[int]:
        return [len(t) // 4 + 1 for t in texts]
