"""Honest test outcomes: a status per result, never a pass for zero executed tests.

``vacuous``: the test output (a framework's summary or its own "no tests" ending) or a
structured count shows that zero tests executed, whatever the exit code: pytest's exit 5,
unittest's ``NO TESTS RAN``, jest's ``No tests found``. It is a non-pass of the agent's
attempt, never a harness failure. ``error`` is the harness's alone: the run was marked as
failed before the agent could be judged (checkout, set-up, an agent that never started).
A test command that fails without any test summary (a crash, a command not found) ran after
the agent, so it is ``failed``, with the reason.

Example:
    >>> from judgekit.ingest.models import TestResult
    >>> out = "running 0 tests\\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 3 filtered out"
    >>> classify(TestResult(exit_code=0, output=out)).status
    'vacuous'
"""

from __future__ import annotations

from dataclasses import dataclass

from judgekit.ingest.models import RunResult, TestResult, TestStatus
from judgekit.scoring.parsers import Counts, framework_of_command, parse_output


@dataclass(frozen=True)
class Outcome:
    status: TestStatus
    framework: str | None
    tests_run: int | None
    reason: str


STRUCTURED_ZERO = "the result's structured count: 0 tests executed"
_NOT_STARTED = {126: "not executable", 127: "not found"}


def _counts_of(test: TestResult, command: str | None) -> Counts | None:
    framework = test.framework or framework_of_command(command)
    if test.output:
        parsed = parse_output(test.output, framework)
        if parsed is not None:
            return parsed
    if test.counts is not None:
        c = test.counts
        executed = c.total if c.total is not None else c.passed + c.failed + c.errors
        passed = max(executed - c.failed - c.errors, 0) if c.total is not None else c.passed
        return Counts(framework or "unknown", passed=passed, failed=c.failed, skipped=c.skipped,
                      errors=c.errors, evidence=STRUCTURED_ZERO if executed == 0 else "")
    return None


NO_OUTPUT_PASS = "harness says passed; no test output kept"
_REASON_CHARS = 200


def _one_line(text: str | None) -> str:
    """The first non-blank line of ``text``, clipped: a reason, not a log."""
    first = next((line.strip() for line in (text or "").splitlines() if line.strip()), "")
    return first if len(first) <= _REASON_CHARS else first[: _REASON_CHARS - 3] + "..."


def classify(
    test: TestResult | None,
    *,
    test_command: str | None = None,
    harness_failed: bool = False,
    harness_error: str | None = None,
    success: bool | None = None,
) -> Outcome:
    """Decide the honest status of one test run, from evidence only.

    ``vacuous`` needs evidence that zero tests executed: output that shows it, or a
    structured count; the exit code does not matter. A pass the harness claims without output
    to check is ``unknown``. Without a test run, the benchmark's own verdict (``success``)
    decides. ``error`` only when the harness failed.
    """
    if harness_failed:
        return Outcome("error", None, None, _one_line(harness_error)
                       or "the harness marked the run as failed")
    if test is None:
        if success is not None:
            return Outcome("passed" if success else "failed", None, None, "benchmark verdict")
        return Outcome("unknown", None, None, "no test run recorded")
    if test.timed_out:
        return Outcome("timeout", test.framework, None, "the test command timed out")
    counts = _counts_of(test, test_command)
    code = test.exit_code
    if counts is None:
        kept = bool(test.output and test.output.strip())
        if code is None:
            return Outcome("unknown", test.framework, None, "no exit code and no test counts")
        if code != 0:
            return Outcome("failed", test.framework, None, _failed_without_summary(test, code))
        if not kept:
            return Outcome("unknown", test.framework, None, NO_OUTPUT_PASS)
        return Outcome("unknown", test.framework, None,
                       "exit code 0 but no test summary found: cannot tell whether tests ran")
    fw, run = counts.framework, counts.total
    if run == 0:
        seen = " ".join(_one_line(counts.evidence or "its summary counts no executed test")
                        .split())
        exit_note = "" if code is None else f"; exit code {code}"
        return Outcome("vacuous", fw, 0, f"zero tests executed ({fw}: {seen}){exit_note}")
    if counts.failed or counts.errors:
        return Outcome("failed", fw, run, f"{counts.failed + counts.errors} of {run} "
                                          f"test{'s' if run != 1 else ''} failed")
    if code not in (None, 0):
        return Outcome("failed", fw, run, f"all {run} executed tests passed but exit code {code}")
    return Outcome("passed", fw, run, f"{run} test{'s' if run != 1 else ''} passed")


def _failed_without_summary(test: TestResult, code: int) -> str:
    """Why a test command that exited non-zero without a test summary is a non-pass."""
    first = _one_line(test.output)
    if code in _NOT_STARTED:
        said = f": {first}" if first else ""
        return (f"the test command did not start (exit code {code}, command "
                f"{_NOT_STARTED[code]}{said}), after the agent ran")
    if not first:
        return f"exit code {code}, no test output kept"
    return f"exit code {code}, no test summary in the output (first line: {first})"


def classify_result(result: RunResult) -> Outcome:
    """:func:`classify` applied to a run result."""
    return classify(result.test, test_command=result.task.test_command,
                    harness_failed=result.harness_failed, harness_error=result.harness_error,
                    success=result.success)
