"""Options of pairwise judging and the command-line flags that fill them.

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

from pydantic import BaseModel, ConfigDict

from judgekit.pairwise.pairs import Select, parse_pair


class PairwiseOptions(BaseModel):
    """How pairs are chosen and what the judge is shown.

    Attributes:
        pairs: ``(X, Y)`` arm pairs to compare (``gold`` = the ground-truth fix);
            ``None`` compares every two arms of each task.
        select: ``best`` (one attempt per arm: passing first, then highest F1) or ``all``.
        reference: show the ground-truth diff to the judge as a reference.
        repo_root: a checkout of the task repositories, for code around the changed lines
            (needs the index extra); ``None`` shows no code context.
        max_context_chars: bound on the code context per prompt.
        max_diff_chars: bound on each diff shown; longer diffs keep their start and end.
    """

    model_config = ConfigDict(extra="forbid")

    pairs: list[tuple[str, str]] | None = None
    select: Select = "best"
    reference: bool = False
    repo_root: Path | None = None
    max_context_chars: int = 12000
    max_diff_chars: int = 40_000


def add_pairwise_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--pairs``, ``--select``, ``--reference`` and ``--repo-root``."""
    g = parser.add_argument_group("pairwise judging")
    g.add_argument("--pairs", action="append", metavar="X:Y", default=None,
                   help="compare arm X with arm Y (repeatable; 'gold' is the ground-truth fix); "
                        "default: every two arms of each task")
    g.add_argument("--select", choices=("best", "all"), default="best",
                   help="with several attempts per arm: best (passing first, then highest F1; "
                        "default) or all (every attempt against every attempt)")
    g.add_argument("--reference", action="store_true",
                   help="show the judge the ground-truth diff as a reference")
    g.add_argument("--repo-root", type=Path, metavar="DIR",
                   help="repository checkout for code around the changed lines (index extra)")


def pairwise_options_from_args(args: argparse.Namespace) -> PairwiseOptions:
    """Build :class:`PairwiseOptions` from parsed flags."""
    pairs = [parse_pair(p) for p in (getattr(args, "pairs", None) or [])]
    return PairwiseOptions(pairs=pairs or None, select=getattr(args, "select", "best"),
                           reference=bool(getattr(args, "reference", False)),
                           repo_root=getattr(args, "repo_root", None))
