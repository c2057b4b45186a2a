"""No usable bubblewrap: judgekit refuses to run anything, unless told ``--sandbox none``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.clirun import judgekit

from .conftest import Project, write_suite


@pytest.fixture
def path_without_bwrap(tmp_path: Path) -> str:
    """A PATH with every command of this one but ``bwrap`` (links in one directory)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for entry in os.environ["PATH"].split(os.pathsep):
        if not os.path.isdir(entry):
            continue
        for name in os.listdir(entry):
            target = Path(entry) / name
            if name != "bwrap" and not (bin_dir / name).exists() and os.access(target, os.X_OK):
                (bin_dir / name).symlink_to(target)
    assert not (bin_dir / "bwrap").exists()
    return str(bin_dir)


@pytest.fixture
def marked_suite(project: Project, tmp_path: Path) -> tuple[Path, Path]:
    """A suite whose setup and test commands leave a mark when they run."""
    marks = tmp_path / "marks"
    marks.mkdir()
    suite = write_suite(tmp_path / "s.yaml", project, setup_command=f"touch {marks}/setup",
                        test_command=f"touch {marks}/test")
    return suite, marks


def test_run_without_bwrap_exits_2_naming_bubblewrap_and_runs_nothing(
        marked_suite: tuple[Path, Path], tmp_path: Path, path_without_bwrap: str) -> None:
    suite, marks = marked_suite
    out = tmp_path / "run.json"
    proc = judgekit("run", suite, "--agent", f"touch {marks}/agent", "--out", out,
                    "--mirror-dir", tmp_path / "m", env={"PATH": path_without_bwrap})
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("judgekit: error: "), proc.stderr
    assert "bubblewrap" in lines[0] and "apt-get install bubblewrap" in lines[0]
    assert "--sandbox none" in lines[0]
    assert list(marks.iterdir()) == [], "nothing may run"
    assert not out.exists() and not (tmp_path / ".run.json.journal").exists()
    assert not (tmp_path / "run.transcripts").exists()


def test_suite_verify_without_bwrap_exits_2(marked_suite: tuple[Path, Path], tmp_path: Path,
                                            path_without_bwrap: str) -> None:
    suite, marks = marked_suite
    proc = judgekit("suite", "verify", suite, "--mirror-dir", tmp_path / "m",
                    env={"PATH": path_without_bwrap})
    assert proc.returncode == 2 and "bubblewrap" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert list(marks.iterdir()) == []


def test_sandbox_none_runs_warns_and_is_recorded_and_shown(
        marked_suite: tuple[Path, Path], tmp_path: Path, path_without_bwrap: str) -> None:
    suite, marks = marked_suite
    out = tmp_path / "run.json"
    proc = judgekit("run", suite, "--agent", f"touch {marks}/agent", "--out", out,
                    "--sandbox", "none", "--mirror-dir", tmp_path / "m",
                    env={"PATH": path_without_bwrap})
    assert proc.returncode == 0, proc.stderr
    assert "warning: --sandbox none" in proc.stderr
    assert sorted(p.name for p in marks.iterdir()) == ["agent", "setup", "test"]
    doc = json.loads(out.read_text())
    assert doc["metadata"]["sandbox"] == "none"
    assert [r["sandbox"] for r in doc["results"]] == ["none"]
    score = judgekit("score", out, "--no-similarity")
    assert score.returncode == 0, score.stderr
    assert "sandbox: none for 1 of 1 results" in score.stdout + score.stderr
    scored = judgekit("score", out, "--json", "--no-similarity")
    summary = json.loads(scored.stdout)
    assert summary["results"][0]["sandbox"] == "none"
    assert any(w.startswith("sandbox: none") for w in summary["warnings"])
    report = tmp_path / "report"
    assert judgekit("score", out, "--out", report, "--no-similarity").returncode == 0
    assert "sandbox: none for 1 of 1 results" in (report / "report.md").read_text()
