"""Which repository a task comes from: the clusters of clustered intervals.

Tasks from one repository share its code, conventions and test harness, so their outcomes
are correlated; intervals that treat them as independent are too narrow (Miller 2024,
"Adding Error Bars to Evals"). The repository of a task is, in order:

1. the task's ``repo`` field (judgekit's run format, suites, bobbin's ``task.repo``,
   SWE-bench's and Inspect's ``repo`` metadata), normalised: a URL or local path becomes its
   last two path parts (``owner/name``), ``.git`` and a trailing ``/`` are dropped, case is
   folded;
2. else the task id, when it has a known shape: SWE-bench's ``owner__name-1234`` gives
   ``owner/name``, bobbin's ``name-001`` gives ``name``;
3. else none: the task is its own cluster (a repository of one task).

Results of one task always share its cluster (the first result that names a repository
decides). A name from rule 2 that is the name part of exactly one repository from rule 1
joins it (``flask-001`` beside tasks of ``pallets/flask``). Intervals are clustered only
when the tasks come from at least two repositories that are known by rule 1 or 2.

Example:
    >>> repository_of("https://github.com/Pallets/flask.git", "x"), repository_of(None, "flask-001")
    (('pallets/flask', 'repo'), ('flask', 'task id'))
    >>> repository_of(None, "astropy__astropy-12907"), repository_of(None, "fix-the-bug")
    (('astropy/astropy', 'task id'), (None, None))
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from judgekit.scoring.models import ClusterInfo, ScoredResult


_SWEBENCH_ID = re.compile(r"^([A-Za-z0-9_.-]+?)__([A-Za-z0-9_.-]+)-\d+$")
_NUMBERED_ID = re.compile(r"^([A-Za-z][A-Za-z0-9_.]*(?:-[A-Za-z][A-Za-z0-9_.]*)*)-\d+$")


def _normalise(repo: str) -> str | None:
    text = repo.strip().rstrip("/").removesuffix(".git").rstrip("/")
    text = re.sub(r"^[a-z+]+://", "", text)          # https://host/owner/name
    text = re.sub(r"^[^/@]+@([^:/]+):", r"\1/", text)  # git@host:owner/name
    parts = [p for p in re.split(r"[/\\]", text) if p and p not in (".", "..", "~")]
    if not parts:
        return None
    return "/".join(parts[-2:]).casefold()


def repository_of(repo: str | None, task_id: str) -> tuple[str | None, str | None]:
    """The repository of a task and which rule gave it (``"repo"``, ``"task id"`` or
    ``None`` when neither did)."""
    if repo and (name := _normalise(repo)):
        return name, "repo"
    if m := _SWEBENCH_ID.match(task_id):
        return f"{m.group(1)}/{m.group(2)}".casefold(), "task id"
    if m := _NUMBERED_ID.match(task_id):
        return m.group(1).casefold(), "task id"
    return None, None


def _task_repositories(rows: Sequence[ScoredResult]
                       ) -> dict[str, tuple[str | None, str | None]]:
    """Task id → (repository, rule): the first result that names a repository by its
    ``repo`` field decides, else the first result. A name found from a task id that is the
    name part of exactly one repository named by a ``repo`` field is that repository
    (``flask-001`` beside ``pallets/flask`` tasks is a ``pallets/flask`` task)."""
    found: dict[str, tuple[str | None, str | None]] = {}
    for r in rows:
        current = found.get(r.task_id)
        if current is None or (current[1] != "repo" and r.repo_source == "repo"):
            found[r.task_id] = (r.repo, r.repo_source)
    by_name: dict[str, set[str]] = {}
    for repo, source in found.values():
        if repo is not None and source == "repo":
            by_name.setdefault(repo.rsplit("/", 1)[-1], set()).add(repo)
    for task, (repo, source) in found.items():
        if source == "task id" and repo is not None and len(by_name.get(repo, ())) == 1:
            found[task] = (next(iter(by_name[repo])), source)
    return found


def task_clusters(rows: Sequence[ScoredResult]) -> dict[str, str]:
    """Task id → its cluster: the repository, or ``task:<id>`` when unknown."""
    return {t: repo or f"task:{t}" for t, (repo, _) in _task_repositories(rows).items()}


def cluster_info(rows: Sequence[ScoredResult]) -> ClusterInfo:
    """The clusters of ``rows`` and whether intervals are clustered, with a note that says
    why when they are not."""
    found = _task_repositories(rows)
    unknown = sorted(t for t, (repo, _) in found.items() if repo is None)
    known = Counter(repo for repo, _ in found.values() if repo is not None)
    n_known = len(known)
    if not rows:
        note = "no results"
    elif n_known == 0:
        note = "no task names its repository: intervals are not clustered"
    elif n_known == 1:
        (only,) = known
        note = (f"one cluster: every task with a known repository comes from {only}, so "
                "intervals are not clustered by repository")
    else:
        note = (f"tasks come from {n_known} repositories: per-arm intervals and paired tests "
                "are also given clustered by repository")
        if unknown:
            note += f" ({len(unknown)} task(s) of unknown repository are clusters of their own)"
        if n_known + len(unknown) < 10:
            note += "; with fewer than 10 clusters the clustered intervals are rough and wide"
    return ClusterInfo(
        n_clusters=n_known + len(unknown), clustered=n_known >= 2,
        tasks_per_cluster=dict(sorted(known.items())),
        n_tasks_from_repo_field=sum(src == "repo" for _, src in found.values()),
        n_tasks_from_task_id=sum(src == "task id" for _, src in found.values()),
        tasks_without_repository=unknown, note=note)
