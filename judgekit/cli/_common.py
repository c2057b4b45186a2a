"""Helpers shared by CLI sub-commands."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from judgekit.diffs import DEFAULT_INFRA_PATHS


def add_scoring_arguments(parser: argparse.ArgumentParser) -> None:
    """Options every command that scores results accepts."""
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="run files (.json, .jsonl) or directories holding them")
    parser.add_argument("--mixed-models", action="store_true",
                        help="compare arms even when different models served them")
    parser.add_argument("--exclude", action="append", default=None, metavar="PREFIX",
                        help="infrastructure path prefix to leave out of both sides "
                             f"(repeatable; default: {' '.join(DEFAULT_INFRA_PATHS)})")
    parser.add_argument("--seed", type=int, default=None, help="seed of the bootstrap intervals")
    parser.add_argument("--no-similarity", action="store_true",
                        help="skip the embedding similarity of diffs (index extra)")
    parser.add_argument("--tasks", action="append", default=None, metavar="SUITE",
                        help="suite file or directory of them; fills task fields the run files "
                             "leave out (e.g. descriptions), matched by fix commit (repeatable)")


def add_output_arguments(parser: argparse.ArgumentParser) -> None:
    """``--json`` and ``--out DIR``, shared by score, judge and audit."""
    parser.add_argument("--json", action="store_true", help="print the summary as JSON on stdout")
    parser.add_argument("--out", type=Path, metavar="DIR",
                        help="write summary.json, report.md, report.html and the JSONL records "
                             "(results, runs, pairwise, audit) into DIR")


def exclude_from(args: argparse.Namespace) -> tuple[str, ...]:
    return tuple(args.exclude) if args.exclude else DEFAULT_INFRA_PATHS


def scoring_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of :func:`judgekit.evaluate` that the scoring options set."""
    return {"exclude": exclude_from(args), "mixed_models": args.mixed_models, "seed": args.seed,
            "similarity": not args.no_similarity, "tasks": args.tasks}


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, default=str)
    sys.stdout.write("\n")


def say(message: str) -> None:
    """One line of progress or status on stderr."""
    print(message, file=sys.stderr)
