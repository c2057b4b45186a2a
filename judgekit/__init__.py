"""judgekit: trustworthy verdicts for coding-agent evaluation runs.

Example:
    >>> import judgekit
    >>> result = judgekit.evaluate(["examples/bobbin"])   # doctest: +SKIP
    >>> summary = judgekit.score(judgekit.load_runs("examples/bobbin"))  # doctest: +SKIP
"""

from __future__ import annotations

from judgekit.errors import ConfigError, InputError, JudgekitError
from judgekit.evaluate import EvalResult, evaluate
from judgekit.runs import RunFile, RunResult, Task, TestResult, load_runs
from judgekit.scoring import ScoreSummary, score

__version__ = "0.1.0"

__all__ = [
    "ConfigError",
    "EvalResult",
    "InputError",
    "JudgekitError",
    "RunFile",
    "RunResult",
    "ScoreSummary",
    "Task",
    "TestResult",
    "__version__",
    "evaluate",
    "load_runs",
    "score",
]
