"""What a streamed score keeps (a million of them must fit in memory): equal lists of files
are one list, and none of that shows in what a score holds, says or serialises, nor lets one
score change another."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgekit.ingest.load import load_runs
from judgekit.scoring.models import ScoredResult
from judgekit.scoring.score import score_result
from judgekit.scoring.stream import iter_scored

DIFF = ("diff --git a/src/m{m}.py b/src/m{m}.py\n--- a/src/m{m}.py\n+++ b/src/m{m}.py\n"
        "@@ -1 +1 @@\n-a = {m}\n+a = 2\n")


@pytest.fixture()
def run(tmp_path: Path) -> Path:
    path = tmp_path / "run.jsonl"
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(12):
            row = {"run_id": "r1", "task": {"id": f"t{i // 2}", "repo": "org/repo"},
                   "arm": ("a", "b")[i % 2], "attempt": 0,
                   "agent_diff": DIFF.format(m=i % 3), "ground_truth_diff": DIFF.format(m=0),
                   "test": {"exit_code": 0, "output": "=== 3 passed in 0.1s ==="}}
            if i == 5:
                row["files_excluded"] = [".claude/settings.json"]
            fh.write(json.dumps(row) + "\n")
    return path


@pytest.mark.parametrize("workers", [1, 2])
def test_streamed_scores_hold_what_validated_scores_hold(run: Path, workers: int) -> None:
    expected = [score_result(r) for r in load_runs(run)]
    streamed = list(iter_scored(run, workers=workers))
    assert [s.model_dump(mode="json") for s in streamed] == [
        e.model_dump(mode="json") for e in expected]
    assert [s.model_dump_json() for s in streamed] == [e.model_dump_json() for e in expected]
    assert [s.json_dict() for s in streamed] == [e.json_dict() for e in expected]
    assert streamed == expected
    assert all(list(s.__dict__) == list(ScoredResult.model_fields) for s in streamed)


def test_equal_lists_of_files_are_one_list(run: Path) -> None:
    streamed = list(iter_scored(run, workers=1))
    touched = {s.files_touched[0]: s.files_touched for s in streamed}
    for s in streamed:
        assert s.files_touched is touched[s.files_touched[0]]
        assert s.ground_truth_files is streamed[0].ground_truth_files
        assert s.truncated is streamed[0].truncated == []
    assert streamed[5].files_excluded == [".claude/settings.json"]
    assert streamed[4].files_excluded is streamed[0].files_excluded == []


def test_setting_a_field_of_one_score_leaves_the_others(run: Path) -> None:
    first, second, *_ = iter_scored(run, workers=1)
    reason = second.test_reason
    first.run_id = "changed"
    first.test_reason = "changed"
    assert (first.run_id, first.test_reason) == ("changed", "changed")
    assert (second.run_id, second.test_reason) == ("r1", reason)
    again = next(iter(iter_scored(run, workers=1)))
    assert (again.run_id, again.test_reason) == ("r1", reason)


def test_a_json_dict_copies_the_shared_lists(run: Path) -> None:
    first, second, *_ = iter_scored(run, workers=1)
    data = first.json_dict()
    data["ground_truth_files"].append("x")
    assert second.ground_truth_files == ["src/m0.py"]
