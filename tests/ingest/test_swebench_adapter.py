"""SWE-bench predictions + the harness's evaluation logs + the dataset given with --tasks."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from judgekit import load_runs
from judgekit.errors import InputError
from judgekit.ingest.adapters import make_adapters
from judgekit.ingest.enrich import enrich_tasks
from tests.clirun import judgekit

DATA = Path(__file__).parent / "data" / "swebench"
PREDICTIONS = DATA / "predictions.json"
DATASET = DATA / "swe_bench_verified_sample.jsonl"
MODEL_DIR = "openai__gpt-4o-2024-08-06"
LOGS = DATA / "logs" / "run_evaluation"
RESOLVED = {"astropy__astropy-12907"}  # sympy's report says resolved, but a FAIL_TO_PASS test never ran


def by_task(results: list) -> dict[str, object]:
    return {r.task_id: r for r in results}


def test_reports_beside_the_predictions_are_found_and_read() -> None:
    results = by_task(load_runs(PREDICTIONS))
    assert len(results) == 5
    astropy = results["astropy__astropy-12907"]
    assert astropy.success is True and astropy.test.exit_code == 0
    assert astropy.arm == astropy.model == "openai/gpt-4o-2024-08-06"
    assert astropy.run_id == "gpt4o-verified-0514"
    assert "15 passed" in astropy.materials["test output"]
    assert "Applied Patch" in astropy.materials["harness log"]
    django = results["django__django-11099"]
    assert django.success is False and django.test.counts.failed == 2


def test_instances_without_a_report_take_the_summary_reports_word() -> None:
    results = by_task(load_runs(PREDICTIONS))
    requests = results["psf__requests-2317"]
    assert requests.harness_status == "evaluation_error" and "evaluation error" in requests.harness_error
    flask = results["pallets__flask-4045"]
    assert flask.success is False and flask.test is None and flask.agent_diff == ""


def test_the_dataset_fills_the_task_and_the_gold_patch_and_catches_unrun_tests() -> None:
    results = load_runs(PREDICTIONS)
    report = enrich_tasks(results, [DATASET])
    assert (report.filled, report.total, report.unmatched) == (5, 5, [])
    rows = by_task(results)
    astropy = rows["astropy__astropy-12907"]
    assert astropy.task.repo == "astropy/astropy"
    assert astropy.task.description.startswith("Modeling's `separability_matrix`")
    assert "astropy/modeling/separable.py" in astropy.ground_truth_diff
    assert "test_separable[compound_model6-result6]" in astropy.materials["FAIL_TO_PASS tests"]
    assert astropy.metadata["base_commit"].startswith("d16bfe05")
    sympy = rows["sympy__sympy-20590"]
    assert sympy.success is False and sympy.test.exit_code == 1
    assert sympy.metadata["fail_to_pass_not_passed"] == ["test_symbol_has_no_dict"]


def test_unmatched_instances_are_listed(tmp_path: Path) -> None:
    lines = DATASET.read_text().splitlines()
    part = tmp_path / "part.jsonl"
    part.write_text("\n".join(lines[:2]) + "\n")
    report = enrich_tasks(load_runs(PREDICTIONS), [part])
    assert report.unmatched == ["pallets__flask-4045", "psf__requests-2317", "sympy__sympy-20590"]
    assert report.filled == 2


def test_score_with_tasks_passes_exactly_the_resolved_and_scores_files_against_gold() -> None:
    proc = judgekit("score", PREDICTIONS, "--tasks", DATASET, "--json", "--no-similarity")
    assert proc.returncode == 0, proc.stderr
    rows = {r["task_id"]: r for r in json.loads(proc.stdout)["results"]}
    assert {t for t, r in rows.items() if r["test_status"] == "passed"} == RESOLVED
    assert rows["astropy__astropy-12907"]["f1"] == 1.0  # same file as the gold patch
    assert rows["django__django-11099"]["f1"] == 0.0  # forms.py instead of validators.py
    assert rows["psf__requests-2317"]["test_status"] == "error"


def test_logs_elsewhere_are_given_explicitly(tmp_path: Path) -> None:
    shutil.copy(PREDICTIONS, tmp_path / "preds.json")
    shutil.copytree(LOGS, tmp_path / "elsewhere" / "run_evaluation")
    alone = by_task(load_runs(tmp_path / "preds.json"))
    assert alone["astropy__astropy-12907"].harness_status == "not_evaluated"
    given = by_task(load_runs(tmp_path / "preds.json",
                              adapters=make_adapters(swebench_logs=tmp_path / "elsewhere")))
    assert given["astropy__astropy-12907"].success is True


def test_jsonl_predictions_read_like_json(tmp_path: Path) -> None:
    preds = json.loads(PREDICTIONS.read_text())
    (tmp_path / "preds.jsonl").write_text("".join(json.dumps(p) + "\n" for p in preds))
    shutil.copytree(DATA / "logs", tmp_path / "logs")
    results = by_task(load_runs(tmp_path / "preds.jsonl"))
    assert results["astropy__astropy-12907"].success is True and len(results) == 5


def test_side_files_in_a_walked_directory_are_not_results() -> None:
    results = load_runs(DATA)  # predictions, summary, dataset, report.json files
    assert len(results) == 5


@pytest.mark.parametrize("edit, where, field", [
    (lambda preds, report: preds[0].pop("model_name_or_path"), "preds", "[0].model_name_or_path"),
    (lambda preds, report: preds[1].update(model_patch=3), "preds", "[1].model_patch"),
    (lambda preds, report: report["astropy__astropy-12907"].pop("resolved"), "report",
     "astropy__astropy-12907.resolved"),
    (lambda preds, report: report["astropy__astropy-12907"]["tests_status"]["FAIL_TO_PASS"]
     .update(success="all"), "report", "astropy__astropy-12907.tests_status.FAIL_TO_PASS.success"),
])
def test_malformed_predictions_and_reports_name_the_file_and_field(
        tmp_path: Path, edit, where: str, field: str) -> None:
    shutil.copytree(DATA / "logs", tmp_path / "logs")
    preds = json.loads(PREDICTIONS.read_text())
    report_path = tmp_path / "logs" / "run_evaluation" / "gpt4o-verified-0514" / MODEL_DIR / \
        "astropy__astropy-12907" / "report.json"
    report = json.loads(report_path.read_text())
    edit(preds, report)
    (tmp_path / "preds.json").write_text(json.dumps(preds))
    report_path.write_text(json.dumps(report))
    with pytest.raises(InputError) as info:
        load_runs(tmp_path / "preds.json")
    assert info.value.field == field
    assert info.value.path == str(tmp_path / "preds.json" if where == "preds" else report_path)


def test_a_missing_logs_directory_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="log directory not found"):
        load_runs(PREDICTIONS, adapters=make_adapters(swebench_logs=tmp_path / "absent"))


def test_a_broken_dataset_line_names_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "dataset.jsonl"
    row = json.loads(DATASET.read_text().splitlines()[0])
    row["FAIL_TO_PASS"] = "not json"
    bad.write_text(json.dumps(row) + "\n")
    with pytest.raises(InputError) as info:
        enrich_tasks(load_runs(PREDICTIONS), [bad])
    assert info.value.field == "line 1: FAIL_TO_PASS"


def test_an_infrastructure_failure_is_a_harness_error_not_a_failed_patch(tmp_path: Path) -> None:
    shutil.copy(PREDICTIONS, tmp_path / "preds.json")
    shutil.copytree(DATA / "logs", tmp_path / "logs")
    report_path = tmp_path / "logs" / "run_evaluation" / "gpt4o-verified-0514" / MODEL_DIR / \
        "django__django-11099" / "report.json"
    report = json.loads(report_path.read_text())
    entry = report["django__django-11099"]
    entry.update(patch_successfully_applied=False, resolved=False, tests_status={},
                 infra_failure=True, infra_failure_reason="docker: no space left on device")
    report_path.write_text(json.dumps(report))
    django = by_task(load_runs(tmp_path / "preds.json"))["django__django-11099"]
    assert django.harness_status == "infra_failure" and django.test is None
    assert django.harness_error == "docker: no space left on device"


def test_names_that_lead_outside_the_log_directory_read_nothing(tmp_path: Path) -> None:
    """An instance id with ``..`` or a model folder linking out: not evaluated, and said so;
    no file outside the log directory is read."""
    outside = "OUTSIDE-THE-LOGS-91b0"
    for where in (tmp_path / "secretdir", tmp_path / "elsewhere" / "m" / "inst-2"):
        where.mkdir(parents=True)
        (where / "run_instance.log").write_text(outside)
        (where / "test_output.txt").write_text(outside)
    root = tmp_path / "logs" / "run_evaluation" / "run1"
    root.mkdir(parents=True)
    (root / "m").symlink_to(tmp_path / "elsewhere" / "m")
    preds = [{"instance_id": "../../../secretdir", "model_name_or_path": "run1",
              "model_patch": "diff"},
             {"instance_id": "inst-2", "model_name_or_path": "m", "model_patch": "diff"}]
    (tmp_path / "preds.json").write_text(json.dumps(preds))
    results = load_runs(tmp_path / "preds.json")
    assert len(results) == 2
    for r in results:
        assert r.harness_status == "not_evaluated" and "leads outside" in r.harness_error
        assert not any(outside in text for text in r.materials.values())


def _experiments_layout(root: Path) -> Path:
    """A submission as the SWE-bench experiments repository keeps it:
    ``evaluation/<split>/<submission>/{all_preds.jsonl, logs/<instance>/{report.json,
    test_output.txt, patch.diff}, trajs/, results/results.json}``."""
    sub = root / "evaluation" / "lite" / "20261127_mine"
    patch = ("diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n"
             " def add(a, b):\n-    return a - b\n+    return a + b\n")
    logs = sub / "logs"
    for iid, resolved in (("calc__calc-1", False), ("calc__calc-2", True)):
        (logs / iid).mkdir(parents=True)
        failure = [] if resolved else ["test_calc.py::test_mul"]
        (logs / iid / "report.json").write_text(json.dumps({iid: {
            "patch_is_None": False, "patch_exists": True, "patch_successfully_applied": True,
            "resolved": resolved, "tests_status": {
                "FAIL_TO_PASS": {"success": ["test_calc.py::test_mul"] if resolved else [],
                                 "failure": failure},
                "PASS_TO_PASS": {"success": ["test_calc.py::test_add"], "failure": []}}}}))
        (logs / iid / "patch.diff").write_text(patch)
        (logs / iid / "test_output.txt").write_text(
            "1 passed in 0.02s" if resolved else "FAILED test_calc.py::test_mul\n"
            "===== 1 failed, 1 passed in 0.02s =====")
    (sub / "results").mkdir()
    (sub / "results" / "results.json").write_text(json.dumps({
        "no_generation": [], "generated": ["calc__calc-1", "calc__calc-2", "calc__calc-3"],
        "with_logs": ["calc__calc-1", "calc__calc-2"], "applied": ["calc__calc-1",
                                                                  "calc__calc-2"],
        "resolved": ["calc__calc-2", "calc__calc-3"]}))
    preds = sub / "all_preds.jsonl"
    preds.write_text("".join(json.dumps({"instance_id": iid, "model_name_or_path": "mine",
                                         "model_patch": patch}) + "\n"
                             for iid in ("calc__calc-1", "calc__calc-2", "calc__calc-3")))
    return preds


def test_the_experiments_layout_reads_the_logs_beside_the_predictions(tmp_path: Path) -> None:
    results = by_task(load_runs(_experiments_layout(tmp_path)))
    first, second, third = (results[f"calc__calc-{n}"] for n in (1, 2, 3))
    assert first.harness_status == "completed" and first.success is False
    assert first.test.counts.failed == 1
    assert "1 failed" in first.materials["test output"]
    assert first.run_id is None
    assert second.success is True and second.harness_status == "completed"
    # no logs of its own: results/results.json says it was resolved
    assert third.success is True and third.harness_status == "completed"
    proc = judgekit("score", tmp_path / "evaluation/lite/20261127_mine/all_preds.jsonl",
                    "--json", "--no-similarity")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    rows = {r["task_id"]: r for r in summary["results"]}
    assert rows["calc__calc-1"]["test_status"] == "failed"
    assert rows["calc__calc-2"]["test_status"] == "passed"
    assert not any("not_evaluated" in w for w in summary["warnings"]), summary["warnings"]
