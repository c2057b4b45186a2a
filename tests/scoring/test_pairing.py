"""Pairing a statistician would accept: harness failures excluded and counted, pairs of the
same task, model and attempt, within a run batch first, and task-level tests when a task has
several attempts."""

from __future__ import annotations

from judgekit import score
from judgekit.ingest.models import RunResult, Task, TestResult
from judgekit.scoring.arms import MCNEMAR, SIGN_FLIP

PASS = TestResult(exit_code=0, output="2 passed in 0.1s")
FAIL = TestResult(exit_code=1, output="1 failed, 1 passed in 0.1s")


def _r(task: str, arm: str, test: TestResult | None, *, attempt: int = 0, run: str = "r1",
       harness: str = "completed") -> RunResult:
    return RunResult(run_id=run, task=Task(id=task), arm=arm, attempt=attempt, test=test,
                     model="m", harness_status=harness, agent_diff="", ground_truth_diff="")


def test_harness_crashes_do_not_manufacture_a_difference():
    """17 tasks: on 10 the other arm's harness crashed before the agent ran. Over the pairs
    where both agents ran, both arms passed the same tasks: the difference is 0."""
    results = []
    for i in range(17):
        task = f"t{i:02d}"
        passes = i % 2 == 0
        results.append(_r(task, "a", PASS if passes else FAIL))
        if i < 10:
            results.append(_r(task, "b", None, harness="workspace_error"))
        else:
            results.append(_r(task, "b", PASS if passes else FAIL))
    (c,) = score(results).comparisons
    assert c.n_excluded_error == 10 and c.n_paired == 7
    assert c.delta_pass_rate == 0.0 and c.only_a_passed == c.only_b_passed == 0
    assert c.test == MCNEMAR and c.mcnemar_p == 1.0 and c.p_value == 1.0
    assert c.delta_pass_rate_ci == (0.0, 0.0)


def test_no_pair_contains_an_error_and_attempts_must_match():
    results = [_r("t", "a", PASS, attempt=0), _r("t", "a", PASS, attempt=1),
               _r("t", "b", FAIL, attempt=1), _r("t", "b", FAIL, attempt=2),
               _r("u", "a", None, harness="bobbin_setup_error"), _r("u", "b", PASS)]
    (c,) = score(results).comparisons
    assert c.n_paired == 1 and c.n_excluded_error == 1
    assert c.n_unpaired_a == 1 and c.n_unpaired_b == 2  # attempt 0 of a; attempt 2 of b, u
    assert c.only_a_passed == 1


def test_pairs_form_within_a_batch_first_and_crossings_are_counted():
    results = [_r("t", "a", PASS, run="batch1"), _r("t", "b", FAIL, run="batch2"),
               _r("t", "a", FAIL, run="batch2"), _r("t", "b", PASS, run="batch3")]
    (c,) = score(results).comparisons
    # batch2 pairs a=FAIL with b=FAIL; the leftovers (batch1 a, batch3 b) cross batches
    assert c.n_paired == 2 and c.n_cross_batch == 1
    assert any("1 of 2 pairs join results from different run batches" in w
               for w in score(results).warnings)


def test_ten_attempts_per_task_are_not_ten_independent_pairs():
    results = []
    for t in range(3):
        for attempt in range(10):
            results.append(_r(f"t{t}", "a", PASS, attempt=attempt))
            results.append(_r(f"t{t}", "b", FAIL, attempt=attempt))
    (c,) = score(results).comparisons
    assert c.n_paired == 30 and c.n_tasks == 3
    assert c.test == SIGN_FLIP and c.mcnemar_p is None
    # three tasks can never give a p-value below 2 / 2**3 in a two-sided sign-flip test
    assert c.p_value == 0.25
    assert c.delta_pass_rate == 1.0 and c.delta_pass_rate_ci == (1.0, 1.0)


def test_task_level_interval_is_wide_when_tasks_disagree():
    results = []
    for t in range(12):
        for attempt in range(5):
            a_pass = t % 3 != 0
            results.append(_r(f"t{t}", "a", PASS if a_pass else FAIL, attempt=attempt))
            results.append(_r(f"t{t}", "b", FAIL if a_pass else PASS, attempt=attempt))
    (c,) = score(results).comparisons
    lo, hi = c.delta_pass_rate_ci
    assert lo < c.delta_pass_rate < hi and hi - lo > 0.3


def test_tasks_in_one_arm_only_are_listed_in_warnings():
    results = [_r("both", "a", PASS), _r("both", "b", PASS), _r("lonely", "a", PASS)]
    summary = score(results)
    (c,) = summary.comparisons
    assert c.tasks_only_a == ["lonely"] and c.tasks_only_b == []
    assert any("ran in arm 'a' but not in 'b'" in w and "lonely" in w for w in summary.warnings)


def test_example_pairs_exclude_the_harness_failure(bobbin_dir):
    from judgekit import load_runs

    (c,) = score(load_runs(bobbin_dir)).comparisons
    assert c.n_excluded_error == 1 and c.n_paired == 20
    assert c.delta_pass_rate_ci is not None and c.test
