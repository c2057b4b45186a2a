"""Scoring as a step: one scored result a line of ``results.jsonl``, and the score summary.

Scoring runs first, before any judging step, and every later step reads its rows; it keeps
the same contract as the others (:class:`judgekit.steps.StepResult`): its Record is
:class:`~judgekit.scoring.models.ScoredResult`, its Summary
:class:`~judgekit.scoring.models.ScoreSummary`.

Example:
    >>> from judgekit.ingest.models import RunResult, Task
    >>> done = score_step([RunResult(task=Task(id="t1"), arm="a")])
    >>> done.name, done.records_file, done.summary().arms["a"].n
    ('score', 'results.jsonl', 1)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

from judgekit import stats
from judgekit.diffs import DEFAULT_INFRA_PATHS
from judgekit.ingest.models import RunResult
from judgekit.scoring.models import ScoredResult, ScoreSummary
from judgekit.scoring.score import Similarity, score
from judgekit.outputs import RESULTS_FILE
from judgekit.steps import StepKind, StepResult


#: the scoring step: it runs first, and its summary is ``summary.json``'s first entries.
SCORE = StepKind("score", ScoredResult, ScoreSummary, RESULTS_FILE)


class ScoreResult(StepResult[ScoredResult, ScoreSummary]):
    """What scoring made: the scored results and their per-arm statistics."""

    kind: ClassVar[StepKind[Any, Any]] = SCORE

    def __init__(self, summary: ScoreSummary) -> None:
        self.records = summary.results
        self.keep_summary(summary)

    def _summarise(self) -> ScoreSummary:  # the summary is kept when made
        raise AssertionError("a score result is made with its summary")


def score_step(results: Iterable[RunResult], *,
               exclude: Sequence[str] = DEFAULT_INFRA_PATHS, mixed_models: bool = False,
               seed: int = stats.DEFAULT_SEED, similarity: Similarity | None = None,
               load_warnings: Sequence[str] = ()) -> ScoreResult:
    """Score ``results`` (:func:`judgekit.scoring.score.score`) as a step."""
    return ScoreResult(score(results, exclude=exclude, mixed_models=mixed_models, seed=seed,
                             similarity=similarity, load_warnings=load_warnings))


__all__ = ["SCORE", "ScoreResult", "score_step"]
