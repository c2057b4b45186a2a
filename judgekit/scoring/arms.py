"""Per-arm statistics and paired comparisons between arms."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from itertools import combinations

from judgekit import stats
from judgekit.scoring.models import ArmStats, Comparison, ScoredResult


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _ci(values: Sequence[float], seed: int) -> tuple[float, float] | None:
    return stats.bootstrap_mean_ci(values, seed=seed) if values else None


def _pass_at_k(rows: Sequence[ScoredResult]) -> dict[str, float]:
    by_task: dict[str, list[bool]] = defaultdict(list)
    for r in rows:
        by_task[r.task_id].append(r.test_status == "passed")
    if not by_task:
        return {}
    k_max = min(len(v) for v in by_task.values())
    out = {}
    for k in sorted({1, k_max}):
        out[str(k)] = sum(stats.pass_at_k(len(v), sum(v), k) for v in by_task.values()) / len(by_task)
    return out


def arm_stats(rows: Sequence[ScoredResult], seed: int) -> ArmStats:
    n = len(rows)
    passed = sum(r.test_status == "passed" for r in rows)
    scored = [r for r in rows if r.f1 is not None]
    durations = [r.duration_s for r in rows if r.duration_s is not None]
    costs = [r.cost_usd for r in rows if r.cost_usd is not None]
    sims = [r.diff_similarity for r in rows if r.diff_similarity is not None]
    precision = [r.precision for r in scored if r.precision is not None]
    recall = [r.recall for r in scored if r.recall is not None]
    f1 = [r.f1 for r in scored if r.f1 is not None]
    return ArmStats(
        n=n,
        n_tasks=len({r.task_id for r in rows}),
        n_passed=passed,
        pass_rate=passed / n if n else 0.0,
        pass_rate_ci=stats.wilson_interval(passed, n),
        status_counts=dict(Counter(r.test_status for r in rows)),
        n_scored_files=len(scored),
        precision=_mean(precision), precision_ci=_ci(precision, seed),
        recall=_mean(recall), recall_ci=_ci(recall, seed),
        f1=_mean(f1), f1_ci=_ci(f1, seed),
        duration_median_s=stats.median(durations),
        duration_p90_s=stats.percentile(durations, 90),
        cost_total_usd=sum(costs) if costs else None,
        pass_at_k=_pass_at_k(rows),
        diff_similarity=_mean(sims),
        models=sorted({r.model for r in rows if r.model}),
    )


def _order(r: ScoredResult) -> tuple[str, int]:
    return (r.run_id or "", r.attempt)


def pair_results(a: Sequence[ScoredResult], b: Sequence[ScoredResult], *, by_model: bool
                 ) -> list[tuple[ScoredResult, ScoredResult]]:
    """Match results of two arms on the same task (and serving model), in run order."""
    def key(r: ScoredResult) -> tuple[str, str]:
        return (r.task_id, (r.model or "") if by_model else "")

    groups_a: dict[tuple[str, str], list[ScoredResult]] = defaultdict(list)
    groups_b: dict[tuple[str, str], list[ScoredResult]] = defaultdict(list)
    for r in a:
        groups_a[key(r)].append(r)
    for r in b:
        groups_b[key(r)].append(r)
    pairs = []
    for k in sorted(groups_a.keys() & groups_b.keys()):
        pairs.extend(zip(sorted(groups_a[k], key=_order), sorted(groups_b[k], key=_order)))
    return pairs


def compare(name_a: str, a: Sequence[ScoredResult], name_b: str, b: Sequence[ScoredResult], *,
            by_model: bool, seed: int) -> Comparison:
    pairs = pair_results(a, b, by_model=by_model)
    n = len(pairs)
    pass_a = [x.test_status == "passed" for x, _ in pairs]
    pass_b = [y.test_status == "passed" for _, y in pairs]
    only_a = sum(x and not y for x, y in zip(pass_a, pass_b))
    only_b = sum(y and not x for x, y in zip(pass_a, pass_b))
    deltas = [x.f1 - y.f1 for x, y in pairs if x.f1 is not None and y.f1 is not None]
    return Comparison(
        arm_a=name_a, arm_b=name_b, n_paired=n,
        pass_rate_a=sum(pass_a) / n if n else None,
        pass_rate_b=sum(pass_b) / n if n else None,
        delta_pass_rate=(sum(pass_a) - sum(pass_b)) / n if n else None,
        only_a_passed=only_a, only_b_passed=only_b,
        mcnemar_p=stats.mcnemar_exact(only_a, only_b) if n else None,
        n_paired_f1=len(deltas),
        delta_f1=_mean(deltas),
        delta_f1_ci=_ci(deltas, seed),
        paired_by="task and serving model" if by_model else "task (models mixed)",
    )


def compare_all(by_arm: dict[str, list[ScoredResult]], *, mixed_models: bool, seed: int
                ) -> tuple[list[Comparison], list[str]]:
    """Compare every two arms; arms served by different models are refused unless allowed."""
    comparisons, warnings = [], []
    for name_a, name_b in combinations(sorted(by_arm), 2):
        models_a = {r.model for r in by_arm[name_a]}
        models_b = {r.model for r in by_arm[name_b]}
        if models_a != models_b and not mixed_models:
            warnings.append(
                f"arms {name_a!r} and {name_b!r} are served by different models "
                f"({', '.join(sorted(m or '?' for m in models_a))} vs "
                f"{', '.join(sorted(m or '?' for m in models_b))}): not compared; "
                "pass --mixed-models to compare them anyway")
            continue
        comparisons.append(compare(name_a, by_arm[name_a], name_b, by_arm[name_b],
                                   by_model=not mixed_models, seed=seed))
    return comparisons, warnings
