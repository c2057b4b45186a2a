"""The audit flags (``--rubric``, ``--samples``, ``--max-input-tokens``, ``--min-runs``) and
the :class:`~judgekit.audit.options.AuditOptions` they give.

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
from pathlib import Path

from judgekit.audit.options import (
    DEFAULT_MAX_INPUT_TOKENS,
    DEFAULT_RUBRIC,
    MIN_MAX_INPUT_TOKENS,
    AuditOptions,
)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _budget(text: str) -> int:
    value = _positive(text)
    if value < MIN_MAX_INPUT_TOKENS:
        raise argparse.ArgumentTypeError(
            f"must be at least {MIN_MAX_INPUT_TOKENS} (the rubric alone needs that)")
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
    g.add_argument("--fix-verified", metavar="FILE", default=None,
                   help="what 'judgekit suite verify --json' wrote: a task whose fix passes "
                        "its tests contradicts a verdict that no agent could succeed")


def _directory(text: str) -> Path:
    path = Path(text)
    if not path.is_dir():
        raise argparse.ArgumentTypeError(
            f"{text} is not a directory" if path.exists() else f"{text} does not exist")
    return path


def add_swebench_logs_argument(parser: argparse.ArgumentParser) -> None:
    """``--swebench-logs DIR``: where the SWE-bench harness wrote ``logs/run_evaluation``."""
    parser.add_argument("--swebench-logs", type=_directory, metavar="DIR", default=None,
                        help="the SWE-bench harness's logs/run_evaluation directory, one "
                             "run's folder in it, or a directory holding it; default: "
                             "logs/run_evaluation beside each predictions file")


def audit_options_from_args(args: argparse.Namespace) -> AuditOptions:
    return AuditOptions(
        rubric=str(getattr(args, "rubric", None) or DEFAULT_RUBRIC),
        samples=getattr(args, "samples", 1) or 1,
        max_input_tokens=getattr(args, "max_input_tokens", None) or DEFAULT_MAX_INPUT_TOKENS,
        min_runs=getattr(args, "min_runs", 2) or 2,
        fix_passes=_fix_passes(getattr(args, "fix_verified", None)),
    )


def _fix_passes(path: str | None) -> dict[str, str]:
    """Task id -> how its fix passes its tests, from ``suite verify --json``'s file."""
    if not path:
        return {}
    from judgekit.execute.verify import TaskChecks
    from judgekit.ingest.validation import validate
    from judgekit.io import read_json

    checks = validate(TaskChecks, read_json(path), path).root
    return {c.task_id: how for c in checks if (how := c.fix_passes()) is not None}


__all__ = ["add_audit_arguments", "add_swebench_logs_argument", "audit_options_from_args"]
