"""Score loaded results: file metrics, honest test statuses, per-arm statistics."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from judgekit import stats
from judgekit.diffs import DEFAULT_INFRA_PATHS, excluded_files, files_touched, is_excluded
from judgekit.ingest.models import ResultKey, RunResult
from judgekit.ingest.transcripts.claims import claims_success
from judgekit.ingest.transcripts.link import UNREADABLE_KEY
from judgekit.ingest.transcripts.model import Transcript
from judgekit.scoring.arms import arm_stats, compare_all
from judgekit.scoring.clusters import cluster_info, repository_of, task_clusters
from judgekit.scoring.files import FileScores, file_scores, source_files
from judgekit.scoring.models import ArmStats, ScoredResult, ScoreSummary
from judgekit.scoring.outcomes import classify_result

Similarity = Callable[[Sequence[tuple[str, str]]], list[float]]
"""Cosine similarities of (agent diff, ground-truth diff) pairs, computed in one batch."""

MAX_LISTED_WARNINGS = 20
"""Results named one by one per kind of warning; the rest are counted in one line."""


def _files(diff: str | None, listed: list[str] | None, exclude: Sequence[str],
           cut: bool = False) -> tuple[list[str] | None, list[str]]:
    """The files a change touches (``None`` when unknown) and the files left out of them;
    a ``cut`` diff gives way to the list of its files, when there is one."""
    if diff is not None and not (cut and listed is not None):
        return files_touched(diff, exclude), excluded_files(diff, exclude)
    if listed is not None:
        paths = set(listed)
        left = {p for p in paths if is_excluded(p, exclude)}
        return sorted(paths - left), sorted(left)
    return None, []


def score_result(result: RunResult, *, exclude: Sequence[str] = DEFAULT_INFRA_PATHS,
                 diff_similarity: float | None = None) -> ScoredResult:
    """Score one result."""
    outcome = classify_result(result)
    cut = result.truncated or {}
    agent, agent_left = _files(result.agent_diff, result.agent_files, exclude,
                               "agent_diff" in cut)
    truth, truth_left = _files(result.ground_truth_diff, result.ground_truth_files, exclude,
                               "ground_truth_diff" in cut)
    if result.files_excluded:
        agent_left = sorted(set(agent_left) | set(result.files_excluded))
    scores: FileScores | None = None
    source: FileScores | None = None
    if agent is not None and truth is not None:
        scores = file_scores(agent, truth)
        globs = result.task.test_files
        source = file_scores(source_files(agent, globs), source_files(truth, globs))
    injection = (file_scores(result.injected_files, truth)
                 if result.injected_files is not None and truth is not None else None)
    repo, repo_source = repository_of(result.task.repo, result.task_id)
    return ScoredResult.model_validate(dict(
        run_id=result.run_id, task_id=result.task_id, arm=result.arm, attempt=result.attempt,
        model=result.model, repo=repo, repo_source=repo_source,
        precision=scores.precision if scores else None,
        recall=scores.recall if scores else None,
        f1=scores.f1 if scores else None,
        precision_source=source.precision if source else None,
        recall_source=source.recall if source else None,
        f1_source=source.f1 if source else None,
        files_touched=agent or [], ground_truth_files=truth or [],
        files_excluded=agent_left, ground_truth_files_excluded=truth_left,
        test_status=outcome.status, test_reason=outcome.reason, tests_run=outcome.tests_run,
        framework=outcome.framework, duration_s=result.duration_s,
        cost_usd=result.usage.cost_usd if result.usage else None,
        harness_status=result.harness_status, sandbox=result.sandbox,
        diff_similarity=diff_similarity,
        injection_precision=injection.precision if injection else None,
        injection_recall=injection.recall if injection else None,
        **_from_session(result.session, outcome.status),
        transcript_unreadable=_unreadable(result),
        truncated=sorted(cut),
    ))


def _unreadable(result: RunResult) -> str | None:
    why = result.metadata.get(UNREADABLE_KEY)
    return why if isinstance(why, str) else None


def _from_session(session: Transcript | None, status: str) -> dict[str, Any]:
    """The fields a result's transcript gives its score."""
    if session is None:
        return {}
    if session.format == "raw":  # kept as text: no turns, calls or tokens read from it
        return dict(transcript_format="raw", transcript_redactions=session.redactions)
    claims = claims_success(session.final_message)
    return dict(transcript_format=session.format, turns=session.n_turns,
                tool_calls=len(session.tool_calls), tokens_in=session.tokens_in,
                tokens_out=session.tokens_out, transcript_cost_usd=session.cost_usd,
                exit_status=session.exit_status, transcript_redactions=session.redactions,
                claimed_unverified=claims and status in DENIED,
                claimed_untested=claims and status in UNDECIDED)


DENIED = frozenset({"failed", "vacuous", "timeout"})
"""Test statuses that deny a claim of success: the tests ran and did not pass."""
UNDECIDED = frozenset({"unknown", "error"})
"""Test statuses that neither confirm nor deny one: no test evidence decides it."""


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
    return ResultKey.of(r).with_run()


def _listed(kind: str, lines: list[str], total: int) -> list[str]:
    if total > len(lines):
        return lines + [f"... and {total - len(lines)} more {kind} (see results[])"]
    return lines


def _excluded_warning(rows: Sequence[ScoredResult]) -> list[str]:
    """One line counting the results with bookkeeping files left out, by path."""
    with_left = [r for r in rows if r.files_excluded]
    if not with_left:
        return []
    by_path = Counter(p for r in with_left for p in r.files_excluded)
    shown = sorted(by_path.items(), key=lambda kv: (-kv[1], kv[0]))
    names = ", ".join(f"{path} ({n})" for path, n in shown[:MAX_LISTED_WARNINGS])
    more = (f" and {len(shown) - MAX_LISTED_WARNINGS} more paths"
            if len(shown) > MAX_LISTED_WARNINGS else "")
    return [f"{len(with_left)} of {len(rows)} results had agent-CLI or harness files left out "
            f"of their change, listed in files_excluded: {names}{more}"]


def _truncated_warning(rows: Sequence[ScoredResult]) -> list[str]:
    """One line counting the results with text fields stored or read cut."""
    cut = [r for r in rows if r.truncated]
    if not cut:
        return []
    named = "; ".join(f"{_label(r)} ({', '.join(r.truncated)})"
                      for r in cut[:MAX_LISTED_WARNINGS])
    more = (f"; and {len(cut) - MAX_LISTED_WARNINGS} more"
            if len(cut) > MAX_LISTED_WARNINGS else "")
    return [f"{len(cut)} of {len(rows)} results have text fields cut to their head and tail "
            f"(over the size cap; listed in their truncated): {named}{more}"]


def _warnings(rows: Sequence[ScoredResult], arms: dict[str, ArmStats]) -> list[str]:
    out: list[str] = []
    unsandboxed = sum(r.sandbox == "none" for r in rows)
    if unsandboxed:
        out.append(f"sandbox: none for {unsandboxed} of {len(rows)} results: their setup, agent "
                   "and test commands ran without isolation, seeing everything the user who "
                   "ran them could")
    for name, arm in arms.items():
        if arm.n_unknown:
            out.append(
                f"arm {name!r}: {arm.n_unknown} of {arm.n} results have an unknown test outcome "
                f"(nothing to verify them by): verified pass rate {arm.pass_rate:.1%}, up to "
                f"{arm.pass_rate_upper:.1%} if every unknown passed")
    kinds: dict[str, tuple[list[str], list[int]]] = {
        "vacuous results": ([], [0]), "harness failures": ([], [0]),
        "unknown outcomes": ([], [0])}
    for r in rows:
        if r.test_status == "vacuous":
            kind, line = "vacuous results", (f"vacuous (zero tests executed), counted as a "
                                             f"non-pass: {_label(r)}: {r.test_reason}")
        elif r.harness_status != "completed":
            kind, line = "harness failures", (f"harness failure ({r.harness_status}), counted "
                                              f"as error: {_label(r)}: {r.test_reason}")
        elif r.test_status == "unknown":
            kind, line = "unknown outcomes", f"unknown test outcome: {_label(r)}: {r.test_reason}"
        else:
            continue
        lines, total = kinds[kind]
        total[0] += 1
        if len(lines) < MAX_LISTED_WARNINGS:
            lines.append(line)
    for kind, (lines, total) in kinds.items():
        out.extend(_listed(kind, lines, total[0]))
    out.extend(_excluded_warning(rows))
    out.extend(_truncated_warning(rows))
    by_arm: dict[str, set[str]] = defaultdict(set)
    for r in rows:
        by_arm[r.arm].add(r.model or "?")
    for arm_name, models in sorted(by_arm.items()):
        if len(models) > 1:
            out.append(f"arm {arm_name!r} mixes serving models: {', '.join(sorted(models))}; "
                       "comparisons pair results served by the same model")
    return out


def score(
    results: Iterable[RunResult],
    *,
    exclude: Sequence[str] = DEFAULT_INFRA_PATHS,
    mixed_models: bool = False,
    seed: int = stats.DEFAULT_SEED,
    similarity: Similarity | None = None,
    load_warnings: Sequence[str] = (),
) -> ScoreSummary:
    """Score results and summarise them per arm, with paired comparisons of every two arms.

    ``results`` may be any iterable (e.g. :func:`judgekit.ingest.load.iter_results`): each
    result is scored as it arrives and only its scores are kept. ``load_warnings`` (from
    :class:`judgekit.ingest.load.LoadResult`) head the summary's warnings.

    Example:
        >>> from judgekit import load_runs, score
        >>> summary = score(load_runs("examples/bobbin"))  # doctest: +SKIP
        >>> summary.arms["with-bobbin"].pass_rate           # doctest: +SKIP
    """
    if similarity is not None:
        results = list(results)
        sims = _similarities(results, similarity)
        rows = [score_result(r, exclude=exclude, diff_similarity=sims.get(i))
                for i, r in enumerate(results)]
    else:
        rows = score_rows(results, exclude=exclude)
    return summarise(rows, mixed_models=mixed_models, seed=seed, load_warnings=load_warnings)


def score_rows(results: Iterable[RunResult], *,
               exclude: Sequence[str] = DEFAULT_INFRA_PATHS) -> list[ScoredResult]:
    """Score each result as it arrives; only the scores are kept."""
    return [score_result(r, exclude=exclude) for r in results]


def summarise(rows: list[ScoredResult], *, mixed_models: bool = False,
              seed: int = stats.DEFAULT_SEED, load_warnings: Sequence[str] = ()
              ) -> ScoreSummary:
    """Per-arm statistics, comparisons and warnings over scored results.

    ``load_warnings`` are read only after every row is scored, so a lazily filled list (a
    :class:`~judgekit.ingest.load.LoadResult` being streamed) is complete by then.
    """
    by_arm: dict[str, list[ScoredResult]] = defaultdict(list)
    for r in rows:
        by_arm[r.arm].append(r)
    info = cluster_info(rows)
    clusters = task_clusters(rows) if info.clustered else None
    arms = {name: arm_stats(by_arm[name], seed, clusters) for name in sorted(by_arm)}
    comparisons, refused = compare_all(by_arm, mixed_models=mixed_models, seed=seed,
                                       clusters=clusters)
    warnings = list(load_warnings) + _warnings(rows, arms) + refused
    return ScoreSummary(results=rows, arms=arms, comparisons=comparisons,
                        warnings=warnings, seed=seed, clusters=info)
