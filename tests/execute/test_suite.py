"""Suite files: format, defaults, single-task files, repo forms, bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgekit.errors import InputError
from judgekit.execute import load_suite
from judgekit.ingest.suites import SuiteTask

ROOT = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, text: str, name: str = "s.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_defaults_are_merged_into_each_task_and_tasks_override_them(tmp_path: Path) -> None:
    path = write(tmp_path, """
name: demo
defaults: {repo: pallets/flask, language: python, tags: [bug-fix]}
tasks:
  - {id: a, commit: abcdef1, description: d, test_command: pytest}
  - {id: b, commit: abcdef2, description: d, test_command: pytest, language: rust}
""")
    suite = load_suite(path)
    assert suite.name == "demo"
    assert [t.language for t in suite.tasks] == ["python", "rust"]
    assert suite.tasks[0].repo == "pallets/flask" and suite.tasks[0].tags == ["bug-fix"]


def test_a_single_reference_style_task_file_is_a_suite_of_one(tmp_path: Path) -> None:
    path = write(tmp_path, """
id: flask-001
repo: pallets/flask
commit: 8646edca6f47e2cd57464081b3911218d4734f8d
description: |
  Something is wrong.
setup_command: "python3 -m venv .venv"
test_command: ".venv/bin/pytest tests/test_basic.py"
language: python
difficulty: medium
tags: [bug-fix, sessions]
""", name="flask-001.yaml")
    suite = load_suite(path)
    assert suite.name == "flask-001"
    assert [t.id for t in suite.tasks] == ["flask-001"]
    assert suite.tasks[0].setup_command == "python3 -m venv .venv"


@pytest.mark.parametrize(("repo", "url", "local"), [
    ("pallets/flask", "https://github.com/pallets/flask.git", False),
    ("https://example.org/x/y.git", "https://example.org/x/y.git", False),
    ("git@example.org:x/y.git", "git@example.org:x/y.git", False),
])
def test_remote_repo_forms(repo: str, url: str, local: bool) -> None:
    task = SuiteTask(id="t", repo=repo, commit="abcdef1", description="d", test_command="x")
    assert task.repo_source().url == url
    assert task.repo_source().local is local


def test_a_local_repo_path_is_resolved_relative_to_the_suite_file(tmp_path: Path) -> None:
    (tmp_path / "repos" / "calc").mkdir(parents=True)
    path = write(tmp_path, "name: s\ntasks:\n  - {id: a, repo: repos/calc, commit: abcdef1, "
                           "description: d, test_command: pytest}\n")
    source = load_suite(path).tasks[0].repo_source()
    assert source.local and source.url == str((tmp_path / "repos" / "calc").resolve())


@pytest.mark.parametrize(("text", "field"), [
    ("name: s\ntasks:\n  - {id: a, repo: r/r, commit: abcdef1, description: d}\n",
     "tasks[0].test_command"),
    ("name: s\ntasks:\n  - {id: a, repo: r/r, commit: xyz, description: d, test_command: t}\n",
     "tasks[0].commit"),
    ("name: s\ntasks:\n  - {id: a, repo: r/r, commit: abcdef1, description: d, "
     "test_command: t, colour: red}\n", "tasks[0].colour"),
    ("name: s\n", "tasks"),
    ("name: s\ndefaults: [1]\ntasks: []\n", "defaults"),
    ("name: s\ntasks:\n  - {id: a, repo: r/r, commit: abcdef1, description: d, test_command: t}"
     "\n  - {id: a, repo: r/r, commit: abcdef2, description: d, test_command: t}\n",
     "tasks[1].id"),
])
def test_bad_suites_name_the_file_and_the_field(tmp_path: Path, text: str, field: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(InputError) as info:
        load_suite(path)
    assert info.value.path == str(path)
    assert info.value.field == field


def test_invalid_yaml_is_an_input_error_with_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, "name: s\ntasks: [\n  - {id: a\n")
    with pytest.raises(InputError, match="invalid YAML at line"):
        load_suite(path)


def test_unknown_task_ids_in_a_selection_are_rejected(tmp_path: Path) -> None:
    path = write(tmp_path, "name: s\ntasks:\n  - {id: a, repo: r/r, commit: abcdef1, "
                           "description: d, test_command: t}\n")
    with pytest.raises(InputError, match="unknown task id"):
        load_suite(path).select(["a", "nope"])


@pytest.mark.parametrize("name", ["flask", "polars", "ruff"])
def test_shipped_suites_load_with_five_distinct_commits(name: str) -> None:
    suite = load_suite(ROOT / "suites" / f"{name}.yaml")
    assert suite.name == name
    assert len(suite.tasks) == 5
    assert len({t.commit for t in suite.tasks}) == 5
    assert all(len(t.commit) == 40 and t.description.strip() for t in suite.tasks)
