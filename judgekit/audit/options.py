"""Audit settings and the command-line flags that fill them.

Example:
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_audit_arguments(parser)
    >>> opts = audit_options_from_args(parser.parse_args(["--rubric", "swe-bench", "--samples", "3"]))
    >>> (opts.rubric, opts.samples)
    ('swe-bench', 3)
"""

from __future__ import annotations

import argparse

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_RUBRIC = "commit-revert"
DEFAULT_MAX_INPUT_TOKENS = 60_000


class AuditOptions(BaseModel):
    """How failed results are audited.

    Attributes:
        rubric: a rubric name (from the rubrics directory) or a rubric file path.
        samples: judgements asked per result; the majority score is kept with its agreement.
        max_input_tokens: budget of one request (rubric included); long materials are condensed.
        min_runs: independent results that must blame the same defect for a suspected task.
    """

    model_config = ConfigDict(extra="forbid")

    rubric: str = DEFAULT_RUBRIC
    samples: int = Field(1, ge=1)
    max_input_tokens: int = Field(DEFAULT_MAX_INPUT_TOKENS, ge=2_000)
    min_runs: int = Field(2, ge=1)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _budget(text: str) -> int:
    value = int(text)
    if value < 2_000:
        raise argparse.ArgumentTypeError("must be at least 2000 (the rubric alone needs that)")
    return value


def add_audit_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--rubric``, ``--samples``, ``--max-input-tokens`` and ``--min-runs``."""
    g = parser.add_argument_group("audit")
    g.add_argument("--rubric", metavar="NAME|PATH", default=DEFAULT_RUBRIC,
                   help=f"rubric name (see 'judgekit rubrics list') or file (default {DEFAULT_RUBRIC})")
    g.add_argument("--samples", metavar="N", type=_positive, default=1,
                   help="judgements per failed result; the majority is kept (default 1)")
    g.add_argument("--max-input-tokens", metavar="N", type=_budget,
                   default=DEFAULT_MAX_INPUT_TOKENS,
                   help=f"token budget of one audit request; longer materials are condensed "
                        f"(default {DEFAULT_MAX_INPUT_TOKENS})")
    g.add_argument("--min-runs", metavar="N", type=_positive, default=2,
                   help="results that must blame the same defect to list a task as suspected "
                        "(default 2)")


def audit_options_from_args(args: argparse.Namespace) -> AuditOptions:
    return AuditOptions(
        rubric=str(getattr(args, "rubric", None) or DEFAULT_RUBRIC),
        samples=getattr(args, "samples", 1) or 1,
        max_input_tokens=getattr(args, "max_input_tokens", None) or DEFAULT_MAX_INPUT_TOKENS,
        min_runs=getattr(args, "min_runs", 2) or 2,
    )
