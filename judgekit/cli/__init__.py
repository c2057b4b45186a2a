"""The ``judgekit`` command line.

Each sub-command lives in its own module of this package and exposes
``register(subparsers)``, which adds its parser and sets ``func`` to a callable taking the
parsed namespace and returning the exit code.

Usage errors (a bad flag value, a missing argument) are one line on stderr and exit code 2,
like every other error; ``--help`` still shows the whole usage. Values given with
``--agent-env``/``--test-env`` and judgekit's provider keys never appear in those lines, nor
in errors, warnings, log records or tracebacks (:mod:`judgekit.cli._secrets`).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import sys
from collections.abc import Sequence
from typing import NoReturn

from judgekit.errors import JudgekitError, spelling

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
    "review",
    "compare",
    "index",
    "transcript",
    "export",
)

#: Sub-commands whose ``--out DIR`` receives an evaluation's files (checked before any work).
WRITES_EVALUATION: frozenset[str] = frozenset({"score", "judge", "audit"})


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line: ``judgekit CMD: error: ...``, with
    ``did you mean ...?`` for a mistyped command, flag or choice."""

    #: the command line being parsed (what a suggestion for an unknown flag looks at).
    argv: Sequence[str] = ()

    def error(self, message: str) -> NoReturn:
        from judgekit.cli._secrets import clean
        from judgekit.cli._suggest import suggestion

        hint = suggestion(self, message, self.argv)
        said = f"{message}; {hint}" if hint else message
        self.exit(2, clean(f"{self.prog}: error: {said} (see {self.prog} --help)\n"))


def build_parser() -> argparse.ArgumentParser:
    from judgekit import __version__

    parser = Parser(
        prog="judgekit",
        description="Trustworthy verdicts for coding-agent evaluation runs.",
    )
    parser.add_argument("--version", action="version", version=f"judgekit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"judgekit.cli.{name}").register(sub)
    return parser


def write_reference(path: str | None = None) -> str:
    """The command-line reference generated from :func:`build_parser` (``docs/cli.md``),
    written to ``path`` when given."""
    from pathlib import Path

    from judgekit.cli.reference import reference

    text = reference(build_parser())
    if path is not None:
        Path(path).write_text(text, encoding="utf-8")
    return text


def _check_out(args: argparse.Namespace) -> None:
    """Refuse an ``--out`` that would replace what the user may want, before any work."""
    if args.command not in WRITES_EVALUATION or getattr(args, "out", None) is None:
        return
    if getattr(args, "dry_run", False):
        return
    from judgekit.report.outdir import is_judged_output

    if args.command == "judge" and any(is_judged_output(p) for p in args.paths):
        return  # judging an output again: the command checks --out against that output
    from judgekit.cli._output import check_out_dir

    check_out_dir(args.out, force=bool(getattr(args, "force", False)), paths=args.paths,
                  swebench_logs=getattr(args, "swebench_logs", None))


#: allocations between young-generation collections for a command (Python's default: 700).
GC_YOUNG_THRESHOLD = 10_000


def _collect_less_often() -> None:
    """A command builds many short-lived objects per model call and per result; with the
    default thresholds the collector's full passes cost 0.4 ms per call on a 1,400-task
    judge run, a tenth of it after this (``bench/judge_throughput.py`` shows the rate)."""
    young, middle, old = gc.get_threshold()
    if young:  # 0: collection was turned off by whoever embeds the CLI
        gc.set_threshold(max(young, GC_YOUNG_THRESHOLD), middle, old)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; return the exit code (also used by the console script)."""
    from judgekit.cli._secrets import clean, guard

    _collect_less_often()
    argv = list(sys.argv[1:] if argv is None else argv)
    guard(argv)
    parser = build_parser()
    if isinstance(parser, Parser):
        parser.argv = argv
    from judgekit.cli._flags import learn, spell

    args = parser.parse_args(argv)
    learn(parser, getattr(args, "command", None))
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        from judgekit.cli._common import check_similarity

        check_similarity(args)
        _check_out(args)
        with spelling(spell):
            return int(args.func(args) or 0)
    except JudgekitError as exc:
        print(clean(f"judgekit: error: {exc.render(spell)}"), file=sys.stderr)
        return 2
    except BrokenPipeError:
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print(clean(f"judgekit: interrupted{_resumes(args)}"), file=sys.stderr)
        return 130


def _resumes(args: argparse.Namespace) -> str:
    """For a command that asks a judge with the verdict cache on: that the answers received
    so far are kept there, and the same command again resumes from them."""
    if not hasattr(args, "no_cache") or args.no_cache or getattr(args, "dry_run", False):
        return ""
    from judgekit.engine.config import cache_file

    return (f"; the verdicts received so far are kept in the verdict cache "
            f"({cache_file(getattr(args, 'cache', None))}): the same command again resumes "
            "from there, asking only what is left")
