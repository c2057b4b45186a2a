"""A coding evaluation in the layout of Inspect's SWE-bench port, written by inspect-ai itself
(two evals of one mock model whose metadata names the arms), read back by ``judgekit score``
from ``.eval`` and ``.json`` logs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai")

from judgekit import load_runs  # noqa: E402
from tests.clirun import judgekit  # noqa: E402
from tests.ingest import inspect_evals as ev  # noqa: E402


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The baseline eval (s5's harness breaks) and the context eval, in both formats; the
    ``.json`` logs are the ``.eval`` logs written again by inspect-ai."""
    eval_dir = tmp_path_factory.mktemp("eval")
    json_dir = tmp_path_factory.mktemp("json")
    for arm, touch, errors in (("baseline", ev.BASELINE, "s5"), ("context", ev.CONTEXT, "")):
        log = ev.run(ev.swe_calc(errors=errors), eval_dir, "eval", touch, metadata={"arm": arm})
        ev.as_json(log, json_dir)
    return {"eval": eval_dir, "json": json_dir}


def score_json(*args: Any) -> dict[str, Any]:
    proc = judgekit("score", *args, "--json", "--no-similarity")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def scored(logs: dict[str, Path]) -> dict[str, dict[str, Any]]:
    return {fmt: score_json(path) for fmt, path in logs.items()}


@pytest.mark.parametrize("fmt", ["eval", "json"])
def test_files_and_f1_come_from_the_diffs_in_the_log(scored: dict[str, Any], fmt: str) -> None:
    rows = {(r["arm"], r["task_id"]): r for r in scored[fmt]["results"]}
    assert len(rows) == 10
    for arm, touch in (("baseline", ev.BASELINE), ("context", ev.CONTEXT)):
        for sample_id in ev.IDS:
            row = rows[(arm, f"swe_calc/{sample_id}")]
            if arm == "baseline" and sample_id == "s5":  # its harness broke: no patch
                assert row["test_status"] == "error" and row["f1"] is None
                assert row["files_touched"] == []
                continue
            assert row["files_touched"] == [touch[sample_id]]
            # the fix is the sample's ``patch``; its test files (``test_patch``) are apart
            assert row["ground_truth_files"] == [ev.SOURCE[sample_id]]
            right = touch[sample_id] == ev.SOURCE[sample_id]
            assert row["f1"] == (1.0 if right else 0.0)
            assert row["test_status"] == ("passed" if right else "failed")


def test_eval_and_json_logs_give_the_same_results(scored: dict[str, Any]) -> None:
    assert scored["eval"]["results"] == scored["json"]["results"]
    assert scored["eval"]["arms"] == scored["json"]["arms"]
    assert scored["eval"]["comparisons"] == scored["json"]["comparisons"]


def test_the_metadata_arms_are_two_arms_with_the_logs_pass_counts(
        scored: dict[str, Any]) -> None:
    summary = scored["eval"]
    assert set(summary["arms"]) == {"baseline", "context"}
    passed = {arm: sum(1 for r in summary["results"]
                       if r["arm"] == arm and r["test_status"] == "passed")
              for arm in summary["arms"]}
    assert passed == {"baseline": 2, "context": 4}
    assert {arm: a["n"] for arm, a in summary["arms"].items()} == {"baseline": 5, "context": 5}
    # no sample counted as an attempt of the other eval: one attempt per task and arm
    assert {r["attempt"] for r in summary["results"]} == {0}
    for arm in summary["arms"]:
        runs = {r["run_id"] for r in summary["results"] if r["arm"] == arm}
        assert len(runs) == 1
    assert not any("merged" in w for w in summary["warnings"])


def test_the_arms_served_by_one_model_are_compared_without_mixed_models(
        scored: dict[str, Any]) -> None:
    [comparison] = scored["eval"]["comparisons"]
    assert (comparison["arm_a"], comparison["arm_b"]) == ("baseline", "context")
    assert comparison["paired_by"] == "task, serving model and attempt"
    assert comparison["n_excluded_error"] == 1  # the broken harness is not a lost pair
    assert comparison["n_paired"] == 4
    assert (comparison["only_a_passed"], comparison["only_b_passed"]) == (0, 2)


def test_the_swebench_fields_reach_the_task_and_the_materials(logs: dict[str, Path]) -> None:
    runs = {(r.arm, r.task_id): r for r in load_runs(logs["eval"])}
    run = runs[("context", "swe_calc/s3")]
    assert run.task.repo == ev.REPO and run.metadata["base_commit"] == ev.BASE
    assert run.ground_truth_diff == ev.diff("calc/mul.py")
    assert run.agent_diff == ev.diff("calc/mul.py")
    assert run.materials["test patch"] == ev.diff("tests/test_mul.py")
    assert run.materials["FAIL_TO_PASS tests"] == "tests/test_mul.py::test_bug"
    assert run.materials["PASS_TO_PASS tests"] == "tests/test_mul.py::test_ok"
    assert run.metadata["agent_patch_from"] == "score swe_like metadata model_patch"
    assert run.metadata["fix_from"] == "metadata patch"


def test_an_errored_sample_is_an_error_and_the_missing_patch_is_counted_once(
        scored: dict[str, Any]) -> None:
    summary = scored["eval"]
    [row] = [r for r in summary["results"] if r["task_id"] == "swe_calc/s5"
             and r["arm"] == "baseline"]
    assert row["test_status"] == "error" and row["harness_status"] == "error"
    missing = [w for w in summary["warnings"] if "hold no agent patch" in w]
    assert len(missing) == 1
    assert missing[0].startswith("1 of 10 Inspect AI samples hold no agent patch")
    assert "score metadata model_patch" in missing[0] and "1 of them errored" in missing[0]


def test_a_patch_kept_under_a_key_the_user_names(tmp_path: Path) -> None:
    ev.run(ev.swe_calc(store_key="work.diff"), tmp_path, "eval", ev.CONTEXT)
    plain = score_json(tmp_path)
    assert all(r["f1"] is None for r in plain["results"])  # not found: null, never 0
    [warning] = [w for w in plain["warnings"] if "hold no agent patch" in w]
    assert warning.startswith("5 of 5 Inspect AI samples hold no agent patch")
    named = score_json(tmp_path, "--inspect-patch", "work.diff")
    assert [r["f1"] for r in sorted(named["results"], key=lambda r: r["task_id"])] == [
        1.0, 1.0, 1.0, 1.0, 0.0]
    assert not any("hold no agent patch" in w for w in named["warnings"])
    fix = score_json(tmp_path, "--inspect-patch", "work.diff", "--inspect-fix", "test_patch")
    row = next(r for r in fix["results"] if r["task_id"] == "swe_calc/s1")
    assert row["ground_truth_files"] == ["tests/test_add.py"]


def test_a_named_key_that_holds_no_diff_is_one_line_naming_the_field(tmp_path: Path) -> None:
    ev.run(ev.swe_calc(store_key="work.diff"), tmp_path, "eval", ev.CONTEXT)
    proc = judgekit("score", tmp_path, "--inspect-patch", "work")
    assert proc.returncode == 2, proc.stderr
    [line] = proc.stderr.strip().splitlines()
    assert ".eval: sample s1 epoch 1: store.work: expected a unified diff" in line
