"""A Harbor job folder written by Harbor's own result models, with trajectories Harbor
converted from recorded sessions: ``judgekit score JOB --json`` has the folder's arms,
tasks, attempts, outcomes and harness failures, and each result's transcript the
trajectory's tool calls and tokens. Every expected value is read from the folder's files."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from judgekit import load_runs
from judgekit.errors import InputError
from tests.clirun import judgekit

JOB = Path(__file__).resolve().parents[1] / "fixtures" / "harbor" / "job"


def _trials() -> list[dict[str, Any]]:
    """Each trial as its own files say it: arm, task, start, reward, exception, trajectory."""
    out = []
    for result_file in sorted(JOB.glob("*/result.json")):
        result = json.loads(result_file.read_text())
        config = json.loads((result_file.parent / "config.json").read_text())
        trajectory = result_file.parent / "agent" / "trajectory.json"
        rewards = (result.get("verifier_result") or {}).get("rewards")
        out.append({
            "arm": f"{config['agent']['name']}:{config['agent']['model_name']}",
            "task": result["task_name"], "started": result["started_at"],
            "reward": None if rewards is None else rewards["reward"],
            "exception": (result.get("exception_info") or {}).get("exception_type"),
            "trajectory": json.loads(trajectory.read_text()) if trajectory.exists() else None})
    return out


@pytest.fixture(scope="module")
def scored() -> dict[str, Any]:
    proc = judgekit("score", str(JOB), "--json")
    assert proc.returncode == 0, proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


def test_arms_tasks_and_attempts_are_the_folders(scored: dict[str, Any]) -> None:
    trials = _trials()
    assert {t["arm"] for t in trials} == set(scored["arms"])
    assert len(scored["arms"]) == 2
    got = Counter((r["arm"], r["task_id"]) for r in scored["results"])
    assert got == Counter((t["arm"], t["task"]) for t in trials)
    assert max(got.values()) > 1, "the job repeats trials"
    for (arm, task), n in got.items():
        attempts = sorted(r["attempt"] for r in scored["results"]
                          if (r["arm"], r["task_id"]) == (arm, task))
        assert attempts == list(range(n))


def test_outcomes_follow_the_rewards_in_start_order(scored: dict[str, Any]) -> None:
    by_key = {(r["arm"], r["task_id"], r["attempt"]): r for r in scored["results"]}
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for t in _trials():
        groups.setdefault((t["arm"], t["task"]), []).append(t)
    partial = 0
    for (arm, task), trials in groups.items():
        for n, t in enumerate(sorted(trials, key=lambda t: t["started"])):
            r = by_key[(arm, task, n)]
            if t["reward"] is None:
                assert t["exception"] and r["test_status"] == "error"
                assert r["harness_status"] == t["exception"]
                continue
            partial += 0 < t["reward"] < 1
            assert r["harness_status"] == "completed"
            assert r["test_status"] == ("passed" if t["reward"] >= 1 else "failed")
    assert partial, "the job has partial rewards"
    assert any(f"{partial} Harbor trials with a partial reward" in w
               for w in scored["warnings"])
    errors = sum(t["reward"] is None for t in _trials())
    assert errors == 1
    assert sum(a["n_error"] for a in scored["arms"].values()) == errors


def test_each_transcript_has_the_trajectorys_calls_and_tokens(scored: dict[str, Any]) -> None:
    by_start = {(t["arm"], t["task"], t["started"]): t for t in _trials()}
    results = load_runs(JOB)
    assert len(results) == len(by_start)
    for r in results:
        t = by_start[(r.arm, r.task_id, r.metadata["harbor_started_at"])]
        if t["trajectory"] is None:
            assert r.session is None
            continue
        assert r.session is not None and r.session.format == "atif"
        calls = [c for s in t["trajectory"]["steps"] for c in s.get("tool_calls") or []]
        assert [c.name for c in r.session.tool_calls] == [c["function_name"] for c in calls]
        fm = t["trajectory"]["final_metrics"]
        assert r.session.tokens_out == fm["total_completion_tokens"]
        assert r.session.tokens_in == fm["total_prompt_tokens"] - (
            fm.get("total_cached_tokens") or 0)


def test_a_single_trial_folder_is_one_result(tmp_path: Path) -> None:
    trial = next(p for p in sorted(JOB.iterdir()) if p.is_dir())
    shutil.copytree(trial, tmp_path / trial.name)
    (r,) = load_runs(tmp_path / trial.name)
    assert r.task_id == json.loads((trial / "result.json").read_text())["task_name"]
    assert r.attempt == 0 and r.session is not None


def test_a_recorded_patch_is_the_agents_diff(tmp_path: Path) -> None:
    trial = next(p for p in sorted(JOB.iterdir()) if p.is_dir())
    copy = tmp_path / trial.name
    shutil.copytree(trial, copy)
    diff = "--- a/calc.py\n+++ b/calc.py\n@@ -1 +1 @@\n-n - 1\n+n\n"
    (copy / "artifacts").mkdir()
    (copy / "artifacts" / "changes.diff").write_text(diff)
    (r,) = load_runs(copy)
    assert r.agent_diff == diff


def test_a_malformed_trial_result_names_its_field(tmp_path: Path) -> None:
    trial = next(p for p in sorted(JOB.iterdir()) if p.is_dir())
    copy = tmp_path / trial.name
    shutil.copytree(trial, copy)
    doc = json.loads((copy / "result.json").read_text())
    doc["verifier_result"] = {"rewards": {"reward": "high"}}
    (copy / "result.json").write_text(json.dumps(doc))
    with pytest.raises(InputError) as caught:
        load_runs(copy / "result.json")
    assert "verifier_result.rewards" in str(caught.value)
