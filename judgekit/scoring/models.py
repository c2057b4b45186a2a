"""The scoring summary: per-result scores, per-arm statistics, paired comparisons."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from judgekit.ingest.models import TestStatus


class ScoredResult(BaseModel):
    """One result's scores. File metrics are ``None`` when the agent's change is unknown."""

    run_id: str | None = None
    task_id: str
    arm: str
    attempt: int
    model: str | None = None
    repo: str | None = Field(
        None, description="The task's repository, the cluster of clustered intervals "
                          "(see ClusterInfo.rule); None when unknown.")
    repo_source: Literal["repo", "task id"] | None = Field(
        None, description="What gave repo: the task's repo field, or the task id's shape.")
    precision: float | None = None
    recall: float | None = None
    f1: float | None = None
    precision_source: float | None = Field(
        None, description="Precision over source files: tests, docs and changelogs left out.")
    recall_source: float | None = None
    f1_source: float | None = None
    files_touched: list[str] = Field(default_factory=list)
    ground_truth_files: list[str] = Field(default_factory=list)
    files_excluded: list[str] = Field(
        default_factory=list,
        description="Paths of the agent's change left out of files_touched as agent-CLI or "
                    "harness bookkeeping (the exclude list, a .gitignore change that only adds "
                    "patterns for them, and what the producer already stripped).")
    ground_truth_files_excluded: list[str] = Field(
        default_factory=list, description="Paths of the fix left out of ground_truth_files.")
    test_status: TestStatus
    test_reason: str = ""
    tests_run: int | None = None
    framework: str | None = None
    duration_s: float | None = None
    cost_usd: float | None = None
    harness_status: str = "completed"
    sandbox: str | None = Field(
        None, description="The isolation the result's commands ran in ('bwrap', 'none'), "
                          "as its run file records it.")
    diff_similarity: float | None = None
    injection_precision: float | None = None
    injection_recall: float | None = None
    transcript_format: str | None = Field(
        None, description="The agent whose session file the result has ('raw': a file of "
                          "no known format, kept as text); None without one.")
    turns: int | None = Field(None, description="The agent's turns, from its transcript.")
    tool_calls: int | None = Field(None, description="Tool calls, from its transcript.")
    tokens_in: int | None = Field(None, description="Input tokens (cache reads apart), from "
                                                    "its transcript.")
    tokens_out: int | None = None
    transcript_cost_usd: float | None = Field(
        None, description="Cost the agent recorded in its transcript; None where it did not.")
    exit_status: str | None = Field(
        None, description="How the agent's session ended: submitted, completed, "
                          "limits_exceeded, error or interrupted.")
    claimed_unverified: bool = Field(
        False, description="The transcript's final message claims success (tests pass, "
                           "fixed, done) while its tests deny it (test status failed, "
                           "vacuous or timeout).")
    claimed_untested: bool = Field(
        False, description="The transcript's final message claims success while no test "
                           "evidence decides it (test status unknown or error).")
    transcript_redactions: int | None = Field(
        None, description="Secret-looking values redacted from the transcript when read.")
    transcript_unreadable: str | None = Field(
        None, description="Why the transcript file the result names could not be read.")
    truncated: list[str] = Field(
        default_factory=list, description="The result's text fields stored or read cut to "
                                          "their head and tail (its run file's truncated).")

    def json_dict(self) -> dict[str, Any]:
        """``self.model_dump(mode="json")``, made faster: every field holds a JSON value
        already (a string, a number, ``None`` or a list of strings), so the values are
        copied as they are."""
        data = self.__dict__.copy()
        for name in _LIST_FIELDS:
            data[name] = list(data[name])
        return data


_LIST_FIELDS = tuple(name for name, info in ScoredResult.model_fields.items()
                     if info.annotation == list[str])


RULE = ("the task's repo field (a URL or path cut to owner/name); else the task id's shape "
        "(SWE-bench owner__name-N gives owner/name, bobbin name-NNN gives name); else the "
        "task is its own cluster")
METHOD = ("clustered standard errors by repository (CR1) with Student's t on clusters - 1 "
          "degrees of freedom, 95%; paired test: sign-flip over repositories of the per-task "
          "differences")


class ClusterInfo(BaseModel):
    """How results cluster by repository, and whether intervals were clustered."""

    by: str = "repository"
    n_clusters: int = Field(description="Clusters: repositories, plus tasks of unknown "
                                        "repository, each a cluster of its own.")
    clustered: bool = Field(description="Whether clustered intervals were computed (tasks "
                                        "from at least two known repositories).")
    tasks_per_cluster: dict[str, int] = Field(
        default_factory=dict, description="Repository → tasks from it.")
    n_tasks_from_repo_field: int = 0
    n_tasks_from_task_id: int = 0
    tasks_without_repository: list[str] = Field(
        default_factory=list, description="Tasks of unknown repository, each its own cluster.")
    rule: str = Field(RULE, description="How a task's repository is found.")
    method: str = METHOD
    note: str = Field("", description="What the clustering means here, in words (one "
                                      "cluster, few clusters).")


class ArmClustered(BaseModel):
    """One arm's intervals clustered by repository (Miller 2024): wider than the naive ones
    when outcomes are correlated within a repository."""

    n_clusters: int = Field(description="Clusters among the arm's results.")
    pass_rate_ci: tuple[float, float] | None = None
    precision_ci: tuple[float, float] | None = None
    recall_ci: tuple[float, float] | None = None
    f1_ci: tuple[float, float] | None = None
    precision_source_ci: tuple[float, float] | None = None
    recall_source_ci: tuple[float, float] | None = None
    f1_source_ci: tuple[float, float] | None = None


class ComparisonClustered(BaseModel):
    """A paired comparison's interval and test clustered by repository; the pairs are the
    same (per task)."""

    n_clusters: int = Field(description="Clusters among the paired results.")
    delta_pass_rate_ci: tuple[float, float] | None = None
    delta_f1_ci: tuple[float, float] | None = None
    test: str = "paired sign-flip test over repositories (sums of per-task differences)"
    p_value: float | None = None


class TranscriptStats(BaseModel):
    """What an arm's transcripts say: means over the results that had one, and the claims of
    success their tests deny."""

    n_with_transcript: int = Field(description="Results with a session file read.")
    mean_turns: float | None = None
    mean_tool_calls: float | None = None
    mean_tokens_in: float | None = None
    mean_tokens_out: float | None = None
    n_with_tokens: int = Field(0, description="Results whose transcript recorded tokens "
                                              "(the token means are over these).")
    n_with_cost: int = Field(0, description="Results whose transcript recorded a cost.")
    mean_cost_usd: float | None = None
    exit_statuses: dict[str, int] = Field(default_factory=dict)
    n_redactions: int = Field(0, description="Secret-looking values redacted from the "
                                             "transcripts when read.")
    n_claimed_unverified: int = Field(
        0, description="Results whose final message claims success while their tests deny "
                       "it (test status failed, vacuous or timeout).")
    claimed_unverified: list[str] = Field(
        default_factory=list, description="Those results, 'task / arm / attempt N'.")
    n_claimed_untested: int = Field(
        0, description="Results whose final message claims success while no test evidence "
                       "decides it (test status unknown or error).")
    claimed_untested: list[str] = Field(
        default_factory=list, description="Those results, 'task / arm / attempt N'.")


class ArmStats(BaseModel):
    """Statistics of one arm over all its results."""

    n: int
    n_tasks: int
    n_passed: int
    pass_rate: float = Field(description="Verified passes over all results.")
    pass_rate_ci: tuple[float, float]
    n_unknown: int = Field(0, description="Results whose test outcome cannot be verified.")
    pass_rate_upper: float = Field(
        0.0, description="Pass rate if every unknown outcome were a pass: the top of the range "
                         "that unknowns leave open (equal to pass_rate when there are none).")
    status_counts: dict[str, int]
    n_vacuous: int = Field(0, description="Results whose tests executed none (status vacuous): "
                                          "non-passes of the agent.")
    n_error: int = Field(0, description="Results whose harness failed before the agent could be "
                                        "judged (status error).")
    n_files_excluded: int = Field(
        0, description="Results with agent-CLI or harness files left out of their change "
                       "(listed in each result's files_excluded).")
    n_scored_files: int = Field(description="Results with known file metrics.")
    precision: float | None = None
    precision_ci: tuple[float, float] | None = None
    recall: float | None = None
    recall_ci: tuple[float, float] | None = None
    f1: float | None = None
    f1_ci: tuple[float, float] | None = None
    n_scored_source: int = Field(0, description="Results with known source-file metrics.")
    precision_source: float | None = None
    precision_source_ci: tuple[float, float] | None = None
    recall_source: float | None = None
    recall_source_ci: tuple[float, float] | None = None
    f1_source: float | None = None
    f1_source_ci: tuple[float, float] | None = None
    duration_median_s: float | None = None
    duration_p90_s: float | None = None
    cost_total_usd: float | None = None
    pass_at_k: dict[str, float] = Field(
        default_factory=dict, description="pass@1 and, with several attempts per task, pass@k.")
    diff_similarity: float | None = None
    models: list[str] = Field(default_factory=list)
    clustered: ArmClustered | None = Field(
        None, description="The intervals clustered by repository, when tasks come from "
                          "several; the intervals above treat results as independent.")
    transcripts: TranscriptStats | None = Field(
        None, description="From the results' transcripts, when any has one.")


class Comparison(BaseModel):
    """Paired comparison of two arms over the tasks both ran (a minus b).

    Pairs join results of the same task, serving model and attempt number, within one run
    batch first; results whose harness failed (status ``error``) are left out. A ``vacuous``
    result (zero tests executed) stays in as a non-pass.
    """

    arm_a: str
    arm_b: str
    n_paired: int
    n_tasks: int = Field(0, description="Tasks with at least one pair.")
    n_excluded_error: int = Field(
        0, description="Results left out because the harness failed (status error); never a "
                       "result whose tests executed none.")
    n_vacuous: int = Field(0, description="Paired results whose tests executed none (status "
                                          "vacuous), counted as non-passes.")
    n_cross_batch: int = Field(0, description="Pairs whose two results come from different "
                                              "run batches (run ids).")
    n_unpaired_a: int = Field(0, description="Results of arm a left without a partner.")
    n_unpaired_b: int = Field(0, description="Results of arm b left without a partner.")
    tasks_only_a: list[str] = Field(default_factory=list,
                                    description="Tasks with results in arm a only.")
    tasks_only_b: list[str] = Field(default_factory=list,
                                    description="Tasks with results in arm b only.")
    pass_rate_a: float | None = None
    pass_rate_b: float | None = None
    delta_pass_rate: float | None = None
    delta_pass_rate_ci: tuple[float, float] | None = Field(
        None, description="Paired bootstrap 95% interval, resampling tasks.")
    only_a_passed: int = 0
    only_b_passed: int = 0
    test: str | None = Field(None, description="The paired test behind p_value.")
    p_value: float | None = None
    mcnemar_p: float | None = Field(
        None, description="Exact McNemar p-value, when each task has a single pair.")
    n_paired_f1: int = 0
    delta_f1: float | None = None
    delta_f1_ci: tuple[float, float] | None = None
    paired_by: str = "task, serving model and attempt"
    clustered: ComparisonClustered | None = Field(
        None, description="The interval and test clustered by repository, when tasks come "
                          "from several.")


class ScoreSummary(BaseModel):
    """Everything ``judgekit score`` computes."""

    results: list[ScoredResult]
    arms: dict[str, ArmStats]
    comparisons: list[Comparison]
    warnings: list[str] = Field(default_factory=list)
    seed: int
    clusters: ClusterInfo | None = Field(
        None, description="The repositories the tasks come from: the clusters of the "
                          "clustered intervals.")
