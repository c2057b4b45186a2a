"""The bobbin adapter on the real reference files bundled in examples/bobbin."""

import json
from pathlib import Path

import pytest

from judgekit import load_runs, score


def _bobbin_files(root: Path):
    for path in sorted(root.rglob("*.json")):
        if path.name != "manifest.json":
            yield path, json.loads(path.read_text())


def test_every_result_loads_with_bobbin_fields(bobbin_dir):
    results = load_runs(bobbin_dir)
    raw = [doc for _, doc in _bobbin_files(bobbin_dir)]
    assert len(results) == len(raw) == 46
    keys = sorted((r.run_id, r.task_id, r.arm, r.attempt) for r in results)
    assert keys == sorted((d["run_id"], d["task_id"], d["approach"], d["attempt"]) for d in raw)


def test_precision_recall_f1_equal_bobbins_own_values(bobbin_dir):
    summary = score(load_runs(bobbin_dir))
    by_key = {(r.run_id, r.task_id, r.arm, r.attempt): r for r in summary.results}
    checked = 0
    for _, doc in _bobbin_files(bobbin_dir):
        if not (doc.get("agent_diff") is not None and doc.get("ground_truth_diff") is not None):
            continue
        mine = by_key[(doc["run_id"], doc["task_id"], doc["approach"], doc["attempt"])]
        theirs = doc["diff_result"]
        assert mine.precision == pytest.approx(theirs["file_precision"], abs=1e-4)
        assert mine.recall == pytest.approx(theirs["file_recall"], abs=1e-4)
        assert mine.f1 == pytest.approx(theirs["f1"], abs=1e-4)
        checked += 1
    assert checked == 45


def test_harness_failure_is_kept_as_error_and_warned(bobbin_dir):
    summary = score(load_runs(bobbin_dir))
    failed = [r for r in summary.results if r.harness_status == "bobbin_setup_error"]
    assert len(failed) == 1
    assert failed[0].test_status == "error" and failed[0].f1 is None
    assert any("bobbin_setup_error" in w for w in summary.warnings)
    assert summary.arms["with-bobbin"].status_counts["error"] >= 1


def test_harness_claimed_pass_without_output_is_unknown_not_vacuous(bobbin_dir):
    """Bobbin recorded 0 tests for every cargo run (its pytest pattern matches cargo's
    ``finished in 0.00s``); with no output kept that count is no evidence of anything."""
    summary = score(load_runs(bobbin_dir))
    ruff = [r for r in summary.results if r.task_id.startswith("ruff") and r.harness_status ==
            "completed"]
    assert len(ruff) == 20
    assert all(r.test_status == "unknown" for r in ruff)
    assert all(r.test_reason == "harness says passed; no test output kept" for r in ruff)
    assert not [r for r in summary.results if r.test_status == "vacuous"]
    for name, arm in summary.arms.items():
        assert arm.n_unknown == sum(r.test_status == "unknown" for r in summary.results
                                    if r.arm == name)
        assert arm.pass_rate_upper == (arm.n_passed + arm.n_unknown) / arm.n
    counted = [w for w in summary.warnings if "unknown test outcome (nothing to verify" in w]
    assert len(counted) == 2 and all("10 of" in w for w in counted)


def test_model_comes_from_result_or_manifest(bobbin_dir):
    results = load_runs(bobbin_dir)
    by_run = {r.run_id: r.model for r in results}
    assert by_run["20260210-194843-a327"] == "claude-sonnet-4-5-20250929"  # manifest only
    assert by_run["20260211-045003-7244"] == "claude-opus-4-6"  # agent_config


def test_single_result_file_loads(bobbin_dir):
    path = bobbin_dir / "20260210-205259-0f6c" / "flask-001_with-bobbin_0.json"
    (result,) = load_runs(path)
    assert (result.task_id, result.arm, result.attempt) == ("flask-001", "with-bobbin", 0)
    assert result.task.repo == "pallets/flask"
    assert result.duration_s and result.duration_s > 0
