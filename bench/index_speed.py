"""Embedding speed of judgekit's indexer against plain sentence-transformers, same corpus, same run.

The corpus is real code: the chunks judgekit's own chunker makes of the ``judgekit``
package plus installed libraries (``click``, ``requests``, ``pydantic`` ... whichever are
present), capped at ``--chunks``. Both sides embed the same texts:

* baseline: ``SentenceTransformer(model).encode(texts, batch_size=32)`` in fp32;
* judgekit: :class:`judgekit.index.embed.Embedder` (device detection, bf16/fp16 when it keeps
  quality, token-length buckets, measured CPU thread count).

The corpus is processed in slices, alternating baseline and judgekit per slice, so that a
change of machine load hits both sides alike. Reported: chunks/s of each, the ratio, and
the mean (and minimum) cosine of judgekit's vectors to the fp32 ones.

Usage:
    python bench/index_speed.py [--chunks 1200] [--slices 4] [--device cpu] [--json]
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judgekit.index.chunking import chunk_text, embedding_text
from judgekit.index.embed import Embedder, resolve_model
from judgekit.index.files import candidate_files, read_source

LIBRARIES = ("click", "requests", "pydantic", "jinja2", "rich", "httpx", "yaml")


def corpus(limit: int) -> tuple[list[str], list[str]]:
    """Embedding texts of real code chunks, and the names of the trees they come from."""
    roots = [ROOT / "judgekit"]
    for name in LIBRARIES:
        spec = importlib.util.find_spec(name)
        if spec and spec.submodule_search_locations:
            roots.append(Path(next(iter(spec.submodule_search_locations))))
    texts: list[str] = []
    used: list[str] = []
    for root in roots[:4]:
        used.append(root.name)
        for rel in candidate_files(root):
            if not rel.endswith(".py"):
                continue
            text = read_source(root / rel)
            if text:
                texts.extend(embedding_text(c) for c in chunk_text(f"{root.name}/{rel}", text))
    # A deterministic spread over the whole corpus rather than its first files only.
    if len(texts) > limit:
        picks = np.linspace(0, len(texts) - 1, limit).astype(int)
        texts = [texts[i] for i in picks]
    return texts, used


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=1200, help="corpus size in chunks")
    parser.add_argument("--slices", type=int, default=4, help="alternations of baseline and judgekit")
    parser.add_argument("--model", default=None)
    parser.add_argument("--device", default=None)
    parser.add_argument("--batch-size", type=int, default=None, help="judgekit batch size")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    import torch
    from sentence_transformers import SentenceTransformer

    texts, trees = corpus(args.chunks)
    emb = Embedder(args.model, device=args.device, batch_size=args.batch_size)
    baseline = SentenceTransformer(resolve_model(args.model)[1], device=emb.device)
    tokens = emb.token_lengths(texts)
    baseline.encode(texts[:32], batch_size=32)  # warm-up both sides
    emb.encode(texts[:32])

    n = len(texts)
    bounds = np.linspace(0, n, args.slices + 1).astype(int)
    ref = np.zeros((n, emb.dim), dtype=np.float32)
    got = np.zeros((n, emb.dim), dtype=np.float32)
    t_base = t_jk = 0.0
    for lo, hi in itertools.pairwise(bounds.tolist()):
        part = texts[lo:hi]
        began = time.perf_counter()
        ref[lo:hi] = baseline.encode(part, batch_size=32)
        t_base += time.perf_counter() - began
        began = time.perf_counter()
        got[lo:hi] = emb.encode(part)
        t_jk += time.perf_counter() - began
    ref /= np.linalg.norm(ref, axis=1, keepdims=True)
    cos = (ref * got).sum(axis=1)

    result = {
        "corpus": "+".join(trees),
        "chunks": n,
        "mean_tokens": round(float(np.mean(tokens)), 1),
        "device": emb.device,
        "threads": torch.get_num_threads(),
        "model": emb.name,
        "judgekit_dtype": emb.dtype,
        "judgekit_batch_size": emb.batch_size,
        "judgekit_threads_chosen": emb.last_threads,
        "baseline_chunks_per_s": round(n / t_base, 1),
        "judgekit_chunks_per_s": round(n / t_jk, 1),
        "speedup": round(t_base / t_jk, 2),
        "mean_cosine": round(float(cos.mean()), 5),
        "min_cosine": round(float(cos.min()), 5),
        "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
    }
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"corpus: {result['corpus']}, {n} chunks, {result['mean_tokens']} tokens on average")
    gpu = f"  gpu: {result['gpu']}" if result["gpu"] else ""
    print(f"device: {emb.device} ({result['threads']} threads; judgekit settled on {emb.last_threads}){gpu}")
    print(f"baseline  fp32 batch 32            : {result['baseline_chunks_per_s']:8.1f} chunks/s")
    print(f"judgekit  {emb.dtype:<8} batch {emb.batch_size:<3}        : {result['judgekit_chunks_per_s']:8.1f} chunks/s")
    print(f"speedup {result['speedup']:.2f}x, cosine to fp32: mean {result['mean_cosine']:.5f}, min {result['min_cosine']:.5f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
