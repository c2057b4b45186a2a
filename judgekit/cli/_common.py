"""Helpers shared by CLI sub-commands."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judgekit.diffs import DEFAULT_INFRA_PATHS
from judgekit.errors import ConfigError

if TYPE_CHECKING:
    from judgekit.evaluate import PipelineOptions
    from judgekit.ingest.adapters.inspect_options import ArmFrom, InspectOptions


def add_scoring_arguments(parser: argparse.ArgumentParser, *, paths: str = "+") -> None:
    """Options every command that scores results accepts (``paths``: how many run paths
    it takes, as argparse's ``nargs``)."""
    parser.add_argument("paths", nargs=paths, metavar="PATH",
                        help="run files (.json, .jsonl) or directories holding them")
    parser.add_argument("--mixed-models", action="store_true",
                        help="compare arms even when different models served them")
    parser.add_argument("--exclude", action="append", default=None, metavar="PREFIX",
                        help="infrastructure path prefix to leave out of both sides "
                             f"(repeatable; default: {' '.join(DEFAULT_INFRA_PATHS)})")
    parser.add_argument("--seed", type=int, default=None, help="seed of the bootstrap intervals")
    parser.add_argument("--similarity", action=argparse.BooleanOptionalAction, default=False,
                        help="also compute the embedding similarity of each agent diff to its "
                             "fix (index extra; loads an embedding model, about 20 s on a CPU; "
                             "off by default)")
    parser.add_argument("--tasks", action="append", default=None, metavar="SUITE",
                        help="suite file or directory of them; fills task fields the run files "
                             "leave out (e.g. descriptions), matched by fix commit (repeatable)")
    parser.add_argument("--transcripts", action="append", default=None, metavar="DIR",
                        help="directory of agents' session files (mini-swe-agent, SWE-agent, "
                             "Claude Code, Codex CLI, OpenHands, aider), matched to results by "
                             "task id: <id>.traj, <id>/<id>.traj.json, ... (repeatable)")
    add_step_switches(parser)
    add_inspect_arguments(parser)


def add_step_switches(parser: argparse.ArgumentParser) -> None:
    """The registered steps' own on/off options (``--no-integrity``), as they declare them."""
    from judgekit.step_registry import STEPS

    for kind in STEPS:
        if kind.switch is not None:
            parser.add_argument(f"--{kind.switch.flag}", action="store_true",
                                help=kind.switch.help)


def steps_off(args: argparse.Namespace) -> frozenset[str]:
    """The registered steps the options switched off, by name."""
    from judgekit.step_registry import STEPS

    return frozenset(kind.name for kind in STEPS if kind.switch is not None
                     and getattr(args, kind.switch.dest, False))


def _arm_from(text: str) -> ArmFrom:
    from judgekit.ingest.adapters.inspect_options import parse_arm_from

    try:
        return parse_arm_from(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_inspect_arguments(parser: argparse.ArgumentParser) -> None:
    """How Inspect AI logs are read: ``--inspect-patch``, ``--inspect-fix``, ``--arm-from``."""
    g = parser.add_argument_group("Inspect AI logs")
    g.add_argument("--inspect-patch", action="append", default=None, metavar="KEY",
                   help="key holding the agent's patch (a unified diff) in the scores' "
                        "metadata, the sample's store or its metadata; dotted keys descend "
                        "(repeatable; looked up before the built-in places)")
    g.add_argument("--inspect-fix", action="append", default=None, metavar="KEY",
                   help="key holding the fix (a unified diff), looked up the same way "
                        "(repeatable; default: the sample's metadata patch)")
    g.add_argument("--arm-from", type=_arm_from, default=None,
                   metavar="model|metadata:KEY|task-arg:NAME",
                   help="what names an eval's arm (default: the eval's metadata arm, else "
                        "the task arguments or solver that differ between evals of a task, "
                        "else the model)")


def inspect_options(args: argparse.Namespace) -> InspectOptions | None:
    """The Inspect options the flags set; ``None`` when none is given."""
    patch = tuple(getattr(args, "inspect_patch", None) or ())
    fix = tuple(getattr(args, "inspect_fix", None) or ())
    arm_from = getattr(args, "arm_from", None)
    if not patch and not fix and arm_from is None:
        return None
    from judgekit.ingest.adapters.inspect_options import InspectOptions

    return InspectOptions(patch_keys=patch, fix_keys=fix, arm_from=arm_from)


def out_dir(text: str) -> Path:
    """``--out DIR``: a directory (new or existing), never an existing file."""
    path = Path(text)
    if path.is_symlink() and not path.exists():
        raise argparse.ArgumentTypeError(f"{text} is a symbolic link to nothing; --out takes "
                                         "a directory")
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a file; --out takes a directory")
    for parent in path.absolute().parents:
        if parent.exists():
            if not parent.is_dir():
                raise argparse.ArgumentTypeError(f"{parent} is a file; --out takes a directory")
            break
    return path


def add_output_arguments(parser: argparse.ArgumentParser) -> None:
    """``--json``, ``--out DIR`` and ``--force``, shared by score, judge and audit."""
    parser.add_argument("--json", action="store_true", help="print the summary as JSON on stdout")
    parser.add_argument("--out", type=out_dir, metavar="DIR",
                        help="write summary.json, report.md, report.html and the JSONL records "
                             "(results, runs, pairwise, audit) into DIR, replacing its earlier "
                             "judgekit files as a set")
    parser.add_argument("--force", action="store_true",
                        help="let --out replace a directory holding another evaluation's "
                             "output (or files that are not judgekit's, which are kept)")


def exclude_from(args: argparse.Namespace) -> tuple[str, ...]:
    return tuple(args.exclude) if args.exclude else DEFAULT_INFRA_PATHS


def pipeline_options(args: argparse.Namespace, *, keep_runs: bool = True
                     ) -> PipelineOptions:
    """How the pipeline loads and scores, read once from the options: the scoring options
    and the readers of other harnesses' files (the SWE-bench logs, the Inspect options)."""
    from judgekit.evaluate import PipelineOptions

    inspect_opts = inspect_options(args)
    adapters = None
    if getattr(args, "swebench_logs", None) is not None or inspect_opts is not None:
        from judgekit.ingest.adapters import make_adapters

        adapters = tuple(make_adapters(swebench_logs=args.swebench_logs, inspect=inspect_opts))
    return PipelineOptions(exclude=tuple(exclude_from(args)), mixed_models=args.mixed_models,
                           seed=args.seed, similarity=bool(args.similarity),
                           tasks=tuple(args.tasks) if args.tasks else None,
                           keep_runs=keep_runs, adapters=adapters,
                           transcripts=tuple(args.transcripts) if getattr(
                               args, "transcripts", None) else None,
                           off=steps_off(args))


def check_similarity(args: argparse.Namespace) -> None:
    """``--similarity`` needs the index extra: without it, say so before any work."""
    if not getattr(args, "similarity", False):
        return
    from judgekit.index import index_available

    if not index_available():
        raise ConfigError("--similarity needs the index extra (torch, sentence-transformers): "
                          "pip install 'judgekit[index]', or leave --similarity out")


def announce_similarity(args: argparse.Namespace) -> None:
    """With ``--similarity``, say before the wait what is being computed and what it costs."""
    if getattr(args, "similarity", False):
        say("similarity: embedding every agent diff and its fix (loads the embedding model "
            "once; about 20 s on a CPU)")


def print_json(data: Any) -> None:
    """``data`` as indented JSON on stdout (``json.dumps(data, indent=2, default=str)``)."""
    from judgekit.jsontext import dumps

    sys.stdout.write(dumps(data) + "\n")


def print_json_chunks(chunks: Iterable[str]) -> None:
    """Indented JSON made piece by piece (e.g. :meth:`EvalSummary.json_chunks`) on stdout,
    as :func:`print_json` writes it whole."""
    write = sys.stdout.write
    for chunk in chunks:
        write(chunk)
    write("\n")


def say(message: str) -> None:
    """One line of progress or status on stderr; ``{option:NAME}`` in it is shown as the
    flag (:mod:`judgekit.cli._flags`). Task ids, arm names and other values from data
    reach the terminal without control sequences."""
    from judgekit.cli._flags import flags
    from judgekit.report.format import printable

    print(printable(flags(message)), file=sys.stderr)
