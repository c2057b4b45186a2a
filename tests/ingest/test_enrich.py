"""--tasks: suite files fill task fields that result files leave out, matched by commit."""

import json

import pytest

from judgekit import load_runs
from judgekit.errors import InputError
from judgekit.ingest.enrich import enrich_tasks
from tests.clirun import judgekit

SUITE = """name: demo
defaults: {language: python}
tasks:
  - id: local-name
    repo: o/r
    commit: 8646edca6f47e2cd57464081b3911218d4734f8d
    description: The Vary header is missing when the session is only read.
    test_command: pytest tests/test_basic.py
    tags: [sessions]
"""


def test_bobbin_results_gain_descriptions_by_fix_commit(bobbin_dir, tmp_path):
    (tmp_path / "demo.yaml").write_text(SUITE)
    runs = load_runs(bobbin_dir)
    assert all(r.task.description is None for r in runs)
    changed = enrich_tasks(runs, [tmp_path])
    flask_001 = [r for r in runs if r.task_id == "flask-001"]
    assert changed.filled == len(flask_001) > 0
    for r in flask_001:
        assert r.task.description.startswith("The Vary header")
        assert r.task.test_command.startswith(".venv/bin/pytest")  # kept, not overwritten
        assert r.task.tags == ["sessions"]
    assert all(r.task.description is None for r in runs if r.task_id != "flask-001")


def test_results_without_commit_match_by_task_id(tmp_path):
    (tmp_path / "demo.yaml").write_text(SUITE)
    row = {"task": {"id": "local-name"}, "arm": "a", "agent_diff": ""}
    (tmp_path / "r.jsonl").write_text(json.dumps(row) + "\n")
    runs = load_runs(tmp_path / "r.jsonl")
    assert enrich_tasks(runs, [tmp_path / "demo.yaml"]).filled == 1
    assert runs[0].task.language == "python"


def test_missing_suite_path_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        enrich_tasks([], [tmp_path / "absent.yaml"])


def test_cli_tasks_option_reaches_the_report(bobbin_dir, tmp_path):
    (tmp_path / "demo.yaml").write_text(SUITE)
    out = tmp_path / "out"
    proc = judgekit("score", bobbin_dir, "--tasks", tmp_path / "demo.yaml", "--out", out,
                    "--no-similarity")
    assert proc.returncode == 0, proc.stderr
    runs = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]
    described = {r["task"]["id"] for r in runs if r["task"].get("description")}
    assert described == {"flask-001"}
