"""The pairwise-judging flags of ``judge`` and the options they make.

Example:
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_pairwise_arguments(parser)
    >>> opts = pairwise_options_from_args(parser.parse_args(["--pairs", "a:gold"]))
    >>> opts.pairs, opts.select
    ([('a', 'gold')], 'best')
"""

from __future__ import annotations

import argparse
from pathlib import Path

from judgekit.errors import ConfigError
from judgekit.pairwise.options import PairwiseOptions
from judgekit.pairwise.pairs import parse_pair

__all__ = ["add_pairwise_arguments", "pairwise_options_from_args"]


def add_pairwise_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--pairs``, ``--select``, ``--reference``, ``--repo-root`` and the judge's
    stability sample."""
    g = parser.add_argument_group("pairwise judging")
    g.add_argument("--pairs", action="append", metavar="X:Y", default=None,
                   help="compare arm X with arm Y (repeatable; 'gold' is the ground-truth fix); "
                        "default: every two arms of each task")
    g.add_argument("--select", choices=("best", "all"), default=None,
                   help="with several attempts per arm: best (passing first, then highest F1; "
                        "default; judging an output again: the output's) or all (every "
                        "attempt against every attempt)")
    g.add_argument("--reference", action="store_true",
                   help="show the judge the ground-truth diff as a reference")
    g.add_argument("--repo-root", type=Path, metavar="DIR",
                   help="repository checkout for code around the changed lines")
    g.add_argument("--stability-sample", metavar="N", default="0",
                   help="re-ask N randomly chosen (pair, order) requests to measure how "
                        "stable the judge's answers are (default 0: off)")
    g.add_argument("--jury", choices=("majority", "unanimous"), default=None,
                   help="with --judge repeated: the jury's verdict per dimension is the arm "
                        "more than half of the judges name (majority, default; judging an "
                        "output again: the output's) or the arm all of them name "
                        "(unanimous); anything else is a draw")
    g.add_argument("--stability-repeats", metavar="K", default="3",
                   help="times each sampled request is asked again (default 3; exactly N×K "
                        "extra calls, cached like any other)")


def _count(args: argparse.Namespace, flag: str, low: int, default: int) -> int:
    raw = getattr(args, flag.lstrip("-").replace("-", "_"), None)
    if raw is None:
        return default
    try:
        value = int(raw)
    except (TypeError, ValueError):
        raise ConfigError(f"{flag} {raw!r}: expected a whole number") from None
    if value < low:
        raise ConfigError(f"{flag} {raw}: must be at least {low}")
    return value


def pairwise_options_from_args(args: argparse.Namespace) -> PairwiseOptions:
    """Build :class:`PairwiseOptions` from parsed flags (one-line errors for bad values)."""
    pairs = [parse_pair(p) for p in (getattr(args, "pairs", None) or [])]
    seed = getattr(args, "seed", None)
    return PairwiseOptions(pairs=pairs or None, select=getattr(args, "select", None) or "best",
                           reference=bool(getattr(args, "reference", False)),
                           repo_root=getattr(args, "repo_root", None),
                           stability_sample=_count(args, "--stability-sample", 0, 0),
                           stability_repeats=_count(args, "--stability-repeats", 1, 3),
                           seed=seed if isinstance(seed, int) else 0,
                           jury_rule=getattr(args, "jury", None) or "majority")
