"""Each test-runner parser on real-looking output, and the honest status it leads to."""

from judgekit.ingest.models import TestCounts, TestResult
from judgekit.scoring.outcomes import classify
from judgekit.scoring.parsers import parse_output

CARGO_FILTERED = """   Compiling ruff_python_formatter v0.0.0
    Finished `test` profile [unoptimized + debuginfo] target(s) in 41.20s
     Running unittests src/lib.rs (target/debug/deps/ruff_python_formatter-1a2b)

running 0 tests

test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 412 filtered out; finished in 0.00s

     Running tests/fixtures.rs (target/debug/deps/fixtures-3c4d)

running 0 tests

test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 2 filtered out; finished in 0.00s

   Doc-tests ruff_python_formatter

running 0 tests

test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 7 filtered out; finished in 0.00s
"""

CARGO_MANY_BINARIES = """     Running unittests src/lib.rs (target/debug/deps/a-1)

running 3 tests
test a::one ... ok
test a::two ... ok
test a::three ... ignored

test result: ok. 2 passed; 0 failed; 1 ignored; 0 measured; 40 filtered out; finished in 0.01s

     Running tests/integration.rs (target/debug/deps/integration-2)

running 2 tests
test it_works ... ok
test it_fails ... FAILED

failures:

---- it_fails stdout ----
thread 'it_fails' panicked at tests/integration.rs:9:5

test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.02s

error: test failed, to rerun pass `--test integration`
"""

CARGO_COMPILE_ERROR = """   Compiling ruff_linter v0.0.0
error[E0425]: cannot find value `x` in this scope
 --> crates/ruff_linter/src/lib.rs:3:5
error: could not compile `ruff_linter` (lib test) due to 1 previous error
"""

NEXTEST = """    Starting 12 tests across 3 binaries (40 skipped)
        PASS [   0.010s] ruff::a
     Summary [   0.200s] 12 tests run: 11 passed, 1 failed, 40 skipped
"""

PYTEST_PASS = """============================= test session starts ==============================
collected 52 items / 40 deselected / 12 selected

tests/test_basic.py ............                                         [100%]

====================== 12 passed, 40 deselected in 0.41s =======================
"""

PYTEST_FAIL = """tests/test_basic.py ..F.                                                 [100%]
=================================== FAILURES ===================================
=========================== short test summary info ============================
FAILED tests/test_basic.py::test_session_vary_cookie - AssertionError
==================== 1 failed, 3 passed, 1 skipped in 0.52s ====================
"""

PYTEST_NONE = """============================= test session starts ==============================
collected 52 items / 52 deselected
=========================== 52 deselected in 0.10s ============================
"""

PYTEST_COLLECT_ERROR = """==================================== ERRORS ====================================
_____________________ ERROR collecting tests/test_basic.py _____________________
ImportError while importing test module
=========================== short test summary info ============================
ERROR tests/test_basic.py
!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!!
=============================== 1 error in 0.20s ===============================
"""

GO_VERBOSE = """=== RUN   TestParse
--- PASS: TestParse (0.00s)
=== RUN   TestBroken
    parse_test.go:20: got 1, want 2
--- FAIL: TestBroken (0.00s)
FAIL
FAIL\texample.com/pkg\t0.012s
"""

GO_QUIET_OK = "ok  \texample.com/pkg\t0.015s\n?   \texample.com/cmd\t[no test files]\n"
GO_NO_TESTS = "ok  \texample.com/pkg\t0.004s [no tests to run]\n"

JEST = """PASS src/a.test.js
FAIL src/b.test.js
Tests:       1 failed, 2 passed, 3 total
Snapshots:   0 total
Time:        1.2 s
"""

VITEST = """ ✓ src/sum.test.ts (2 tests) 3ms

 Test Files  1 passed (1)
      Tests  2 passed (2)
   Start at  10:00:00
"""

UNITTEST_OK = """...
----------------------------------------------------------------------
Ran 3 tests in 0.002s

OK (skipped=1)
"""

UNITTEST_FAIL = """.F.E
----------------------------------------------------------------------
Ran 4 tests in 0.003s

FAILED (failures=1, errors=1)
"""

UNITTEST_NONE = """
----------------------------------------------------------------------
Ran 0 tests in 0.000s

NO TESTS RAN
"""


def status(output, exit_code=0, command=None):
    return classify(TestResult(exit_code=exit_code, output=output), test_command=command).status


def test_cargo_filtered_out_in_every_binary_is_vacuous_not_passed():
    counts = parse_output(CARGO_FILTERED)
    assert counts.framework == "cargo" and counts.total == 0
    assert status(CARGO_FILTERED, 0, "cargo test -p ruff_python_formatter -- except") == "vacuous"


def test_cargo_sums_every_test_binary():
    counts = parse_output(CARGO_MANY_BINARIES, "cargo")
    assert (counts.passed, counts.failed, counts.skipped, counts.total) == (3, 1, 1, 4)
    assert status(CARGO_MANY_BINARIES, 101) == "failed"


def test_cargo_compile_error_is_failed_not_parsed_as_pytest():
    assert parse_output(CARGO_COMPILE_ERROR) is None
    assert status(CARGO_COMPILE_ERROR, 101, "cargo test") == "failed"


def test_nextest_summary():
    counts = parse_output(NEXTEST)
    assert (counts.framework, counts.passed, counts.failed) == ("cargo", 11, 1)


def test_pytest_pass_with_deselected():
    counts = parse_output(PYTEST_PASS)
    assert (counts.framework, counts.passed, counts.total) == ("pytest", 12, 12)
    assert status(PYTEST_PASS) == "passed"


def test_pytest_failure():
    counts = parse_output(PYTEST_FAIL)
    assert (counts.passed, counts.failed, counts.skipped) == (3, 1, 1)
    assert status(PYTEST_FAIL, 1) == "failed"


def test_pytest_everything_deselected_is_vacuous_whatever_the_exit_code():
    assert parse_output(PYTEST_NONE).total == 0
    assert status(PYTEST_NONE, 5) == "vacuous"
    assert status(PYTEST_NONE, 0) == "vacuous"
    reason = classify(TestResult(exit_code=5, output=PYTEST_NONE)).reason
    assert reason == "zero tests executed (pytest: 52 deselected in 0.10s); exit code 5"


def test_pytest_collection_error():
    counts = parse_output(PYTEST_COLLECT_ERROR)
    assert counts.errors == 1
    assert status(PYTEST_COLLECT_ERROR, 2) == "failed"


def test_go_verbose():
    counts = parse_output(GO_VERBOSE, "go")
    assert (counts.framework, counts.passed, counts.failed) == ("go", 1, 1)
    assert status(GO_VERBOSE, 1, "go test ./...") == "failed"


def test_go_quiet_counts_packages_and_no_tests_is_vacuous():
    assert status(GO_QUIET_OK, 0, "go test ./...") == "passed"
    assert parse_output(GO_NO_TESTS, "go").total == 0
    assert status(GO_NO_TESTS, 0, "go test -run TestNothing ./...") == "vacuous"


def test_jest_and_vitest():
    jest = parse_output(JEST)
    assert (jest.framework, jest.passed, jest.failed) == ("jest", 2, 1)
    vitest = parse_output(VITEST)
    assert (vitest.framework, vitest.passed) == ("vitest", 2)
    assert status(VITEST, 0, "npx vitest run") == "passed"


def test_unittest_variants():
    ok = parse_output(UNITTEST_OK)
    assert (ok.framework, ok.passed, ok.skipped) == ("unittest", 2, 1)
    bad = parse_output(UNITTEST_FAIL)
    assert (bad.passed, bad.failed, bad.errors) == (2, 1, 1)
    assert status(UNITTEST_NONE, 5, "python -m unittest") == "vacuous"
    assert status(UNITTEST_NONE, 0, "python -m unittest") == "vacuous"


def test_timeout_and_missing_test_and_harness_failure():
    assert classify(TestResult(exit_code=None, timed_out=True, output=PYTEST_PASS)).status == \
        "timeout"
    assert classify(None).status == "unknown"
    assert classify(TestResult(exit_code=0), harness_failed=True).status == "error"


def test_exit_zero_without_any_summary_is_unknown_not_passed():
    assert status("everything is fine\n", 0, "make check") == "unknown"


def test_counts_without_output():
    zero = TestResult(exit_code=0, counts=TestCounts(total=0))
    assert classify(zero).status == "vacuous"
    failing = TestResult(exit_code=1, counts=TestCounts(failed=1, total=1))
    assert classify(failing).status == "failed"
    passing = TestResult(exit_code=0, counts=TestCounts(passed=4, total=4))
    assert classify(passing).status == "passed"


# Endings seen on the real tools (jest 30.5.2, vitest 4.1.12, cargo 1.95.0, go 1.19.8,
# node 20.20.2, pytest 9.0.3), kept here so each parser is checked where the tool is absent.
VITEST_NO_FILES = ("\n\x1b[1m\x1b[30m\x1b[46m RUN \x1b[49m\x1b[39m\x1b[22m \x1b[36mv4.1.12 "
                   "\x1b[39m\x1b[90m/tmp/p\x1b[39m\n\n\x1b[31mNo test files found, exiting with "
                   "code 1\n\x1b[39m\n")
VITEST_EMPTY_FILE = (" FAIL  sum.test.js [ sum.test.js ]\nError: No test suite found in file "
                     "sum.test.js\n\n Test Files  1 failed (1)\n      Tests  no tests\n")
JEST_EMPTY_FILE = ("FAIL ./sum.test.js\n  \u25cf Test suite failed to run\n\n    Your test suite "
                   "must contain at least one test.\n\nTest Suites: 1 failed, 1 total\n"
                   "Tests:       0 total\nSnapshots:   0 total\n")
CARGO_NO_TARGET = "error: no test target named `gone` in default-run packages\n"
GO_NO_PACKAGES = 'go: warning: "./sub/..." matched no packages\nno packages to test\n'
NEXTEST_NONE = ("    Starting 0 tests across 1 binary (3 tests skipped)\n"
                "     Summary [   0.004s] 0 tests run: 0 passed, 3 skipped\n"
                "error: no tests to run\n")
NODE_SPEC_NONE = "\u2139 tests 0\n\u2139 suites 0\n\u2139 pass 0\n\u2139 fail 0\n"
PYTEST_PATH_GONE = "\nno tests ran in 0.90s\nERROR: file or directory not found: tests/x.py\n\n"


def test_no_test_endings_are_vacuous_whatever_the_exit_code():
    for output, code, framework in ((VITEST_NO_FILES, 1, "vitest"),
                                    (CARGO_NO_TARGET, 101, "cargo"), (GO_NO_PACKAGES, 1, "go"),
                                    (NEXTEST_NONE, 4, "cargo"), (NODE_SPEC_NONE, 0, "node"),
                                    (PYTEST_PATH_GONE, 4, "pytest")):
        outcome = classify(TestResult(exit_code=code, output=output))
        assert (outcome.status, outcome.framework, outcome.tests_run) == ("vacuous", framework, 0)
        assert outcome.reason.endswith(f"; exit code {code}")
    vitest = classify(TestResult(exit_code=1, output=VITEST_NO_FILES)).reason
    assert vitest == ("zero tests executed (vitest: No test files found, exiting with code 1); "
                      "exit code 1")


def test_a_test_file_that_cannot_run_is_failed_not_vacuous():
    for output in (JEST_EMPTY_FILE, VITEST_EMPTY_FILE):
        counts = parse_output(output)
        assert (counts.total, counts.errors) == (1, 1)
        assert classify(TestResult(exit_code=1, output=output)).status == "failed"


def test_a_test_command_that_did_not_start_is_failed_with_the_reason():
    outcome = classify(TestResult(exit_code=127, output="sh: 1: pytest: not found\n"))
    assert outcome.status == "failed"
    assert outcome.reason == ("the test command did not start (exit code 127, command not "
                              "found: sh: 1: pytest: not found), after the agent ran")
    crash = classify(TestResult(exit_code=139, output="Segmentation fault\n"))
    assert (crash.status, crash.reason) == (
        "failed", "exit code 139, no test summary in the output (first line: Segmentation fault)")
