"""The registered steps, in the order ``summary.json``, the output directory and the
closing lines list them. Adding a step adds its descriptor here (and its Summary model to
:class:`judgekit.summary.EvalSummary`'s bases); see ARCHITECTURE.md, "How to add a step".

Example:
    >>> [kind.name for kind in STEPS]
    ['pairwise', 'audit', 'integrity']
"""

from __future__ import annotations

from typing import Any

from judgekit.audit.kind import AUDIT
from judgekit.integrity.kind import INTEGRITY
from judgekit.pairwise.kind import PAIRWISE
from judgekit.steps import StepKind

#: every judging step judgekit knows, in order.
STEPS: tuple[StepKind[Any, Any], ...] = (PAIRWISE, AUDIT, INTEGRITY)


def record_files() -> tuple[str, ...]:
    """The records files of the registered steps."""
    return tuple(k.records_file for k in STEPS if k.records_file is not None)


__all__ = ["STEPS", "record_files"]
