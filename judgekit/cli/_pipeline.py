"""What the ``score``, ``judge`` and ``audit`` commands share: the inputs of the pipeline
(:func:`judgekit.evaluate.run_pipeline`) and the lines that tell how its calls went."""

from __future__ import annotations

import argparse
from typing import Any

from judgekit.cli._common import inspect_options, say


def inputs_of(args: argparse.Namespace) -> tuple[Any, dict[str, Any]]:
    """What the pipeline loads, and how: the paths, with the readers of other harnesses'
    files the options call for (the SWE-bench logs, the Inspect options)."""
    inspect_opts = inspect_options(args)
    if args.swebench_logs is None and inspect_opts is None:
        return args.paths, {}
    from judgekit.ingest.adapters import make_adapters

    adapters = make_adapters(swebench_logs=args.swebench_logs, inspect=inspect_opts)
    return args.paths, {"adapters": adapters}


def report_errors(step: Any | None) -> int:
    """One stderr line when audit calls ended in error; exit 1 when every audit did.
    ``step`` is the audit step's result, if it ran."""
    audit = step.summary().audit if step is not None else None
    if audit is None or not audit.n_error:
        return 0
    reason = next((r.reason for r in step.records if r.state == "error" and r.reason),
                  "unknown")
    say(f"audit: {audit.n_error} of {audit.n_failed} results ended in error "
        f"(first: {reason})")
    return 1 if audit.n_error == audit.n_failed else 0


__all__ = ["inputs_of", "report_errors"]
