"""What the reports say about clustering by repository, the same words everywhere.

Example:
    >>> from judgekit.scoring.models import ClusterInfo
    >>> info = ClusterInfo(n_clusters=1, clustered=False, tasks_per_cluster={"pallets/flask": 3},
    ...                    note="one cluster")
    >>> clusters_sentence(info)
    'Clustering by repository: one cluster (pallets/flask: 3 tasks).'
"""

from __future__ import annotations

from judgekit.report.format import interval, num
from judgekit.scoring.models import ArmStats, ClusterInfo, Comparison


def _tasks(n: int) -> str:
    return f"{n} task{'s' if n != 1 else ''}"


def clusters_sentence(info: ClusterInfo | None) -> str:
    """The repositories, how many clusters, and what that means for the intervals."""
    if info is None:
        return ""
    listed = ", ".join(f"{repo}: {_tasks(n)}" for repo, n in info.tasks_per_cluster.items())
    unknown = len(info.tasks_without_repository)
    if unknown:
        listed += (", " if listed else "") + f"{_tasks(unknown)} of unknown repository"
    if not info.clustered:
        count = "one cluster" if len(info.tasks_per_cluster) == 1 else "no known repository"
        return f"Clustering by repository: {count}" + (f" ({listed})." if listed else ".")
    return (f"Clustered by repository: {info.n_clusters} clusters ({listed}). The clustered "
            "intervals treat each repository as one independent unit, so outcomes correlated "
            "within a repository widen them (Student's t on clusters - 1 degrees of freedom)"
            + ("; with fewer than 10 clusters they are rough and wide." if info.n_clusters < 10
               else "."))


def clusters_note(info: ClusterInfo | None) -> str:
    """One line when intervals are not clustered: why (one cluster, no repository)."""
    if info is None or info.clustered:
        return ""
    return info.note[0].upper() + info.note[1:] + "." if info.note else ""


def clustered_pass_rate(arm: ArmStats) -> str:
    """The arm's clustered pass-rate interval, ``–`` when there is none."""
    return interval(arm.clustered.pass_rate_ci, True) if arm.clustered else "–"


def clustered_f1(arm: ArmStats) -> str:
    """The arm's clustered F1 interval, ``–`` when there is none."""
    return interval(arm.clustered.f1_ci) if arm.clustered else "–"


def clustered_comparison_sentence(c: Comparison) -> str:
    """The comparison's interval and test clustered by repository, in words.

    Example:
        >>> from judgekit.scoring.models import ComparisonClustered
        >>> c = Comparison(arm_a="a", arm_b="b", n_paired=8, clustered=ComparisonClustered(
        ...     n_clusters=4, delta_pass_rate_ci=(-0.5, 0.25), p_value=0.625))
        >>> clustered_comparison_sentence(c)
        'Clustered by repository (4 clusters, same pairs): pass-rate difference 95% interval -50.0 to +25.0 points, p = 0.625 (sign-flip test over repositories).'
    """
    k = c.clustered
    if k is None:
        return ""
    bits = []
    if k.delta_pass_rate_ci:
        lo, hi = k.delta_pass_rate_ci
        bits.append(f"pass-rate difference 95% interval {100 * lo:+.1f} to {100 * hi:+.1f} "
                    "points")
    if k.p_value is not None:
        bits.append(f"p = {num(k.p_value)} (sign-flip test over repositories)")
    if k.delta_f1_ci:
        lo, hi = k.delta_f1_ci
        bits.append(f"F1 difference 95% interval {lo:+.3f} to {hi:+.3f}")
    if not bits:
        return ""
    return (f"Clustered by repository ({k.n_clusters} clusters, same pairs): "
            + ", ".join(bits) + ".")
