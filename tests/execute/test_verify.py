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


def test_verify_reads_a_prepared_mirror_dir_offline_and_filters_tasks(
        project: Project, tmp_path: Path, capsys) -> None:
    """A mirror laid out as the docs say serves a remote repository without any network."""
    import subprocess

    import yaml

    mirrors = tmp_path / "mirrors"
    mirrors.mkdir()
    subprocess.run(["git", "clone", "-q", "--mirror", str(project.path),
                    str(mirrors / "example.invalid+owner+calc.git")], check=True)
    suite = write_suite(tmp_path / "s.yaml", project,
                        repo="https://example.invalid/owner/calc.git")
    doc = yaml.safe_load(suite.read_text())
    doc["tasks"].append({**doc["tasks"][0], "id": "calc-broken", "commit": "f" * 40})
    suite.write_text(yaml.safe_dump(doc))
    capsys.readouterr()
    code = main(["suite", "verify", str(suite), "--json", "--tasks", "calc-001",
                 "--mirror-dir", str(mirrors)])
    checks = json.loads(capsys.readouterr().out)
    assert code == 0 and [(c["task_id"], c["ok"]) for c in checks] == [("calc-001", True)]
    assert sorted(p.name for p in mirrors.iterdir()) == [
        "example.invalid+owner+calc.git", "example.invalid+owner+calc.git.lock"]
    assert main(["suite", "verify", str(suite), "--tasks", "nope", "--mirror-dir",
                 str(mirrors)]) == 2


def test_sigterm_stops_verification_and_its_setup_command(project: Project, tmp_path) -> None:
    """A running setup (a pip install in real suites) does not outlive judgekit."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from .conftest import sleepers

    token = f"7{os.getpid()}{time.monotonic_ns() % 10**6}"
    suite = write_suite(tmp_path / "s.yaml", project, setup_command=f"sleep 2{token}")

    def alive() -> bool:
        return bool(sleepers(token))

    proc = subprocess.Popen([sys.executable, "-m", "judgekit", "suite", "verify", str(suite)],
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not alive() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert alive(), "the setup command never started"
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143, err
    assert not alive()
    assert err.strip().splitlines()[-1] == "judgekit: verification stopped before the end"
