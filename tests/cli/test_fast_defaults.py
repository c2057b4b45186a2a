"""Explicit, fast defaults: no torch unless asked for, and a visible line when it is."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.clirun import ROOT, judgekit
from tests.conftest import EXAMPLE_BOBBIN

NO_TORCH = ("import sys\nfrom judgekit.cli import main\n"
            "code = main(sys.argv[1:])\n"
            "sys.exit(code or (3 if 'torch' in sys.modules else 0))\n")


def _results(out: Path) -> list[dict]:
    lines = (out / "results.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(x) for x in lines]


def _python(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


def test_import_judgekit_does_not_import_torch() -> None:
    proc = _python("import sys, judgekit\njudgekit.write_reports\n"
                   "sys.exit('torch' in sys.modules)")
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("command", ["score", "judge"])
def test_score_and_judge_do_not_load_the_embedding_model_by_default(command: str,
                                                                    tmp_path) -> None:
    proc = _python(NO_TORCH, command, str(EXAMPLE_BOBBIN), "--out", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr  # 3: torch was imported
    assert "similarity" not in proc.stderr
    assert all(r["diff_similarity"] is None for r in _results(tmp_path / "out"))


def test_similarity_is_opt_in_and_says_what_it_does(tmp_path) -> None:
    pytest.importorskip("sentence_transformers")
    proc = judgekit("score", EXAMPLE_BOBBIN / "20260210-194843-a327", "--similarity",
                    "--out", tmp_path / "out", env={"HF_HUB_OFFLINE": "1"})
    assert proc.returncode == 0, proc.stderr
    first = proc.stderr.strip().splitlines()[0]
    assert first.startswith("similarity: embedding every agent diff") and "20 s" in first
    assert any(r["diff_similarity"] is not None for r in _results(tmp_path / "out"))


GC_PROBE = ("import gc, sys\nfrom judgekit.cli import main\n"
            "gc.set_threshold(int(sys.argv[1]), 10, 10)\n"
            "main(['rubrics', 'list'])\n"
            "print(gc.get_threshold()[0])\n")


def test_a_command_collects_young_objects_less_often() -> None:
    proc = _python(GC_PROBE, "700")
    assert proc.returncode == 0, proc.stderr
    assert int(proc.stdout.split()[-1]) >= 10_000


def test_a_collector_turned_off_by_the_embedder_stays_off() -> None:
    proc = _python(GC_PROBE, "0")
    assert proc.returncode == 0, proc.stderr
    assert int(proc.stdout.split()[-1]) == 0
