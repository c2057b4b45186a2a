"""Score loaded results: file metrics, honest test statuses, per-arm statistics."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence

from judgekit import stats
from judgekit.diffs import DEFAULT_INFRA_PATHS, files_touched, is_excluded
from judgekit.runs.models import RunResult
from judgekit.scoring.arms import arm_stats, compare_all
from judgekit.scoring.files import file_scores
from judgekit.scoring.models import ScoredResult, ScoreSummary
from judgekit.scoring.outcomes import classify_result

Similarity = Callable[[Sequence[tuple[str, str]]], list[float]]
"""Cosine similarities of (agent diff, ground-truth diff) pairs, computed in one batch."""


def _files(diff: str | None, listed: list[str] | None, exclude: Sequence[str]) -> list[str] | None:
    if diff is not None:
        return files_touched(diff, exclude)
    if listed is not None:
        return sorted(p for p in set(listed) if not is_excluded(p, exclude))
    return None


def score_result(result: RunResult, *, exclude: Sequence[str] = DEFAULT_INFRA_PATHS,
                 diff_similarity: float | None = None) -> ScoredResult:
    """Score one result."""
    outcome = classify_result(result)
    agent = _files(result.agent_diff, result.agent_files, exclude)
    truth = _files(result.ground_truth_diff, result.ground_truth_files, exclude)
    scores = file_scores(agent, truth) if agent is not None and truth is not None else None
    injection = (file_scores(result.injected_files, truth)
                 if result.injected_files is not None and truth is not None else None)
    return ScoredResult(
        run_id=result.run_id, task_id=result.task_id, arm=result.arm, attempt=result.attempt,
        model=result.model,
        precision=scores.precision if scores else None,
        recall=scores.recall if scores else None,
        f1=scores.f1 if scores else None,
        files_touched=agent or [], ground_truth_files=truth or [],
        test_status=outcome.status, test_reason=outcome.reason, tests_run=outcome.tests_run,
        framework=outcome.framework, duration_s=result.duration_s,
        cost_usd=result.usage.cost_usd if result.usage else None,
        harness_status=result.harness_status, diff_similarity=diff_similarity,
        injection_precision=injection.precision if injection else None,
        injection_recall=injection.recall if injection else None,
    )


def _similarities(results: Sequence[RunResult], similarity: Similarity | None
                  ) -> dict[int, float]:
    """Diff similarity per result index, for results with both diffs."""
    if similarity is None:
        return {}
    both = [(i, (r.agent_diff, r.ground_truth_diff)) for i, r in enumerate(results)
            if r.agent_diff and r.ground_truth_diff]
    values = similarity([pair for _, pair in both]) if both else []
    return {i: v for (i, _), v in zip(both, values)}


def _label(r: ScoredResult) -> str:
    run = f" (run {r.run_id})" if r.run_id else ""
    return f"{r.task_id} / {r.arm} / attempt {r.attempt}{run}"


def _warnings(rows: Sequence[ScoredResult]) -> list[str]:
    out = []
    for r in rows:
        if r.test_status == "vacuous":
            out.append(f"vacuous pass, not counted as passed: {_label(r)}: {r.test_reason}")
        elif r.harness_status != "completed":
            out.append(f"harness failure ({r.harness_status}), counted as error: {_label(r)}: "
                       f"{r.test_reason}")
        elif r.test_status == "unknown":
            out.append(f"unknown test outcome: {_label(r)}: {r.test_reason}")
    by_arm: dict[str, set[str]] = defaultdict(set)
    for r in rows:
        by_arm[r.arm].add(r.model or "?")
    for arm, models in sorted(by_arm.items()):
        if len(models) > 1:
            out.append(f"arm {arm!r} mixes serving models: {', '.join(sorted(models))}; "
                       "comparisons pair results served by the same model")
    return out


def score(
    results: Sequence[RunResult],
    *,
    exclude: Sequence[str] = DEFAULT_INFRA_PATHS,
    mixed_models: bool = False,
    seed: int = stats.DEFAULT_SEED,
    similarity: Similarity | None = None,
) -> ScoreSummary:
    """Score results and summarise them per arm, with paired comparisons of every two arms.

    Example:
        >>> from judgekit import load_runs, score
        >>> summary = score(load_runs("examples/bobbin"))  # doctest: +SKIP
        >>> summary.arms["with-bobbin"].pass_rate           # doctest: +SKIP
    """
    sims = _similarities(results, similarity)
    rows = [score_result(r, exclude=exclude, diff_similarity=sims.get(i))
            for i, r in enumerate(results)]
    by_arm: dict[str, list[ScoredResult]] = defaultdict(list)
    for r in rows:
        by_arm[r.arm].append(r)
    arms = {name: arm_stats(by_arm[name], seed) for name in sorted(by_arm)}
    comparisons, refused = compare_all(by_arm, mixed_models=mixed_models, seed=seed)
    return ScoreSummary(results=rows, arms=arms, comparisons=comparisons,
                        warnings=_warnings(rows) + refused, seed=seed)
