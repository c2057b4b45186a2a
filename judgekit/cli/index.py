"""``judgekit index DIR --out INDEX`` and ``judgekit search INDEX "QUERY"``.

Example:
    $ judgekit index . --out .judgekit-index --json
    $ judgekit search .judgekit-index "where are retries configured" -k 5 --json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

#: Loading a model slower than this is announced on stderr.
SAY_LOAD_AFTER_S = 1.0


def register(subparsers: Any) -> None:
    """Add the ``index`` and ``search`` sub-commands."""
    p = subparsers.add_parser(
        "index",
        help="build or refresh a semantic code index of a source tree",
        description="Chunk and embed the source files of DIR into INDEX_DIR (incremental).",
        epilog="Interrupted (Ctrl-C), it keeps the chunks embedded so far; run it again to embed the rest. "
               "Test hook: with JUDGEKIT_INDEX_ENCODER=zeros in the environment no model is loaded and every "
               "chunk gets a zero vector at once (measures everything but the model; the index is then "
               "useless for search and is embedded again whole by the next build without it).",
    )
    p.add_argument("dir", metavar="DIR", help="source tree to index")
    p.add_argument("--out", required=True, metavar="INDEX_DIR", help="index directory (created or refreshed)")
    p.add_argument("--model", default=None, help="sentence-transformers model name or path (default: packaged all-MiniLM-L6-v2)")
    p.add_argument("--device", default=None, help="cuda, cuda:N, mps or cpu (default: detect)")
    p.add_argument("--batch-size", type=int, default=None, help="texts per batch at full length (default: per device)")
    p.add_argument("--dtype", default=None, choices=("float32", "float16", "bfloat16", "int8"),
                   help="force the numerics, converting the model either way; int8 is the onnx backend "
                        "(default: int8 on CPU when onnxruntime is installed, else the fastest that keeps quality)")
    p.add_argument("--backend", default=None, choices=("auto", "onnx", "torch"),
                   help="onnx (int8, onnxruntime) or torch (sentence-transformers); default auto")
    p.add_argument("--workers", type=int, default=None,
                   help="processes that read, hash and chunk files (default: one per core when there are 256 files or more)")
    p.add_argument("--json", action="store_true", help="print the statistics as one JSON object")
    p.set_defaults(func=run_index)

    s = subparsers.add_parser(
        "search",
        help="query a semantic code index",
        description="Print the chunks of INDEX_DIR most similar to QUERY, best first.",
    )
    s.add_argument("index_dir", metavar="INDEX_DIR")
    s.add_argument("query", metavar="QUERY")
    s.add_argument("-k", type=int, default=10, help="number of results (default 10)")
    s.add_argument("--device", default=None, help="device for embedding the query")
    s.add_argument("--backend", default=None, choices=("auto", "onnx", "torch"), help="backend for embedding the query")
    s.add_argument("--json", action="store_true", help="print a JSON list of hits")
    s.set_defaults(func=run_search)


def process_seconds() -> float | None:
    """Wall time since this process started (Linux), or ``None`` where it cannot be read."""
    try:
        with open("/proc/self/stat", encoding="ascii") as fh:
            start_ticks = int(fh.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime", encoding="ascii") as fh:
            uptime = float(fh.read().split()[0])
        return max(0.0, uptime - start_ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return None


def say_load(seconds: float, what: str) -> None:
    """One stderr line when loading a model took longer than :data:`SAY_LOAD_AFTER_S`."""
    if seconds > SAY_LOAD_AFTER_S:
        print(f"loaded {what} in {seconds:.1f}s", file=sys.stderr)


def run_index(args: argparse.Namespace) -> int:
    from judgekit.errors import ConfigError
    from judgekit.index import build_index
    from judgekit.index.build import BuildInterrupted

    if args.batch_size is not None and args.batch_size < 1:
        raise ConfigError("--batch-size must be at least 1")
    if args.workers is not None and args.workers < 1:
        raise ConfigError("--workers must be at least 1")
    began = time.perf_counter()
    try:
        stats = build_index(
            args.dir, args.out, model=args.model, device=args.device, batch_size=args.batch_size, dtype=args.dtype,
            backend=args.backend, workers=args.workers, progress=_show_progress if sys.stderr.isatty() else None,
        )
    except BuildInterrupted as stopped:
        if sys.stderr.isatty():
            print("\r\033[K", end="", file=sys.stderr)
        print(f"interrupted: {stopped.embedded} chunks embedded by this run; {args.out} holds {stopped.stored} "
              "chunks; run the same command again to embed the rest", file=sys.stderr)
        return 130
    if sys.stderr.isatty():
        print("\r\033[K", end="", file=sys.stderr)
    if stats.export_seconds:
        print(f"made the int8 ONNX copy of {stats.model} in {stats.export_seconds:.1f}s (once; cached)", file=sys.stderr)
    say_load(stats.load_seconds, f"embedding model {stats.model} ({stats.backend}, {stats.dtype}, {stats.device})")
    if stats.fallback:
        print(f"onnx backend not used ({stats.fallback}); embedding with torch", file=sys.stderr)
    if stats.scan_fallback:
        print(f"chunking: {stats.scan_fallback}", file=sys.stderr)
    if stats.refused_paths:
        print(f"{stats.refused_paths} file(s) left out: they lead outside {args.dir} "
              "(a link pointing out)", file=sys.stderr)
    # The whole command: from process start (imports included) when it can be read.
    whole = max((process_seconds() if _own_process(args) else None) or (time.perf_counter() - began), stats.seconds)
    own_cpu = time.process_time() if _own_process(args) else None
    workers_cpu = stats.scan_cpu_seconds if stats.workers > 1 else 0.0  # else counted in this process
    stats = stats.model_copy(update={
        "cpu_seconds": round(own_cpu + workers_cpu, 3) if own_cpu is not None else None,
        "seconds": round(whole, 3),
        "chunks_per_s": round(stats.embedded / whole, 1) if stats.embedded and whole > 0 else 0.0,
    })
    if args.json:
        print(json.dumps(stats.model_dump()))
    else:
        print(
            f"indexed {stats.files} files, {stats.chunks} chunks ({stats.embedded} embedded) "
            f"in {stats.seconds:.1f}s: {stats.chunks_per_s:.0f} chunks/s overall, "
            f"{stats.embed_chunks_per_s:.0f} chunks/s embedding on {stats.device} "
            f"({stats.backend}, {stats.dtype}, {stats.model}) -> {args.out}"
        )
    return 0


def _own_process(args: argparse.Namespace) -> bool:
    """True when this process was started to run this very command (not called from Python)."""
    return "index" in sys.argv[1:3] and args.dir in sys.argv and args.out in sys.argv


def _show_progress(done: int, total: int) -> None:
    print(f"\rembedded {done}/{total} chunks", end="", file=sys.stderr, flush=True)


def run_search(args: argparse.Namespace) -> int:
    from judgekit.index import CodeIndex

    index = CodeIndex.open(args.index_dir, device=args.device, backend=args.backend)
    loaded = index.load_model() if args.query.strip() and index.chunks else 0.0
    if loaded:
        emb = index.embedder()
        say_load(loaded, f"embedding model {emb.name} ({emb.backend}, {emb.dtype}, {emb.device})")
    hits = index.search(args.query, k=args.k)
    if args.json:
        print(json.dumps([h.model_dump() for h in hits]))
        return 0
    for h in hits:
        first = next((ln.strip() for ln in h.text.splitlines() if ln.strip()), "")
        print(f"{h.score:.3f}  {h.path}:{h.start_line}-{h.end_line}  [{h.kind}]  {first[:80]}")
    return 0
