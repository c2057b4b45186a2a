"""A HAL upload whose task ids or agent name are not text is refused naming the field,
instead of turning into results with invented ids or arms."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from judgekit import load_runs
from judgekit.errors import InputError


def upload() -> dict[str, Any]:
    """A small GAIA-style upload: flat per-task records, calls with ``weave_task_id``."""
    def call(task: str, stamp: str) -> dict[str, Any]:
        return {"weave_task_id": task, "started_at": stamp,
                "inputs": {"messages": [{"role": "user", "content": f"question {task}"}]},
                "output": {"choices": [{"message": {"role": "assistant",
                                                    "content": "FINAL ANSWER: 3"}}]}}
    return {"config": {"agent_name": "generalist", "benchmark_name": "gaia",
                       "run_id": "gaia_generalist_1"},
            "results": {"accuracy": 0.5, "successful_tasks": ["t-1"], "failed_tasks": ["t-2"]},
            "raw_eval_results": {"t-1": {"score": 1.0}, "t-2": {"score": 0.0}},
            "raw_logging_results": [call("t-1", "2025-06-01T10:00:00Z"),
                                    call("t-2", "2025-06-01T10:01:00Z")]}


def test_the_well_formed_upload_loads(tmp_path: Path) -> None:
    path = tmp_path / "gaia_UPLOAD.json"  # the edits below each break one field of it
    path.write_text(json.dumps(upload()), encoding="utf-8")
    assert {(r.task_id, r.arm, r.success) for r in load_runs(path)} == {
        ("t-1", "generalist", True), ("t-2", "generalist", False)}


@pytest.mark.parametrize("edit, field", [
    (lambda d: d["raw_logging_results"][1].update(weave_task_id={"id": "t-2"}),
     "raw_logging_results[1].weave_task_id"),
    (lambda d: d["raw_logging_results"][0].update(weave_task_id=["t-1"]),
     "raw_logging_results[0].weave_task_id"),
    (lambda d: d["config"].update(agent_name=["generalist"]), "config.agent_name"),
    (lambda d: d["config"].update(benchmark_name={"name": "gaia"}), "config.benchmark_name"),
])
def test_non_text_ids_and_names_are_refused(tmp_path: Path, edit: Any, field: str) -> None:
    doc = upload()
    edit(doc)
    path = tmp_path / "gaia_UPLOAD.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_runs(path)
    assert info.value.field == field and info.value.path == str(path)


def test_integer_task_ids_are_kept_as_text(tmp_path: Path) -> None:
    doc = upload()
    doc["results"] = {"successful_tasks": [1], "failed_tasks": [2]}
    doc["raw_eval_results"] = {}
    for call, task in zip(doc["raw_logging_results"], (1, 2)):
        call["weave_task_id"] = task
    path = tmp_path / "usaco_UPLOAD.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    results = {r.task_id: r for r in load_runs(path)}
    assert {t: r.success for t, r in results.items()} == {"1": True, "2": False}
    assert "question t-2" in (results["2"].transcript or "")
