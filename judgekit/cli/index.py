"""``judgekit index DIR --out INDEX`` and ``judgekit search INDEX "QUERY"``.

Example:
    $ judgekit index . --out .judgekit-index --json
    $ judgekit search .judgekit-index "where are retries configured" -k 5 --json
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def register(subparsers: Any) -> None:
    """Add the ``index`` and ``search`` sub-commands."""
    p = subparsers.add_parser(
        "index",
        help="build or refresh a semantic code index of a source tree",
        description="Chunk and embed the source files of DIR into INDEX_DIR (incremental).",
    )
    p.add_argument("dir", metavar="DIR", help="source tree to index")
    p.add_argument("--out", required=True, metavar="INDEX_DIR", help="index directory (created or refreshed)")
    p.add_argument("--model", default=None, help="sentence-transformers model name or path (default: packaged all-MiniLM-L6-v2)")
    p.add_argument("--device", default=None, help="cuda, cuda:N, mps or cpu (default: detect)")
    p.add_argument("--batch-size", type=int, default=None, help="texts per batch at full length (default: per device)")
    p.add_argument("--dtype", default=None, choices=("float32", "float16", "bfloat16"),
                   help="force the numerics (default: fastest that keeps quality)")
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
    s.add_argument("--json", action="store_true", help="print a JSON list of hits")
    s.set_defaults(func=run_search)


def run_index(args: argparse.Namespace) -> int:
    from judgekit.errors import ConfigError
    from judgekit.index import build_index

    if args.batch_size is not None and args.batch_size < 1:
        raise ConfigError("--batch-size must be at least 1")
    stats = build_index(
        args.dir, args.out, model=args.model, device=args.device, batch_size=args.batch_size, dtype=args.dtype,
        progress=_show_progress if sys.stderr.isatty() else None,
    )
    if sys.stderr.isatty():
        print("\r\033[K", end="", file=sys.stderr)
    if args.json:
        print(json.dumps(stats.model_dump()))
    else:
        print(
            f"indexed {stats.files} files, {stats.chunks} chunks ({stats.embedded} embedded) "
            f"in {stats.seconds:.1f}s, {stats.chunks_per_s:.0f} chunks/s on {stats.device} "
            f"({stats.dtype}, {stats.model}) -> {args.out}"
        )
    return 0


def _show_progress(done: int, total: int) -> None:
    print(f"\rembedded {done}/{total} chunks", end="", file=sys.stderr, flush=True)


def run_search(args: argparse.Namespace) -> int:
    from judgekit.index import CodeIndex

    hits = CodeIndex.open(args.index_dir, device=args.device).search(args.query, k=args.k)
    if args.json:
        print(json.dumps([h.model_dump() for h in hits]))
        return 0
    for h in hits:
        first = next((ln.strip() for ln in h.text.splitlines() if ln.strip()), "")
        print(f"{h.score:.3f}  {h.path}:{h.start_line}-{h.end_line}  [{h.kind}]  {first[:80]}")
    return 0
