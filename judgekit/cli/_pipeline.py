"""What the ``score``, ``judge`` and ``audit`` commands share: the inputs of the pipeline
(:func:`judgekit.evaluate.run_pipeline`)."""

from __future__ import annotations

import argparse
from typing import Any

from judgekit.cli._common import inspect_options


def inputs_of(args: argparse.Namespace) -> tuple[Any, dict[str, Any]]:
    """What the pipeline loads, and how: the paths, with the readers of other harnesses'
    files the options call for (the SWE-bench logs, the Inspect options)."""
    inspect_opts = inspect_options(args)
    if args.swebench_logs is None and inspect_opts is None:
        return args.paths, {}
    from judgekit.ingest.adapters import make_adapters

    adapters = make_adapters(swebench_logs=args.swebench_logs, inspect=inspect_opts)
    return args.paths, {"adapters": adapters}


__all__ = ["inputs_of"]
