"""`judgekit report DIR` rebuilds both reports from the files in DIR alone."""

from __future__ import annotations

import shutil

from judgekit.report.load import load_runs_jsonl
from judgekit.ingest.load import load_runs
from tests.clirun import judgekit
from tests.conftest import EXAMPLE_BOBBIN


def test_score_out_writes_both_reports_and_runs(scored_dir):
    for name in ("summary.json", "results.jsonl", "runs.jsonl", "report.md", "report.html"):
        assert (scored_dir / name).is_file(), name
    assert load_runs_jsonl(scored_dir / "runs.jsonl") == load_runs(EXAMPLE_BOBBIN)


def test_report_regenerates_identical_reports(judged_dir, tmp_path):
    out = tmp_path / "copy"
    shutil.copytree(judged_dir, out)
    before = {n: (out / n).read_text(encoding="utf-8") for n in ("report.html", "report.md")}
    for n in before:
        (out / n).unlink()
    proc = judgekit("report", out, env={"JUDGEKIT_NO_NETWORK": "1"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    for n, text in before.items():
        assert (out / n).read_text(encoding="utf-8") == text, n


def test_report_without_runs_file_still_renders(scored_dir, tmp_path):
    out = tmp_path / "copy"
    shutil.copytree(scored_dir, out)
    (out / "runs.jsonl").unlink()
    proc = judgekit("report", out)
    assert proc.returncode == 0, proc.stderr
    assert "is not in this directory" in (out / "report.html").read_text(encoding="utf-8")


def test_missing_summary_is_one_line_exit_2(tmp_path):
    proc = judgekit("report", tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "summary.json" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_bad_summary_is_one_line_exit_2(tmp_path):
    (tmp_path / "summary.json").write_text('{"results": [], "arms": {}', encoding="utf-8")
    proc = judgekit("report", tmp_path)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "summary.json" in proc.stderr and "malformed JSON" in proc.stderr
    (tmp_path / "summary.json").write_text('{"results": [], "arms": {}}', encoding="utf-8")
    proc = judgekit("report", tmp_path)
    assert proc.returncode == 2 and "comparisons: required field is missing" in proc.stderr


def test_bad_runs_line_names_file_and_line(scored_dir, tmp_path):
    out = tmp_path / "copy"
    shutil.copytree(scored_dir, out)
    with (out / "runs.jsonl").open("a", encoding="utf-8") as fh:
        fh.write('{"arm": "x"}\n')
    proc = judgekit("report", out)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "runs.jsonl: line 47: task" in proc.stderr
