"""HAL upload files: one result per task, the benchmark's verdict, readable transcripts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgekit import load_runs
from judgekit.errors import InputError
from judgekit.ingest.adapters import ADAPTERS, HalAdapter, NativeAdapter
from tests.clirun import judgekit

DATA = Path(__file__).parent / "data" / "hal"
SAB = DATA / "scienceagentbench_sab_selfdebug_gpt4o_1747213800_UPLOAD.json"
TAU = DATA / "taubench_airline_toolcalling_o4mini_1748850000_UPLOAD.json"


def by_task(path: Path) -> dict[str, object]:
    return {r.task_id: r for r in load_runs(path)}


def test_the_native_adapter_leaves_a_hal_upload_alone() -> None:
    doc = json.loads(SAB.read_text())
    assert not NativeAdapter().detect(SAB, doc)
    assert [a.name for a in ADAPTERS if a.detect(SAB, doc)] == ["hal"]


def test_scienceagentbench_tasks_carry_the_benchmarks_verdict_and_evaluation_log() -> None:
    results = by_task(SAB)
    assert sorted(results) == ["1", "2", "3"]
    assert {t: r.success for t, r in results.items()} == {"1": True, "2": False, "3": False}
    second = results["2"]
    assert second.test is None and second.arm == "sab_selfdebug_gpt4o"
    assert second.model == "gpt-4o-2024-11-20" and second.run_id.endswith("1747213800")
    assert "KeyError: 'hazard_ratios'" in second.materials["evaluation log"]
    assert '"success_rate": 0' in second.materials["evaluation result"]
    assert second.task.description.startswith("Use the METABRIC clinical data")
    assert second.duration_s == pytest.approx(31.4)
    assert (second.usage.input_tokens, second.usage.output_tokens) == (1920, 440)  # two calls


def test_the_transcript_is_the_tasks_calls_in_time_order_without_repeats() -> None:
    transcript = by_task(SAB)["2"].transcript
    first, second = transcript.index("--- call 1 of 2"), transcript.index("--- call 2 of 2")
    assert first < second
    assert transcript.count("[system]") == 1  # the second call repeats history; shown once
    assert transcript.index("from lifelines import CoxPHFitter") < second
    assert '{"failed": false, "rows": 2}' in transcript[second:]
    assert transcript.rstrip().endswith("DONE")
    assert "paraphrase" not in "".join(r.transcript or "" for r in by_task(SAB).values())


def test_tool_calls_and_tool_results_are_readable() -> None:
    transcript = by_task(SAB)["3"].transcript
    assert "(tool call python:" in transcript and "[tool]" in transcript
    assert "ModuleNotFoundError: No module named 'scanpy'" in transcript


def test_a_second_benchmark_with_compact_logging_and_reward_records() -> None:
    results = by_task(TAU)
    assert {t: r.success for t, r in results.items()} == {"0": True, "1": False, "2": False}
    assert "cannot be cancelled: basic economy" in results["1"].transcript
    assert "(tool call cancel_reservation:" in results["1"].transcript
    assert results["2"].materials == {"evaluation log": "Error code: 429 - rate limit exceeded"}
    assert results["0"].model == "o4-mini-2025-04-16" and results["0"].task.tags == ["taubench_airline"]


def test_unlisted_tasks_take_the_verdict_from_their_own_record(tmp_path: Path) -> None:
    doc = json.loads(SAB.read_text())
    doc["results"].pop("successful_tasks")
    doc["results"].pop("failed_tasks")
    path = tmp_path / "x_UPLOAD.json"
    path.write_text(json.dumps(doc))
    assert {t: r.success for t, r in by_task(path).items()} == {"1": True, "2": False, "3": False}


@pytest.mark.parametrize("edit, field", [
    (lambda d: d["results"].update(successful_tasks="1"), "results.successful_tasks"),
    (lambda d: d["results"].update(failed_tasks=[["2"]]), "results.failed_tasks[0]"),
    (lambda d: d.update(raw_logging_results=7), "raw_logging_results"),
    (lambda d: d["raw_logging_results"].__setitem__(1, "call"), "raw_logging_results[1]"),
    (lambda d: d["raw_logging_results"][0].update(inputs=[]), "raw_logging_results[0].inputs"),
    (lambda d: d.update(raw_eval_results="done"), "raw_eval_results"),
])
def test_malformed_uploads_name_the_field(tmp_path: Path, edit, field: str) -> None:
    doc = json.loads(SAB.read_text())
    edit(doc)
    path = tmp_path / "bad_UPLOAD.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError) as info:
        load_runs(path)
    assert info.value.field == field and info.value.path == str(path)


def test_score_json_gives_passed_exactly_for_the_successful_tasks(tmp_path: Path) -> None:
    for src in (SAB, TAU):
        (tmp_path / src.name).write_text(src.read_text())
    proc = judgekit("score", tmp_path, "--json", "--no-similarity")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)["results"]
    assert len(rows) == 6
    passed = {(r["arm"], r["task_id"]) for r in rows if r["test_status"] == "passed"}
    assert passed == {("sab_selfdebug_gpt4o", "1"), ("taubench_toolcalling_o4mini", "0")}


def test_a_json_file_of_another_tool_exits_2_with_one_line_naming_the_formats(
        tmp_path: Path) -> None:
    other = tmp_path / "eslint-report.json"
    other.write_text(json.dumps({"results": [{"filePath": "a.js", "messages": []}],
                                 "errorCount": 0}))
    proc = judgekit("score", other)
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert "eslint-report.json" in lines[0] and "not a run file" in lines[0]
    assert all(name in lines[0] for name in ("judgekit", "bobbin", "hal"))


def test_hal_adapter_is_listed_by_name() -> None:
    assert any(isinstance(a, HalAdapter) for a in ADAPTERS)


def test_anthropic_style_calls_show_the_system_prompt_and_content_blocks(tmp_path: Path) -> None:
    call = {"weave_task_id": "7", "started_at": "2025-07-01T10:00:00",
            "inputs": {"model": "claude-3-7-sonnet-20250219", "system": "Solve the task.",
                       "messages": [{"role": "user", "content": [
                           {"type": "text", "text": "Compute the mean of data.csv"}]}]},
            "output": {"role": "assistant", "model": "claude-3-7-sonnet-20250219",
                       "content": [{"type": "text", "text": "Reading the file."},
                                   {"type": "tool_use", "name": "python",
                                    "input": {"code": "import pandas"}}],
                       "usage": {"input_tokens": 50, "output_tokens": 12}}}
    doc = {"config": {"agent_name": "generalist", "benchmark_name": "corebench_hard"},
           "results": {"successful_tasks": [], "failed_tasks": ["7"]},
           "raw_logging_results": [call]}
    path = tmp_path / "corebench_UPLOAD.json"
    path.write_text(json.dumps(doc))
    (result,) = load_runs(path)
    assert result.success is False and result.model == "claude-3-7-sonnet-20250219"
    text = result.transcript
    assert text.index("[system]\nSolve the task.") < text.index("Compute the mean of data.csv")
    assert '(tool call python: {"code": "import pandas"})' in text
    assert result.usage.input_tokens == 50


def test_a_swe_bench_upload_keeps_its_summary_report_out_of_the_tasks(tmp_path: Path) -> None:
    summary = {"total_instances": 50, "resolved_instances": 1, "resolved_ids": ["a__a-1"],
               "unresolved_ids": ["b__b-2"], "error_ids": [], "submitted_ids": ["a__a-1", "b__b-2"],
               "schema_version": 2}
    doc = {"config": {"agent_name": "hal_generalist_agent", "benchmark_name": "swebench_verified_mini"},
           "results": {"accuracy": 0.02, "successful_tasks": ["a__a-1"], "failed_tasks": ["b__b-2"]},
           "raw_eval_results": summary, "raw_logging_results": []}
    path = tmp_path / "swebench_UPLOAD.json"
    path.write_text(json.dumps(doc))
    assert {r.task_id: r.success for r in load_runs(path)} == {"a__a-1": True, "b__b-2": False}


def test_records_one_level_down_are_found_by_the_task_ids(tmp_path: Path) -> None:
    sdict = {"1333_platinum_good_bitstrings": [{"result": {"result_type": 2, "status": "wrong",
                                                           "fraction_passed": 0.4}}]}
    doc = {"config": {"agent_name": "usaco_episodic", "benchmark_name": "usaco"},
           "results": {"successful_tasks": [], "failed_tasks": ["1333_platinum_good_bitstrings"]},
           "raw_eval_results": {"rdict": {}, "sdict": sdict, "rs": [], "ss": []},
           "raw_logging_results": []}
    path = tmp_path / "usaco_UPLOAD.json"
    path.write_text(json.dumps(doc))
    (result,) = load_runs(path)
    assert result.task_id == "1333_platinum_good_bitstrings" and result.success is False
    assert '"fraction_passed": 0.4' in result.materials["evaluation result"]


def test_a_scienceagentbench_dataset_gives_tasks_their_preview_and_gold_program() -> None:
    from judgekit.ingest.enrich import enrich_tasks

    results = load_runs(SAB)
    report = enrich_tasks(results, [DATA / "scienceagentbench_sample.jsonl"])
    assert (report.filled, report.total, report.unmatched) == (2, 3, ["1"])
    second = by_task_of(results)["2"]
    assert second.materials["gold program"].startswith("import json")
    assert "clinical.csv" in second.materials["dataset preview"]
    assert second.materials["expected output file"] == "pred_results/metabric_cox_pred.json"
    assert second.metadata["eval_script_name"] == "metabric_cox_eval.py"
    assert "evaluation log" in second.materials  # kept


def by_task_of(results: list) -> dict[str, object]:
    return {r.task_id: r for r in results}


def test_a_directory_of_uploads_and_a_dataset_loads_only_the_tasks() -> None:
    assert len(load_runs(DATA)) == 6  # two uploads; the dataset is a task source, not runs


@pytest.mark.parametrize("doc, claimed", [
    ({"format": "judgekit.run/v1", "results": []}, True),
    ({"results": [], "run_id": "r1", "metadata": {}}, True),
    ({"results": [{"task": {"id": "t"}}]}, True),  # a run file; its bad result is named later
    ({"task": {"id": "t"}, "arm": "a"}, True),
    ([{"task": {"id": "t"}, "arm": "a"}], True),
    ({"results": {"successful_tasks": []}}, False),
    ({"results": [], "errorCount": 0}, False),
    ({"config": {}, "results": {}, "raw_eval_results": {}}, False),
    ([{"instance_id": "x", "model_patch": ""}], False),
])
def test_the_native_adapter_claims_only_its_own_documents(doc: object, claimed: bool) -> None:
    assert NativeAdapter().detect(Path("x.json"), doc) is claimed
