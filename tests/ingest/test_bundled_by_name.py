"""The bundled example and suites are reachable from any directory: ``example_path()``,
and ``--tasks suites`` / ``--tasks flask`` (``tasks=["suites"]`` in Python), a real path of
that name winning."""

from __future__ import annotations

import json
import os
import shutil
import sys
import subprocess
from pathlib import Path

import pytest

import judgekit
from judgekit.errors import InputError
from judgekit.ingest.suites import find_suite, load_suite
from tests.clirun import ROOT, judgekit as run_cli

ELSEWHERE_ENV = {"PYTHONPATH": str(ROOT)}


def test_example_path_is_the_bundled_runs_from_any_directory(tmp_path: Path) -> None:
    code = ("import judgekit; runs = judgekit.load_runs([judgekit.example_path()]); "
            "print(len(runs))")
    env = {**os.environ, **ELSEWHERE_ENV}
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "46"
    assert (ROOT / "examples" / "bobbin").resolve() == judgekit.example_path().resolve()


@pytest.mark.parametrize(("name", "filled"), [("suites", 46), ("flask", 5),
                                              ("suites/flask.yaml", 5), ("example", 46)])
def test_tasks_names_a_bundled_suite_from_an_empty_directory(
        tmp_path: Path, name: str, filled: int) -> None:
    done = run_cli("score", judgekit.example_path(), "--tasks", name, cwd=tmp_path,
                   env=ELSEWHERE_ENV)
    assert done.returncode == 0, done.stderr
    assert f"--tasks: filled {filled} of 46 results" in done.stderr


def test_every_result_of_the_example_has_its_task(tmp_path: Path) -> None:
    done = run_cli("score", judgekit.example_path(), "--tasks", "suites", "--json",
                   cwd=tmp_path, env=ELSEWHERE_ENV)
    assert done.returncode == 0, done.stderr
    assert "--tasks: filled 46 of 46 results\n" in done.stderr
    assert "no task found" not in done.stderr
    results = json.loads(done.stdout)["results"]
    assert len(results) == 46 and all(r["repo"] for r in results)
    runs = judgekit.load_runs([judgekit.example_path()])
    from judgekit.ingest.enrich import enrich_tasks

    enrich_tasks(runs, ["suites"])
    assert all(r.task.description and r.task.test_command for r in runs)


def test_tasks_by_name_in_python(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for name, filled in (("suites", 46), ("flask", 5)):
        result = judgekit.evaluate([judgekit.example_path()], tasks=[name])
        assert result.enrichment is not None and result.enrichment.filled == filled


def test_a_real_path_of_that_name_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mine = tmp_path / "flask"
    mine.mkdir()
    shutil.copy(ROOT / "suites" / "ruff.yaml", mine / "ruff.yaml")
    monkeypatch.chdir(tmp_path)
    assert find_suite("flask") == Path("flask")
    result = judgekit.evaluate([judgekit.example_path()], tasks=["flask"])
    assert result.enrichment is not None and result.enrichment.filled == 16  # ruff's tasks


def test_an_unknown_name_is_one_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="nor a bundled suite"):
        load_suite(tmp_path / "nope.yaml")
    done = run_cli("score", judgekit.example_path(), "--tasks", "nope", cwd=tmp_path,
                   env=ELSEWHERE_ENV)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "judgekit: error: nope: no such file or directory, nor a bundled suite "
        "(suites, example, flask, polars, ruff)"]


def test_run_and_suite_verify_read_a_bundled_suite_by_path_or_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert load_suite("suites/flask.yaml").name == load_suite("flask").name == \
        load_suite(ROOT / "suites" / "flask.yaml").name
