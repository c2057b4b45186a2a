"""The command lines of the test support processes (not ``judgekit`` sub-commands): the edge
where their options are parsed, as :mod:`judgekit.cli` is judgekit's.

``python -m judgekit.testing`` runs the fake API in a process of its own
(:mod:`judgekit.testing.standalone`); it prints ``{"port": N}`` and serves until killed::

    python -m judgekit.testing --latency 0.05
    python -m judgekit.testing --faults mix --seed 7 --until-stdin-closes

``python -m judgekit.testing.demo_run`` judges N numbered items against whatever API the
environment points at (:mod:`judgekit.testing.demo_run`)::

    ANTHROPIC_BASE_URL=http://127.0.0.1:8080 python -m judgekit.testing.demo_run \\
        --items 50 --cache verdicts.sqlite --out outcomes.jsonl

Example:
    >>> server_parser().parse_args(["--faults", "mix"]).faults
    'mix'
"""

from __future__ import annotations

import argparse
from pathlib import Path

from judgekit.testing.demo_run import run_demo
from judgekit.testing.standalone import StandaloneOptions, serve


def server_parser() -> argparse.ArgumentParser:
    """The options of ``python -m judgekit.testing``."""
    parser = argparse.ArgumentParser(prog="python -m judgekit.testing")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per model call")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--until-stdin-closes", action="store_true",
                        help="stop when standard input closes (for a parent process)")
    parser.add_argument("--faults", choices=("none", "mix"), default="none",
                        help="mix: 15%% 429 with retry-after, 10%% 500, 3%% slow 504, 10%% "
                             "malformed JSON (seeded)")
    parser.add_argument("--status", type=int, default=None,
                        help="answer every model call with this HTTP status (e.g. 401)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache-min-tokens", type=int, default=0,
                        help="the shortest prefix the simulated Anthropic prompt cache keeps "
                             "(the real API: 1024 or more)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """``python -m judgekit.testing``: serve the fake API until stopped."""
    args = server_parser().parse_args(argv)
    return serve(StandaloneOptions(
        latency=args.latency, port=args.port, until_stdin_closes=args.until_stdin_closes,
        faults=args.faults, status=args.status, seed=args.seed,
        cache_min_tokens=args.cache_min_tokens))


def demo_parser() -> argparse.ArgumentParser:
    """The options of ``python -m judgekit.testing.demo_run``."""
    parser = argparse.ArgumentParser(prog="python -m judgekit.testing.demo_run")
    parser.add_argument("--items", type=int, default=20)
    parser.add_argument("--model", default="anthropic:claude-haiku-4-5")
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--concurrency", type=int, default=4)
    return parser


def demo_main(argv: list[str] | None = None) -> int:
    """``python -m judgekit.testing.demo_run``: judge the items, write the outcomes."""
    args = demo_parser().parse_args(argv)
    run_demo(items=args.items, model=args.model, cache=args.cache, out=args.out,
             concurrency=args.concurrency)
    return 0
