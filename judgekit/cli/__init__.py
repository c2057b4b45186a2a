"""The ``judgekit`` command line.

Each sub-command lives in its own module of this package and exposes
``register(subparsers)``, which adds its parser and sets ``func`` to a callable taking the
parsed namespace and returning the exit code.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from judgekit.errors import JudgekitError

#: Sub-command modules, in the order ``--help`` lists them.
COMMANDS: tuple[str, ...] = (
    "score",
    "schema",
    "judge",
    "run",
    "suite",
    "report",
    "audit",
    "rubrics",
    "calibrate",
    "index",
)


def build_parser() -> argparse.ArgumentParser:
    from judgekit import __version__

    parser = argparse.ArgumentParser(
        prog="judgekit",
        description="Trustworthy verdicts for coding-agent evaluation runs.",
    )
    parser.add_argument("--version", action="version", version=f"judgekit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"judgekit.cli.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; return the exit code (also used by the console script)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except JudgekitError as exc:
        print(f"judgekit: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("judgekit: interrupted", file=sys.stderr)
        return 130
