"""Per-arm statistics and paired comparisons between arms.

Pairing, as a statistician would accept it: results whose harness failed (status ``error``:
the agent never ran) are left out and counted; a result whose tests executed none (status
``vacuous``) stays in as a non-pass; a pair joins two results of the same task,
serving model and attempt number, taken from the same run batch (run id) when one exists
and counted as crossing batches otherwise. When some task has more than one pair, the tests
work at the task level (a task's attempts are not independent): per-task pass fractions, a
sign-flip test and a bootstrap over tasks. With one pair per task the test is exact McNemar.

When tasks come from several repositories (``clusters``: task id → repository, from
:mod:`judgekit.scoring.clusters`), each arm's intervals and each comparison's interval and
test are given again, clustered by repository: clustered standard errors with Student's t
on clusters - 1 degrees of freedom, and a sign-flip test over repositories of the per-task
differences. The pairs stay the same.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from itertools import combinations
from operator import attrgetter

import numpy as np

from judgekit import stats
from judgekit.errors import render_options
from judgekit.scoring.models import (
    ArmClustered,
    ArmStats,
    Comparison,
    ComparisonClustered,
    ScoredResult,
    TranscriptStats,
)

MCNEMAR = "exact McNemar (one pair per task)"
SIGN_FLIP = "paired sign-flip test on per-task pass fractions (several pairs per task)"


def _mean(values: np.ndarray) -> float | None:
    return float(values.mean()) if values.size else None


def _ci(values: np.ndarray, seed: int) -> tuple[float, float] | None:
    return stats.bootstrap_mean_ci(values, seed=seed) if values.size else None


def _column(rows: Sequence[ScoredResult], name: str) -> np.ndarray:
    values = map(attrgetter(name), rows)
    return np.array([v for v in values if v is not None], dtype=float)


def _pass_at_k(rows: Sequence[ScoredResult]) -> dict[str, float]:
    by_task: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in rows:
        cell = by_task[r.task_id]
        cell[0] += 1
        cell[1] += r.test_status == "passed"
    if not by_task:
        return {}
    k_max = min(n for n, _ in by_task.values())
    return {str(k): sum(stats.pass_at_k(n, c, k) for n, c in by_task.values()) / len(by_task)
            for k in sorted({1, k_max})}


Clusters = dict[str, str]
"""Task id → the repository (cluster) it comes from."""

_METRICS = ("precision", "recall", "f1", "precision_source", "recall_source", "f1_source")


def _clustered_ci(labels: Sequence[str], values: np.ndarray,
                  bounds: tuple[float, float]) -> tuple[float, float] | None:
    return stats.clustered_mean_ci(values, labels, bounds=bounds) if len(labels) else None


def _arm_clustered(rows: Sequence[ScoredResult], clusters: Clusters) -> ArmClustered:
    labels = [clusters[r.task_id] for r in rows]
    passed = np.array([r.test_status == "passed" for r in rows], dtype=float)
    cis: dict[str, tuple[float, float] | None] = {}
    for name in _METRICS:
        known = [(label, getattr(r, name)) for label, r in zip(labels, rows)
                 if getattr(r, name) is not None]
        cis[f"{name}_ci"] = _clustered_ci([k for k, _ in known],
                                          np.array([v for _, v in known], dtype=float), (0, 1))
    return ArmClustered(n_clusters=len(set(labels)),
                        pass_rate_ci=stats.clustered_wilson_interval(passed, labels)
                        if labels else None, **cis)


def arm_stats(rows: Sequence[ScoredResult], seed: int,
              clusters: Clusters | None = None) -> ArmStats:
    n = len(rows)
    statuses = Counter(r.test_status for r in rows)
    passed, unknown = statuses.get("passed", 0), statuses.get("unknown", 0)
    durations = _column(rows, "duration_s")
    costs = _column(rows, "cost_usd")
    sims = _column(rows, "diff_similarity")
    metrics = {name: _column(rows, name) for name in _METRICS}
    return ArmStats(
        n=n,
        n_tasks=len({r.task_id for r in rows}),
        n_passed=passed,
        pass_rate=passed / n if n else 0.0,
        pass_rate_ci=stats.wilson_interval(passed, n),
        n_unknown=unknown,
        pass_rate_upper=(passed + unknown) / n if n else 0.0,
        status_counts=dict(statuses),
        n_vacuous=statuses.get("vacuous", 0),
        n_error=statuses.get("error", 0),
        n_files_excluded=sum(1 for r in rows if r.files_excluded),
        n_scored_files=int(metrics["f1"].size),
        n_scored_source=int(metrics["f1_source"].size),
        **{name: _mean(v) for name, v in metrics.items()},
        **{f"{name}_ci": _ci(v, seed) for name, v in metrics.items()},
        duration_median_s=stats.median(durations),
        duration_p90_s=stats.percentile(durations, 90),
        cost_total_usd=float(costs.sum()) if costs.size else None,
        pass_at_k=_pass_at_k(rows),
        diff_similarity=_mean(sims),
        models=sorted({r.model for r in rows if r.model}),
        clustered=_arm_clustered(rows, clusters) if clusters is not None else None,
        transcripts=transcript_stats(rows),
    )


def transcript_stats(rows: Sequence[ScoredResult]) -> TranscriptStats | None:
    """What the arm's transcripts say; None when no result has one."""
    had = [r for r in rows if r.transcript_format not in (None, "raw")]
    if not had:
        return None
    costs = _column(had, "transcript_cost_usd")
    claimed = [r for r in had if r.claimed_unverified]
    untested = [r for r in had if r.claimed_untested]
    tokens = [r for r in had if r.tokens_in is not None or r.tokens_out is not None]
    return TranscriptStats(
        n_with_transcript=len(had),
        mean_turns=_mean(_column(had, "turns")),
        mean_tool_calls=_mean(_column(had, "tool_calls")),
        mean_tokens_in=_mean(_column(had, "tokens_in")),
        mean_tokens_out=_mean(_column(had, "tokens_out")),
        n_with_tokens=len(tokens), n_with_cost=int(costs.size), mean_cost_usd=_mean(costs),
        exit_statuses=dict(Counter(r.exit_status or "unknown" for r in had)),
        n_redactions=sum(r.transcript_redactions or 0 for r in had),
        n_claimed_unverified=len(claimed),
        claimed_unverified=[f"{r.task_id} / {r.arm} / attempt {r.attempt}" for r in claimed],
        n_claimed_untested=len(untested),
        claimed_untested=[f"{r.task_id} / {r.arm} / attempt {r.attempt}" for r in untested])


Key = tuple[str, str, int]
Pair = tuple[ScoredResult, ScoredResult]


def _batch(r: ScoredResult) -> str:
    return r.run_id or ""


def _pair_group(a: list[ScoredResult], b: list[ScoredResult]
                ) -> tuple[list[Pair], int, int, int]:
    """Pairs of one key: same batch first, then across batches in run-id order.

    Returns the pairs, how many crossed batches, and the results of a and b left over.
    """
    if len(a) == 1 and len(b) == 1:  # the common case, decided as below
        return [(a[0], b[0])], int(_batch(a[0]) != _batch(b[0])), 0, 0
    if not a or not b:
        return [], 0, len(a), len(b)
    by_batch_a: dict[str, list[ScoredResult]] = defaultdict(list)
    by_batch_b: dict[str, list[ScoredResult]] = defaultdict(list)
    for r in a:
        by_batch_a[_batch(r)].append(r)
    for r in b:
        by_batch_b[_batch(r)].append(r)
    pairs: list[Pair] = []
    rest_a: list[ScoredResult] = []
    rest_b: list[ScoredResult] = []
    for batch in sorted(by_batch_a.keys() | by_batch_b.keys()):
        xs, ys = by_batch_a.get(batch, []), by_batch_b.get(batch, [])
        m = min(len(xs), len(ys))
        pairs.extend(zip(xs[:m], ys[:m]))
        rest_a.extend(xs[m:])
        rest_b.extend(ys[m:])
    m = min(len(rest_a), len(rest_b))
    pairs.extend(zip(rest_a[:m], rest_b[:m]))
    return pairs, m, len(rest_a) - m, len(rest_b) - m


def pair_results(a: Sequence[ScoredResult], b: Sequence[ScoredResult], *, by_model: bool
                 ) -> tuple[list[Pair], dict[str, int]]:
    """Pairs of two arms' non-error results: same task, serving model and attempt.

    Returns the pairs and counts: ``excluded_error``, ``cross_batch``, ``unpaired_a``,
    ``unpaired_b``.
    """
    counts = {"excluded_error": 0, "cross_batch": 0, "unpaired_a": 0, "unpaired_b": 0}
    groups: tuple[dict[Key, list[ScoredResult]], dict[Key, list[ScoredResult]]] = (
        defaultdict(list), defaultdict(list))
    for side, rows in zip(groups, (a, b)):
        for r in rows:
            if r.test_status == "error":
                counts["excluded_error"] += 1
            else:
                side[(r.task_id, (r.model or "") if by_model else "", r.attempt)].append(r)
    pairs: list[Pair] = []
    crossed = left_a = left_b = 0
    none: list[ScoredResult] = []
    group_a, group_b = groups
    for k in sorted(group_a.keys() | group_b.keys()):
        got, cross, rest_a, rest_b = _pair_group(group_a.get(k, none), group_b.get(k, none))
        pairs.extend(got)
        crossed += cross
        left_a += rest_a
        left_b += rest_b
    counts.update(cross_batch=crossed, unpaired_a=left_a, unpaired_b=left_b)
    return pairs, counts


def _by_task(pairs: Sequence[Pair], values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-task sums of ``values`` (one per pair) and per-task pair counts."""
    tasks = [x.task_id for x, _ in pairs]
    # np.unique's sorted order and inverse, found with a dict (task ids are strings)
    index = {task: i for i, task in enumerate(sorted(set(tasks)))}
    inverse = np.fromiter(map(index.__getitem__, tasks), dtype=np.intp, count=len(tasks))
    sums = np.bincount(inverse, weights=values)
    sizes = np.bincount(inverse).astype(float)
    return sums, sizes


def _comparison_clustered(pairs: Sequence[Pair], diff: np.ndarray,
                          with_f1: Sequence[Pair], f1_diff: np.ndarray,
                          clusters: Clusters, seed: int) -> ComparisonClustered:
    """The clustered interval and test of one comparison: the per-pair differences summed
    by repository; the test flips the signs of each repository's sum of per-task mean
    differences."""
    labels = [clusters[x.task_id] for x, _ in pairs]
    tasks = sorted({x.task_id for x, _ in pairs})
    task_sums, task_sizes = _by_task(pairs, diff)
    per_repo: dict[str, float] = defaultdict(float)
    for task, value in zip(tasks, task_sums / task_sizes):
        per_repo[clusters[task]] += float(value)
    return ComparisonClustered(
        n_clusters=len(set(labels)),
        delta_pass_rate_ci=_clustered_ci(labels, diff, (-1, 1)),
        delta_f1_ci=_clustered_ci([clusters[x.task_id] for x, _ in with_f1], f1_diff, (-1, 1))
        if with_f1 else None,
        p_value=stats.sign_flip_p(list(per_repo.values()), seed=seed)
        if len(per_repo) > 1 else None)


def compare(name_a: str, a: Sequence[ScoredResult], name_b: str, b: Sequence[ScoredResult], *,
            by_model: bool, seed: int, clusters: Clusters | None = None) -> Comparison:
    pairs, counts = pair_results(a, b, by_model=by_model)
    n = len(pairs)
    tasks_a, tasks_b = {r.task_id for r in a}, {r.task_id for r in b}
    base = Comparison(
        arm_a=name_a, arm_b=name_b, n_paired=n,
        n_excluded_error=counts["excluded_error"], n_cross_batch=counts["cross_batch"],
        n_vacuous=sum((x.test_status == "vacuous") + (y.test_status == "vacuous")
                      for x, y in pairs),
        n_unpaired_a=counts["unpaired_a"], n_unpaired_b=counts["unpaired_b"],
        tasks_only_a=sorted(tasks_a - tasks_b), tasks_only_b=sorted(tasks_b - tasks_a),
        paired_by="task, serving model and attempt" if by_model
        else "task and attempt (models mixed)",
    )
    if not n:
        return base
    pass_a = np.array([x.test_status == "passed" for x, _ in pairs], dtype=float)
    pass_b = np.array([y.test_status == "passed" for _, y in pairs], dtype=float)
    diff = pass_a - pass_b
    sums, sizes = _by_task(pairs, diff)
    several = bool(np.any(sizes > 1))
    only_a = int(np.sum(diff > 0))
    only_b = int(np.sum(diff < 0))
    if several:
        test, p = SIGN_FLIP, stats.sign_flip_p(sums / sizes, seed=seed)
        mcnemar = None
    else:
        test, p = MCNEMAR, stats.mcnemar_exact(only_a, only_b)
        mcnemar = p
    with_f1 = [(x, y) for x, y in pairs if x.f1 is not None and y.f1 is not None]
    f1_diff = np.array([x.f1 - y.f1 for x, y in with_f1 if x.f1 is not None and y.f1 is not None],
                       dtype=float)
    f1_ci = None
    if with_f1:
        f1_sums, f1_sizes = _by_task(with_f1, f1_diff)
        f1_ci = stats.cluster_bootstrap_ratio_ci(f1_sums, f1_sizes, seed=seed)
    return base.model_copy(update={
        "n_tasks": int(sizes.size),
        "pass_rate_a": float(pass_a.mean()), "pass_rate_b": float(pass_b.mean()),
        "delta_pass_rate": float(diff.mean()),
        "delta_pass_rate_ci": stats.cluster_bootstrap_ratio_ci(sums, sizes, seed=seed),
        "only_a_passed": only_a, "only_b_passed": only_b,
        "test": test, "p_value": p, "mcnemar_p": mcnemar,
        "n_paired_f1": len(with_f1),
        "delta_f1": float(f1_diff.mean()) if with_f1 else None,
        "delta_f1_ci": f1_ci,
        "clustered": _comparison_clustered(pairs, diff, with_f1, f1_diff, clusters, seed)
        if clusters is not None else None,
    })


def _comparison_warnings(c: Comparison) -> list[str]:
    out = []
    for arm, other, tasks in ((c.arm_a, c.arm_b, c.tasks_only_a), (c.arm_b, c.arm_a,
                                                                  c.tasks_only_b)):
        if tasks:
            shown = ", ".join(tasks[:20]) + (f" and {len(tasks) - 20} more" if len(tasks) > 20
                                             else "")
            out.append(f"{len(tasks)} task{'s' if len(tasks) != 1 else ''} ran in arm {arm!r} "
                       f"but not in {other!r}, left out of their comparison: {shown}")
    if c.n_excluded_error:
        out.append(f"{c.arm_a} vs {c.arm_b}: {c.n_excluded_error} result"
                   f"{'s' if c.n_excluded_error != 1 else ''} with a harness failure (status "
                   "error) left out of the pairing")
    if c.n_cross_batch:
        out.append(f"{c.arm_a} vs {c.arm_b}: {c.n_cross_batch} of {c.n_paired} pairs join "
                   "results from different run batches")
    return out


def compare_all(by_arm: dict[str, list[ScoredResult]], *, mixed_models: bool, seed: int,
                clusters: Clusters | None = None) -> tuple[list[Comparison], list[str]]:
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
                + render_options("pass {option:mixed_models} to compare them anyway"))
            continue
        comparison = compare(name_a, by_arm[name_a], name_b, by_arm[name_b],
                             by_model=not mixed_models, seed=seed, clusters=clusters)
        comparisons.append(comparison)
        warnings.extend(_comparison_warnings(comparison))
    return comparisons, warnings
