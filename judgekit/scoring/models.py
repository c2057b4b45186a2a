"""The scoring summary: per-result scores, per-arm statistics, paired comparisons."""

from __future__ import annotations

from pydantic import BaseModel, Field

from judgekit.runs.models import TestStatus


class ScoredResult(BaseModel):
    """One result's scores. File metrics are ``None`` when the agent's change is unknown."""

    run_id: str | None = None
    task_id: str
    arm: str
    attempt: int
    model: str | None = None
    precision: float | None = None
    recall: float | None = None
    f1: float | None = None
    files_touched: list[str] = Field(default_factory=list)
    ground_truth_files: list[str] = Field(default_factory=list)
    test_status: TestStatus
    test_reason: str = ""
    tests_run: int | None = None
    framework: str | None = None
    duration_s: float | None = None
    cost_usd: float | None = None
    harness_status: str = "completed"
    diff_similarity: float | None = None
    injection_precision: float | None = None
    injection_recall: float | None = None


class ArmStats(BaseModel):
    """Statistics of one arm over all its results."""

    n: int
    n_tasks: int
    n_passed: int
    pass_rate: float
    pass_rate_ci: tuple[float, float]
    status_counts: dict[str, int]
    n_scored_files: int = Field(description="Results with known file metrics.")
    precision: float | None = None
    precision_ci: tuple[float, float] | None = None
    recall: float | None = None
    recall_ci: tuple[float, float] | None = None
    f1: float | None = None
    f1_ci: tuple[float, float] | None = None
    duration_median_s: float | None = None
    duration_p90_s: float | None = None
    cost_total_usd: float | None = None
    pass_at_k: dict[str, float] = Field(
        default_factory=dict, description="pass@1 and, with several attempts per task, pass@k.")
    diff_similarity: float | None = None
    models: list[str] = Field(default_factory=list)


class Comparison(BaseModel):
    """Paired comparison of two arms over the tasks both ran (a minus b)."""

    arm_a: str
    arm_b: str
    n_paired: int
    pass_rate_a: float | None = None
    pass_rate_b: float | None = None
    delta_pass_rate: float | None = None
    only_a_passed: int = 0
    only_b_passed: int = 0
    mcnemar_p: float | None = None
    n_paired_f1: int = 0
    delta_f1: float | None = None
    delta_f1_ci: tuple[float, float] | None = None
    paired_by: str = "task and serving model"


class ScoreSummary(BaseModel):
    """Everything ``judgekit score`` computes."""

    results: list[ScoredResult]
    arms: dict[str, ArmStats]
    comparisons: list[Comparison]
    warnings: list[str] = Field(default_factory=list)
    seed: int
