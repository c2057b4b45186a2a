from __future__ import annotations

from judgekit.audit import AuditRecord, aggregate_tasks, majority_score
from judgekit.audit.aggregate import SampleOutcome, combine_samples
from tests.audit.helpers import agent_verdict, defect_verdict


def sample(verdict: dict | None, state: str = "valid", dtype: str = "none") -> SampleOutcome:
    return SampleOutcome(state=state, verdict=verdict, deficiency_type=dtype,
                         evidence_verified=True, tries=1)


def record(task: str, score: int | None, dtype: str = "Flaky Tests", arm: str = "a",
           state: str = "valid") -> AuditRecord:
    verdict = None if score is None else (defect_verdict() if score else agent_verdict())
    return AuditRecord(task_id=task, arm=arm, attempt=0, test_status="failed", state=state,
                       verdict=verdict, deficiency_type=dtype if score else "none")


def test_majority_and_agreement() -> None:
    assert majority_score([1, 1, 0]) == (1, 0.6667)
    assert majority_score([0, 0, 0, 1]) == (0, 0.75)
    assert majority_score([1, 0]) == (0, 0.5)  # a tie does not make a defect claim


def test_samples_combine_to_the_majority_verdict_and_its_most_common_type() -> None:
    fields = combine_samples([
        sample(defect_verdict(), dtype="Flaky Tests"), sample(agent_verdict()),
        sample(defect_verdict(), dtype="Flaky Tests"),
        sample(None, state="unscored")])
    assert fields["state"] == "valid" and fields["verdict"].score == 1
    assert fields["deficiency_type"] == "Flaky Tests"
    assert fields["agreement"] == 0.6667 and fields["samples"] == 4 and fields["tries"] == 4
    assert fields["sample_scores"] == [1, 0, 1, None]


def test_samples_without_a_valid_verdict_are_unscored() -> None:
    fields = combine_samples([sample(None, state="unscored"), sample(None, state="error")])
    assert fields["state"] == "unscored" and fields["verdict"] is None
    assert combine_samples([sample(None, state="error")])["state"] == "error"


def test_several_runs_blaming_the_same_defect_make_a_suspected_task() -> None:
    tasks = aggregate_tasks([
        record("t1", 1, arm="a"), record("t1", 1, arm="b"), record("t1", 0, arm="c"),
        record("t2", 1), record("t2", 0, arm="b"),
        record("t3", 1, "Flaky Tests"), record("t3", 1, "Missing Toolchain", arm="b"),
        record("t4", None, state="unscored"), record("t4", 1, arm="b")])
    assert tasks[0].task_id == "t1" and tasks[0].suspected
    assert tasks[0].suspected_type == "Flaky Tests"
    assert [r.arm for r in tasks[0].runs] == ["a", "b"]
    assert [t.task_id for t in tasks if t.suspected] == ["t1"]
    t4 = next(t for t in tasks if t.task_id == "t4")
    assert (t4.n_audited, t4.n_valid, t4.n_ife) == (2, 1, 1)


def test_a_passing_run_clears_the_suspicion() -> None:
    records = [record("t1", 1, arm="a"), record("t1", 1, arm="b")]
    assert aggregate_tasks(records)[0].suspected
    assert not aggregate_tasks(records, passed={"t1": 1})[0].suspected


def test_min_runs_can_be_lowered_to_one() -> None:
    assert aggregate_tasks([record("t1", 1)], min_runs=1)[0].suspected
    assert not aggregate_tasks([record("t1", 1)])[0].suspected
