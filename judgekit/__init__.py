"""judgekit: trustworthy verdicts for coding-agent evaluation runs.

Example:
    >>> import judgekit
    >>> judgekit.example_path().name                                  # the bundled runs
    'bobbin'
    >>> result = judgekit.evaluate([judgekit.example_path()])         # doctest: +SKIP
    >>> summary = judgekit.score(judgekit.load_runs("examples/bobbin"))  # doctest: +SKIP
    >>> frame = judgekit.to_dataframe(result)                         # doctest: +SKIP
    >>> judgekit.write_reports(result, "out")                         # doctest: +SKIP
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from judgekit._resources import example_path
from judgekit.errors import ConfigError, InputError, JudgekitError, ProviderError, RunnerError
from judgekit.evaluate import EvalResult, evaluate
from judgekit.ingest import RunFile, RunResult, Task, TestResult, load_runs
from judgekit.scoring import ScoreSummary, score

__version__ = "0.1.0"

# Heavier parts load on first use, so ``import judgekit`` stays light.
_LAZY = {
    "to_dataframe": "judgekit.dataframe",
    "EngineConfig": "judgekit.engine",
    "PairwiseOptions": "judgekit.pairwise",
    "AuditOptions": "judgekit.audit",
    "load_rubric": "judgekit.audit",
    "write_reports": "judgekit.report",
    "EvalSummary": "judgekit.summary",
}

if TYPE_CHECKING:
    from judgekit.audit import AuditOptions, load_rubric
    from judgekit.dataframe import to_dataframe
    from judgekit.engine import EngineConfig
    from judgekit.pairwise import PairwiseOptions
    from judgekit.report import write_reports
    from judgekit.summary import EvalSummary


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'judgekit' has no attribute {name!r}")


__all__ = [
    "AuditOptions",
    "ConfigError",
    "EngineConfig",
    "EvalResult",
    "EvalSummary",
    "InputError",
    "JudgekitError",
    "PairwiseOptions",
    "ProviderError",
    "RunFile",
    "RunResult",
    "RunnerError",
    "ScoreSummary",
    "Task",
    "TestResult",
    "__version__",
    "evaluate",
    "example_path",
    "load_rubric",
    "load_runs",
    "score",
    "to_dataframe",
    "write_reports",
]
