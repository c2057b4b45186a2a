"""A task whose fix is recorded as passing its tests (``suite verify --json``) contradicts a
score-1 verdict as another result's verified pass does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgekit.cli import main
from judgekit.testing import FakeAPIServer
from tests.audit.helpers import result, write_runs
from tests.audit.test_contradicted import blames_everything
from tests.clirun import judgekit


def _checks(path: Path) -> Path:
    path.write_text(json.dumps([
        {"task_id": "drift-2", "ok": True, "problems": [], "at_parent": "failed",
         "with_fix": "passed", "tests_at_parent": 4, "tests_with_fix": 4},
        {"task_id": "drift-3", "ok": False, "problems": ["the fix fails its tests"],
         "at_parent": "failed", "with_fix": "failed", "tests_at_parent": 4,
         "tests_with_fix": 4}]))
    return path


def test_a_fix_that_passes_its_tests_contradicts_a_score_1(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-openai-key")
    runs = write_runs(tmp_path / "runs.json", [
        result("drift-2", "a", "failed"), result("drift-2", "b", "failed"),
        result("drift-3", "a", "failed")])
    out = tmp_path / "out"
    with FakeAPIServer(blames_everything) as server:
        code = main(["audit", str(runs), "--judge", "openai:gpt-4.1-mini", "--base-url",
                     server.openai_base_url, "--rubric", "swe-bench", "--out", str(out),
                     "--fix-verified", str(_checks(tmp_path / "verify.json")),
                     "--no-similarity", "--no-cache"])
    assert code == 0
    records = {(r["task_id"], r["arm"]): r for r in
               map(json.loads, (out / "audit.jsonl").read_text().splitlines())}
    for arm in "ab":
        rec = records[("drift-2", arm)]
        assert rec["verdict"]["score"] == 1 and rec["contradicted"] is True
        assert rec["contradicted_by"] == [
            "drift-2: the fix passes its tests (suite verify, 4 tests ran)"]
    assert records[("drift-3", "a")]["contradicted"] is False  # its fix failed: no evidence
    summary = json.loads((out / "summary.json").read_text())["audit"]
    assert summary["n_contradicted"] == 2 and "drift-2" not in summary["suspected_tasks"]


def test_a_bad_verify_file_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "verify.json"
    bad.write_text(json.dumps([{"task_id": "t", "ok": "maybe"}]))
    runs = write_runs(tmp_path / "runs.json", [result("t", "a", "failed")])
    proc = judgekit("audit", runs, "--judge", "openai:m1@http://127.0.0.1:9/v1",
                    "--fix-verified", bad, "--out", tmp_path / "out")
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and str(bad) in lines[0] and "ok" in lines[0], proc.stderr
    assert not (tmp_path / "out").exists()
