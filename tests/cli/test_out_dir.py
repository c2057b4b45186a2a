"""``--out``: a file is a usage error, another evaluation's output is refused unless
``--force``, and a directory is always replaced as one set (no stale files, no temp files)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from judgekit.errors import InputError
from judgekit.report.outdir import replace_dir
from tests.cli.helpers import run_file
from tests.clirun import judgekit
from tests.conftest import EXAMPLE_BOBBIN

ONE_RUN = EXAMPLE_BOBBIN / "20260210-194843-a327"


def _one_line_error(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stdout == ""
    return lines[0]


def _siblings(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir() if p.name != path.name)


@pytest.mark.parametrize("command", ["score", "judge", "audit"])
def test_out_naming_a_file_is_a_usage_error_and_the_file_is_kept(tmp_path: Path,
                                                                 command: str) -> None:
    target = tmp_path / "existing.txt"
    target.write_text("keep me", encoding="utf-8")
    extra = ["--rubric", "commit-revert"] if command == "audit" else []
    line = _one_line_error(judgekit(command, ONE_RUN, *extra, "--out", target))
    assert "existing.txt" in line and "--out" in line and "directory" in line
    assert target.read_text(encoding="utf-8") == "keep me"


def test_out_below_a_file_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x", encoding="utf-8")
    line = _one_line_error(judgekit("score", ONE_RUN, "--out", tmp_path / "f" / "out"))
    assert "is a file" in line


def test_another_evaluations_output_is_refused_then_replaced_as_a_set(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert judgekit("score", run_file(tmp_path), "--out", out).returncode == 0
    (out / "pairwise.jsonl").write_text("{}\n", encoding="utf-8")  # as a judge run leaves it
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    line = _one_line_error(judgekit("score", ONE_RUN, "--out", out))
    assert "another evaluation" in line and "--force" in line
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # nothing touched

    proc = judgekit("score", ONE_RUN, "--out", out, "--force")
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        "report.html", "report.md", "results.jsonl", "runs.jsonl", "summary.json"]
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert {r["task_id"] for r in summary["results"]} == {"ruff-001"}
    assert _siblings(out) == ["runs.json"]  # no staging directory left beside it


def test_the_same_evaluation_is_replaced_without_force_and_stale_records_go(
        tmp_path: Path) -> None:
    out = tmp_path / "out"
    runs = run_file(tmp_path)
    assert judgekit("score", runs, "--out", out).returncode == 0
    (out / "audit.jsonl").write_text("{}\n", encoding="utf-8")  # from an earlier judge run
    proc = judgekit("score", runs, "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert not (out / "audit.jsonl").exists()
    assert "report: " in proc.stderr and str(out / "report.html") in proc.stderr


def test_a_directory_of_other_files_needs_force_and_keeps_them(tmp_path: Path) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("my notes", encoding="utf-8")
    line = _one_line_error(judgekit("score", ONE_RUN, "--out", out))
    assert "notes.txt" in line and "not judgekit output" in line
    assert judgekit("score", ONE_RUN, "--out", out, "--force").returncode == 0
    assert (out / "notes.txt").read_text(encoding="utf-8") == "my notes"
    assert (out / "summary.json").is_file()


def test_an_unreadable_summary_counts_as_another_evaluation(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "summary.json").write_text("{", encoding="utf-8")
    line = _one_line_error(judgekit("score", ONE_RUN, "--out", out))
    assert "readable summary.json" in line and "--force" in line


def test_a_failed_write_leaves_the_old_set_and_no_temp_files(tmp_path: Path) -> None:
    out = tmp_path / "out"
    replace_dir(out, lambda d: (d / "summary.json").write_text("old", encoding="utf-8"))

    def half_then_fail(d: Path) -> None:
        (d / "summary.json").write_text("new", encoding="utf-8")
        raise OSError("disk full")

    with pytest.raises(InputError, match="cannot write: disk full"):  # one line, not a trace
        replace_dir(out, half_then_fail)
    assert (out / "summary.json").read_text(encoding="utf-8") == "old"
    assert _siblings(out) == []


def test_a_killed_writer_leaves_nothing_the_next_write_keeps(tmp_path: Path) -> None:
    out = tmp_path / "out"
    code = ("import os, sys\nfrom pathlib import Path\n"
            "from judgekit.report.outdir import replace_dir\n"
            "def fill(d):\n    (d / 'summary.json').write_text('partial')\n    os._exit(9)\n"
            f"replace_dir(Path({str(out)!r}), fill)\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).parents[2])
    assert proc.returncode == 9
    left = _siblings(out)  # the killed writer's staging directory and lock
    assert len(left) == 2 and ".out.judgekit-lock" in left and not out.exists()
    replace_dir(out, lambda d: (d / "summary.json").write_text("{}", encoding="utf-8"))
    assert _siblings(out) == [] and (out / "summary.json").read_text() == "{}"


def test_written_set_has_the_usual_permissions(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        replace_dir(tmp_path / "out", lambda d: (d / "report.md").write_text("#"))
    finally:
        os.umask(old)
    assert (tmp_path / "out").stat().st_mode & 0o777 == 0o755
    assert (tmp_path / "out" / "report.md").stat().st_mode & 0o777 == 0o644


def test_out_as_the_working_directory_keeps_it_in_place(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    runs = run_file(tmp_path)
    assert judgekit("score", runs, "--out", ".", cwd=work).returncode == 0
    inode = work.stat().st_ino
    (work / "pairwise.jsonl").write_text("{}\n", encoding="utf-8")
    proc = judgekit("score", runs, "--out", ".", cwd=work)
    assert proc.returncode == 0, proc.stderr
    assert work.stat().st_ino == inode and not (work / "pairwise.jsonl").exists()
    assert (work / "report.html").is_file() and _siblings(work) == ["runs.json"]
