"""Scores over what the agent was asked to change: the fix's tests (withheld from the agent by
the runner) and documentation/changelog files are left out of `*_source` scores."""

from __future__ import annotations

import re

import pytest

from judgekit import load_runs, score
from judgekit.execute.testfiles import is_test_path as runner_is_test_path
from judgekit.ingest.models import RunResult, Task
from judgekit.scoring.files import is_doc_path, is_test_path, source_files

RUN = "20260210-205259-0f6c"  # flask-vary-cookie (8646edca), bobbin's flask-001


def _sections(diff: str) -> list[str]:
    return [s for s in re.split(r"(?m)^(?=diff --git )", diff) if s]


def test_oracle_of_the_non_test_part_scores_one_on_source(bobbin_dir):
    (truth_run,) = [r for r in load_runs(bobbin_dir / RUN) if r.arm == "no-bobbin"]
    truth = truth_run.ground_truth_diff
    assert truth is not None
    oracle = "".join(s for s in _sections(truth) if "src/flask/sessions.py" in s.splitlines()[0])
    result = truth_run.model_copy(update={"agent_diff": oracle})
    (row,) = score([result]).results
    assert row.ground_truth_files == ["CHANGES.rst", "src/flask/sessions.py",
                                      "tests/test_basic.py"]
    assert row.f1 == pytest.approx(0.5) and row.recall == pytest.approx(1 / 3)  # whole commit
    assert (row.precision_source, row.recall_source, row.f1_source) == (1.0, 1.0, 1.0)


def test_suite_globs_decide_what_is_a_test():
    diff = ("diff --git a/src/app.py b/src/app.py\n--- a/src/app.py\n+++ b/src/app.py\n"
            "@@ -1 +1 @@\n-a\n+b\n"
            "diff --git a/checks/run_me.py b/checks/run_me.py\n--- a/checks/run_me.py\n"
            "+++ b/checks/run_me.py\n@@ -1 +1 @@\n-a\n+b\n")
    task = Task(id="t", test_files=["checks/*"])
    (row,) = score([RunResult(task=task, arm="a", agent_diff=diff.split("diff --git a/checks")[0],
                              ground_truth_diff=diff)]).results
    assert row.f1_source == 1.0 and row.f1 < 1.0


@pytest.mark.parametrize("path", [
    "tests/test_basic.py", "crates/x/resources/test/fixtures/a.py", "pkg/foo_test.go",
    "src/lib_tests.rs", "snap/x.snap", "web/a.spec.ts", "conftest.py", "src/app.py",
    "crates/ruff/src/lib.rs", "testing/helpers.py", "docs/conf.py"])
def test_test_rule_is_the_runners(path):
    assert is_test_path(path) == runner_is_test_path(path)


@pytest.mark.parametrize("path,doc", [
    ("CHANGES.rst", True), ("CHANGELOG.md", True), ("docs/api.rst", True),
    ("changelogs/0.14.x.md", True), ("README.md", True), ("HISTORY", True),
    ("src/flask/sessions.py", False), ("crates/ruff/src/lib.rs", False),
    ("requirements.txt", False)])
def test_doc_rule(path, doc):
    assert is_doc_path(path) is doc


def test_source_files():
    assert source_files(["src/a.py", "tests/test_a.py", "CHANGES.rst", "src/a.py"]) == ["src/a.py"]


def test_arm_means_and_intervals_for_both(bobbin_dir):
    summary = score(load_runs(bobbin_dir))
    for arm in summary.arms.values():
        assert arm.f1 is not None and arm.f1_source is not None
        assert arm.f1_ci is not None and arm.f1_source_ci is not None
        assert arm.n_scored_source == arm.n_scored_files
        lo, hi = arm.f1_source_ci
        assert lo <= arm.f1_source <= hi
