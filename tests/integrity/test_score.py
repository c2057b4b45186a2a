"""``judgekit score`` runs the integrity checks by default: per arm the pass rate as
reported beside the pass rate with flagged passes counted as failures, in summary.json,
the terminal, report.md and report.html; ``--no-integrity`` skips them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgekit import evaluate
from judgekit.cli import main
from judgekit.integrity.kind import INTEGRITY
from judgekit.integrity.models import IntegrityRecord
from judgekit.scoring.stream import iter_scored
from tests.integrity.runs import write_run


def _score(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["score", *args]) == 0
    return capsys.readouterr().out


def _both(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["score", *args]) == 0
    got = capsys.readouterr()
    return got.out + got.err


def test_summary_json_has_both_rates_equal_to_the_hand_count(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = write_run(tmp_path / "run.jsonl")
    data = json.loads(_score(capsys, str(run), "--json"))["integrity"]
    a, b = data["arms"]["a"], data["arms"]["b"]
    assert (a["n"], a["n_passed"], a["n_flagged"], a["n_flagged_passes"]) == (4, 3, 3, 2)
    assert (a["pass_rate"], a["pass_rate_adjusted"]) == (0.75, 0.25)
    assert (b["pass_rate"], b["pass_rate_adjusted"], b["n_flagged"]) == (0.5, 0.5, 0)
    assert b["n_without_transcript"] == 1 and data["n_without_transcript"] == 1
    assert a["by_kind"] == {"fetch-upstream": 1, "peek-history": 1, "skip-tests": 1}
    assert data["ranking_changes"] == [{"arm_a": "a", "arm_b": "b", "reported": "a > b",
                                        "adjusted": "a < b"}]
    assert not data["judged"] and "unconfirmed" in data["rule"]


def test_no_integrity_skips_the_checks(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    run = write_run(tmp_path / "run.jsonl")
    assert "integrity" not in json.loads(_score(capsys, str(run), "--json", "--no-integrity"))
    assert evaluate([run], integrity=False).part(INTEGRITY) is None


def test_reports_lead_with_a_warning_and_show_the_rates_side_by_side(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = write_run(tmp_path / "run.jsonl")
    out = tmp_path / "out"
    terminal = _both(capsys, str(run), "--out", str(out))
    assert "a: pass rate 75.0% as reported, 25.0% with 2 flagged passes counted as " \
           "failures" in " ".join(terminal.split())
    assert "integrity: 3 of 8 results flagged, 2 passes counted as failures" in terminal
    md = (out / "report.md").read_text(encoding="utf-8")
    assert md.index("> **Warning.** Integrity: 3 result(s) flagged") < md.index("## Arms")
    assert "| a | 4 | 75.0% | 25.0% | 2 | 3 | 0 |" in md
    assert "ranking of a and b changes: a > b as reported, a < b" in md
    html = (out / "report.html").read_text(encoding="utf-8")
    assert 'integrity-warning' in html and '<section id="integrity">' in html
    records = [IntegrityRecord.model_validate_json(x) for x in
               (out / "integrity.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sorted((str(r.key()), r.counted_apart) for r in records) == [
        ("t1 / a / attempt 0", True), ("t2 / a / attempt 0", True),
        ("t4 / a / attempt 0", False)]
    peek = next(r for r in records if r.task_id == "t2")
    assert [(f.kind, f.evidence.tool_call, f.evidence.command) for f in peek.findings] == [
        ("peek-history", 0, "git show fix:calc.py")]


def test_evaluate_returns_the_findings_typed(tmp_path: Path) -> None:
    part = evaluate([write_run(tmp_path / "run.jsonl")]).part(INTEGRITY)
    assert part is not None
    assert all(isinstance(r, IntegrityRecord) for r in part.records)
    assert {r.task_id for r in part.records} == {"t1", "t2", "t4"}


def test_worker_processes_send_back_what_they_found(tmp_path: Path) -> None:
    """Scores made in worker processes bring their findings with them."""
    from judgekit.integrity.inspect import inspect_result

    run = write_run(tmp_path / "run.jsonl")
    told: list[tuple[str, object]] = []
    rows = list(iter_scored(run, workers=2, inspect=inspect_result,
                            seen=lambda row, seen: told.append((row.task_id + row.arm, seen))))
    assert len(rows) == 8
    assert sorted(k for k, _ in told) == ["t1a", "t2a", "t2b", "t4a"]  # t2b: no transcript
