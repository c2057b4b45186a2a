"""Every real file loads: bobbin run directories exactly as bobbin writes them (side files
included), overlapping arguments, duplicates, judgekit's own JSON and outputs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from judgekit import load_runs, score
from judgekit.errors import InputError
from judgekit.ingest.load import load_runs_result
from judgekit.ingest.models import RunFile
from tests.clirun import judgekit

FIXTURES = Path(__file__).parent / "fixtures"
LATER = FIXTURES / "bobbin_later"
RUN = "20260227-043010-a030"
STEM = "ruff-005_with-bobbin_0"


@pytest.fixture
def run_dir(tmp_path) -> Path:
    """A real bobbin run directory with its stream and metrics side files beside the result."""
    root = tmp_path / "runs"
    shutil.copytree(LATER, root)
    for side in (FIXTURES / "side_files").iterdir():
        shutil.copy(side, root / RUN / side.name)
    return root


def _keys(summary_results):
    return sorted((r.run_id, r.task_id, r.arm, r.attempt, r.test_status, r.f1)
                  for r in summary_results)


def test_run_directory_with_side_files_scores_like_its_result_files(run_dir):
    proc = judgekit("score", run_dir, "--json", "--no-similarity")
    assert proc.returncode == 0, proc.stderr
    with_sides = json.loads(proc.stdout)
    plain = judgekit("score", *sorted(str(p) for p in run_dir.rglob("*_[0-9].json")), "--json",
                     "--no-similarity")
    assert plain.returncode == 0, plain.stderr
    alone = json.loads(plain.stdout)
    assert with_sides["results"] == alone["results"]
    assert with_sides["arms"] == alone["arms"]


def test_stream_side_file_becomes_a_readable_transcript(run_dir):
    (result,) = [r for r in load_runs(run_dir) if r.task_id == "ruff-005"]
    text = result.transcript
    assert text is not None and "{" not in text.splitlines()[0]
    assert "assistant: I will look for where the formatter handles" in text
    assert "[tool call Grep]" in text and "[tool result] crates/ruff/src/commands/format.rs" in text
    assert "[tool error] old_string not found" in text
    assert "Fixed the exit code of format --check." in text
    assert "[1 unreadable event line skipped]" in text
    assert "hook_started" not in text and "rate_limit" not in text


def test_side_file_without_its_result_is_a_warning(run_dir):
    (run_dir / RUN / f"{STEM}.json").rename(run_dir / RUN / "elsewhere.txt")
    report = load_runs_result(run_dir)
    assert any("side file without its result file" in w for w in report.warnings)


def test_side_file_given_alone_says_what_it_is(run_dir):
    proc = judgekit("score", run_dir / RUN / f"{STEM}.stream.jsonl")
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert "side file" in line and "Traceback" not in proc.stderr


def test_directory_and_a_file_inside_it_load_each_result_once(bobbin_dir):
    inside = next(bobbin_dir.glob("*/flask-001_no-bobbin_0.json"))
    report = load_runs_result([bobbin_dir, inside])
    assert len(report.results) == 46
    assert any("loaded once" in w and inside.name in w for w in report.warnings)


def test_same_file_through_a_symlinked_path_loads_once(tmp_path, bobbin_dir):
    link = tmp_path / "again"
    link.symlink_to(bobbin_dir)
    report = load_runs_result([bobbin_dir, link])
    assert len(report.results) == 46
    assert any("loaded once" in w for w in report.warnings)


def test_duplicate_results_are_reported_once(tmp_path, bobbin_dir):
    run = tmp_path / "run"
    src = next(bobbin_dir.glob("20260210-205259-0f6c"))
    shutil.copytree(src, run)
    shutil.copy(run / "flask-001_no-bobbin_0.json", run / "copy-of-flask-001_no-bobbin_0.json")
    report = load_runs_result(run)
    assert len(report.results) == 2
    (line,) = [w for w in report.warnings if "duplicate" in w]
    assert line.startswith("1 duplicate result") and "flask-001 / no-bobbin" in line
    summary = score(report.results, load_warnings=report.warnings)
    assert line in summary.warnings


def test_json_run_file_and_list_load(tmp_path, bobbin_dir):
    results = load_runs(bobbin_dir)
    as_object = tmp_path / "run.json"
    as_object.write_text(RunFile(run_id="r", results=results).model_dump_json())
    as_list = tmp_path / "list.json"
    as_list.write_text("[" + ",".join(r.model_dump_json() for r in results) + "]")
    for path in (as_object, as_list):
        proc = judgekit("score", path, "--json", "--no-similarity")
        assert proc.returncode == 0, proc.stderr
        assert len(json.loads(proc.stdout)["results"]) == 46


def test_score_refuses_its_own_summary_and_output_directory(tmp_path, bobbin_dir):
    out = tmp_path / "out"
    assert judgekit("score", bobbin_dir, "--out", out, "--no-similarity").returncode == 0
    for target in (out / "summary.json", out):
        proc = judgekit("score", target)
        assert proc.returncode == 2
        (line,) = proc.stderr.strip().splitlines()
        assert str(target) in line and "judgekit" in line.split(": ", 2)[-1]
        assert "report" in line


def test_output_directory_inside_a_run_tree_is_skipped_with_a_warning(tmp_path, bobbin_dir):
    tree = tmp_path / "tree"
    shutil.copytree(bobbin_dir, tree)
    assert judgekit("score", tree, "--out", tree / "out", "--no-similarity").returncode == 0
    report = load_runs_result(tree)
    assert len(report.results) == 46
    assert any("output directory" in w for w in report.warnings)


def test_unknown_json_in_a_directory_is_counted_not_dropped(tmp_path, bobbin_dir):
    tree = tmp_path / "tree"
    shutil.copytree(bobbin_dir, tree)
    (tree / "notes.json").write_text('{"hello": "world"}')
    report = load_runs_result(tree)
    assert any("1 file not a run file of any known format" in w and "notes.json" in w
               for w in report.warnings)


def test_a_single_unknown_file_is_an_error(tmp_path):
    path = tmp_path / "notes.json"
    path.write_text('{"hello": "world"}')
    with pytest.raises(InputError, match="not a run file of any known format"):
        load_runs(path)


def test_load_runs_takes_the_adapters_to_try(tmp_path, bobbin_dir):
    from judgekit.ingest.adapters import BobbinAdapter

    only_bobbin = load_runs(bobbin_dir, adapters=[BobbinAdapter()])
    assert len(only_bobbin) == 46
    native = tmp_path / "run.json"
    native.write_text(RunFile(results=only_bobbin[:2]).model_dump_json())
    with pytest.raises(InputError, match=r"tried: bobbin\)"):
        load_runs(native, adapters=[BobbinAdapter()])


def test_evaluate_leaves_similarity_off_by_default_and_carries_load_warnings(bobbin_dir):
    import inspect

    from judgekit.evaluate import evaluate

    assert inspect.signature(evaluate).parameters["similarity"].default is False
    inside = next(bobbin_dir.glob("*/flask-001_no-bobbin_0.json"))
    result = evaluate([bobbin_dir, inside])
    assert all(r.diff_similarity is None for r in result.summary.results)
    assert len(result.summary.results) == 46
    assert any("loaded once" in w for w in result.summary.warnings)


def test_streaming_evaluate_scores_the_same(bobbin_dir):
    from judgekit.evaluate import evaluate

    kept = evaluate([bobbin_dir]).summary
    streamed = evaluate([bobbin_dir], keep_runs=False)
    assert streamed.runs == []
    assert streamed.summary.model_dump() == kept.model_dump()


def test_stream_side_file_also_becomes_the_results_session(run_dir):
    (result,) = [r for r in load_runs(run_dir) if r.task_id == "ruff-005"]
    session = result.session
    assert session is not None and session.format == "claude-code"
    assert [c.name for c in session.tool_calls] == ["Grep", "Edit"]
    assert session.tool_calls[1].error and session.tool_calls[1].output == "old_string not found"
    assert session.cost_usd == 0.42 and session.exit_status == "completed"
    assert session.final_message == "Fixed the exit code of format --check."
