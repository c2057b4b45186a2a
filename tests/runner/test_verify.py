"""``judgekit suite verify``: broken tasks are flagged with the reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgekit.cli import main

from .conftest import PY, TEST_CMD, Project, write_suite


def verify(suite: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[dict]]:
    capsys.readouterr()
    code = main(["suite", "verify", str(suite), "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_a_good_task_is_ok(suite_file: Path, capsys) -> None:
    code, checks = verify(suite_file, capsys)
    assert code == 0
    assert checks == [{"task_id": "calc-001", "ok": True, "problems": [],
                       "at_parent": "failed", "with_fix": "passed",
                       "tests_at_parent": 2, "tests_with_fix": 2}]


def test_a_task_whose_test_command_runs_zero_tests_is_not_ok(project: Project, tmp_path,
                                                             capsys) -> None:
    suite = write_suite(tmp_path / "s.yaml", project, test_command=f"{TEST_CMD} -k nothing")
    code, (check,) = verify(suite, capsys)
    assert code == 1 and check["ok"] is False
    assert any("zero tests" in p for p in check["problems"])


def test_a_task_whose_tests_pass_at_the_parent_is_not_ok(project: Project, tmp_path,
                                                         capsys) -> None:
    suite = write_suite(tmp_path / "s.yaml", project,
                        test_command=f"{TEST_CMD}::test_neg")
    code, (check,) = verify(suite, capsys)
    assert code == 1 and check["ok"] is False
    assert check["at_parent"] == "passed"
    assert any("pass at the parent" in p for p in check["problems"])


def test_a_broken_setup_command_is_reported(project: Project, tmp_path, capsys) -> None:
    suite = write_suite(tmp_path / "s.yaml", project, setup_command="no-such-installer -q")
    code, (check,) = verify(suite, capsys)
    assert code == 1 and check["ok"] is False
    assert check["problems"][0].startswith("setup: setup command exited with 127")


def test_a_missing_test_runner_is_not_mistaken_for_a_failing_test(project: Project,
                                                                 tmp_path, capsys) -> None:
    suite = write_suite(tmp_path / "s.yaml", project,
                        test_command=".venv/bin/pytest tests/test_calc.py")
    code, (check,) = verify(suite, capsys)
    assert code == 1 and check["ok"] is False
    assert any("without a test summary" in p for p in check["problems"])


def test_a_setup_that_writes_files_verifies_and_a_missing_commit_is_reported(
        project: Project, tmp_path, capsys) -> None:
    good = write_suite(tmp_path / "a.yaml", project,
                       setup_command=f"{PY} -c \"open('setup-made.txt','w').write('x')\"")
    code, (check,) = verify(good, capsys)
    assert code == 0 and check["ok"], check["problems"]
    bad = write_suite(tmp_path / "b.yaml", project, commit="0123456789" * 4)
    code, (check,) = verify(bad, capsys)
    assert code == 1 and check["problems"][0].startswith("checkout:")
