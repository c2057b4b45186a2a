"""Test status from evidence: `vacuous` needs output (or a structured count) showing zero tests
ran; a harness-claimed pass with nothing to check is `unknown`, and per arm the range that
unknowns leave open is reported."""

from __future__ import annotations

from pathlib import Path

from judgekit import load_runs, score
from judgekit.ingest.models import RunResult, Task, TestCounts, TestResult
from judgekit.scoring.outcomes import NO_OUTPUT_PASS, classify

LATER = Path(__file__).parent.parent / "ingest" / "fixtures" / "bobbin_later"
CARGO_ZERO = ("running 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; "
              "53 filtered out; finished in 0.00s\n")


def _result(test: TestResult | None, *, arm: str = "a", success: bool | None = None,
            task: str = "t1") -> RunResult:
    return RunResult(task=Task(id=task, test_command="cargo test -p x"), arm=arm, test=test,
                     success=success)


def test_pass_without_output_is_unknown_with_reason():
    outcome = classify(TestResult(exit_code=0, output=None))
    assert (outcome.status, outcome.reason) == ("unknown", NO_OUTPUT_PASS)
    assert classify(TestResult(exit_code=0, output="   \n")).status == "unknown"


def test_vacuous_needs_output_showing_zero_tests():
    assert classify(TestResult(exit_code=0, output=CARGO_ZERO),
                    test_command="cargo test").status == "vacuous"
    # a structured count from the harness itself is evidence too
    assert classify(TestResult(exit_code=0, counts=TestCounts(total=0))).status == "vacuous"


def test_failure_without_output_is_failed_not_error():
    outcome = classify(TestResult(exit_code=1, output=None))
    assert outcome.status == "failed" and "no test output kept" in outcome.reason


def test_benchmark_verdict_decides_without_a_test_run():
    assert classify(None, success=True).status == "passed"
    assert classify(None, success=False).reason == "benchmark verdict"
    # a test run, when present, decides
    assert classify(TestResult(exit_code=1, output="1 failed in 0.1s"), success=True).status \
        == "failed"


def test_arm_reports_the_range_unknowns_leave_open():
    results = [_result(TestResult(exit_code=0, output="3 passed in 0.2s")),
               _result(TestResult(exit_code=0)), _result(TestResult(exit_code=0)),
               _result(TestResult(exit_code=1, output="1 failed in 0.1s"))]
    summary = score(results)
    arm = summary.arms["a"]
    assert (arm.n_passed, arm.n_unknown, arm.pass_rate, arm.pass_rate_upper) == (1, 2, 0.25, 0.75)
    (line,) = [w for w in summary.warnings if w.startswith("arm 'a'")]
    assert "2 of 4" in line and "25.0%" in line and "75.0%" in line


def test_bobbin_zero_count_over_real_cargo_output_is_a_pass():
    """A later real bobbin run kept its output: cargo ran 97 tests; bobbin recorded 0."""
    (ruff,) = [r for r in score(load_runs(LATER)).results if r.task_id == "ruff-005"]
    assert ruff.test_status == "passed" and ruff.tests_run == 97 and ruff.framework == "cargo"


def test_every_vacuous_result_has_output_showing_zero_tests(bobbin_dir):
    runs = load_runs([bobbin_dir, LATER])
    by_key = {(r.run_id, r.task_id, r.arm, r.attempt): r for r in runs}
    for row in score(runs).results:
        if row.test_status == "vacuous":
            test = by_key[(row.run_id, row.task_id, row.arm, row.attempt)].test
            assert test is not None and (test.output or test.counts is not None)
