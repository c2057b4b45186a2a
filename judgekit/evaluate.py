"""``evaluate``: load → score → judge pairs → audit failures, in one call.

Example:
    >>> from judgekit import evaluate
    >>> result = evaluate(["examples/bobbin"])          # doctest: +SKIP
    >>> result.summary.arms["with-bobbin"].f1           # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from judgekit import stats
from judgekit.diffs import DEFAULT_INFRA_PATHS
from judgekit.runs.load import load_runs
from judgekit.runs.models import RunResult
from judgekit.scoring.models import ScoreSummary
from judgekit.scoring.score import Similarity, score


class EvalResult(BaseModel):
    """Everything one evaluation produced. ``summary_dict()`` is what ``summary.json`` holds."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    runs: list[RunResult] = Field(default_factory=list, exclude=True)
    summary: ScoreSummary
    pairwise: Any | None = None
    audit: Any | None = None
    notes: list[str] = Field(default_factory=list)

    def summary_dict(self) -> dict[str, Any]:
        data = self.summary.model_dump(mode="json")
        if self.pairwise is not None:
            data["pairwise"] = self.pairwise.summary_dict()
        if self.audit is not None:
            data["audit"] = self.audit.summary_dict()
        if self.notes:
            data["notes"] = list(self.notes)
        return data


def _similarity(enabled: bool) -> Similarity | None:
    if not enabled:
        return None
    try:
        from judgekit.index import diff_similarity, index_available
    except ImportError:
        return None
    return diff_similarity if index_available() else None


def evaluate(
    paths: str | Path | Sequence[str | Path] | Sequence[RunResult],
    *,
    judge: Any | None = None,
    pairwise: bool = True,
    audit: bool = True,
    exclude: Sequence[str] = DEFAULT_INFRA_PATHS,
    mixed_models: bool = False,
    seed: int | None = None,
    similarity: bool = True,
    pairwise_options: Any | None = None,
    audit_options: Any | None = None,
) -> EvalResult:
    """Load runs (or take loaded results), score them, and judge them when a judge is given.

    ``judge`` is an :class:`judgekit.engine.EngineConfig` or a model name such as
    ``"anthropic:claude-sonnet-4-5"``; without one only scoring runs.
    """
    if isinstance(paths, (list, tuple)) and paths and isinstance(paths[0], RunResult):
        runs = list(paths)  # type: ignore[arg-type]
    else:
        runs = load_runs(paths)  # type: ignore[arg-type]
    summary = score(runs, exclude=exclude, mixed_models=mixed_models,
                    seed=stats.DEFAULT_SEED if seed is None else seed,
                    similarity=_similarity(similarity))
    result = EvalResult(runs=runs, summary=summary)
    if judge is None or not (pairwise or audit):
        return result
    from judgekit.engine import Engine, EngineConfig

    config = judge if isinstance(judge, EngineConfig) else EngineConfig(model=str(judge))
    engine = Engine(config)
    if pairwise:
        from judgekit.pairwise import run_pairwise

        result.pairwise = run_pairwise(runs, summary, engine, pairwise_options, exclude=exclude)
    if audit:
        from judgekit.audit import run_audit

        result.audit = run_audit(runs, summary, engine, audit_options)
    return result
