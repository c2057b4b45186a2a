from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgekit.audit import calibrate, load_labels
from judgekit.audit.calibrate import read_labels
from judgekit.cli import main
from judgekit.errors import InputError
from tests.audit.helpers import agent_verdict, defect_verdict

JUDGE = [1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
HUMAN = [1, 1, 0, 1, 0, 0, 0, 0, 0, 0]
TASKS = [f"t{i:02d}" for i in range(10)]
# By hand: observed agreement 8/10 = 0.8; both raters say 1 for 3 of 10 tasks, so chance
# agreement is 0.3*0.3 + 0.7*0.7 = 0.58 and kappa = (0.8 - 0.58) / (1 - 0.58) = 11/21.
KAPPA = 11 / 21


def test_agreement_kappa_and_confusion_match_the_hand_computation() -> None:
    c = calibrate(dict(zip(TASKS, JUDGE)), dict(zip(TASKS, HUMAN)))
    assert c.n == 10 and c.agreement == 0.8
    assert c.kappa == pytest.approx(KAPPA, abs=1e-6)
    assert c.confusion == {"judge_1_human_1": 2, "judge_1_human_0": 1,
                           "judge_0_human_1": 1, "judge_0_human_0": 6}
    assert c.disagreements == ["t02", "t03"]
    lo, hi = c.kappa_ci
    assert -1 <= lo < KAPPA < hi <= 1
    assert c.kappa_ci_method.startswith("percentile bootstrap")


def test_bootstrap_interval_is_reproducible_with_its_seed() -> None:
    a = calibrate(dict(zip(TASKS, JUDGE)), dict(zip(TASKS, HUMAN)), seed=7)
    b = calibrate(dict(zip(TASKS, JUDGE)), dict(zip(TASKS, HUMAN)), seed=7)
    assert a.kappa_ci == b.kappa_ci


def test_unmatched_tasks_are_listed_not_compared() -> None:
    c = calibrate({"a": 1, "b": 0}, {"b": 0, "c": 1})
    assert c.n == 1 and c.labels_without_verdict == ["c"] and c.verdicts_without_label == ["a"]


def test_labels_csv_errors_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "labels.csv"
    path.write_text("task_id,label\nt1,1\nt2,0.5\n")
    with pytest.raises(InputError) as info:
        load_labels(path)
    assert info.value.field == "line 3: label"
    path.write_text("task_id,label\nt1,1\nt2,maybe\n")
    with pytest.raises(InputError) as info:
        load_labels(path)
    assert info.value.field == "line 3: label"
    path.write_text("task,label\nt1,1\n")
    with pytest.raises(InputError, match="task_id"):
        load_labels(path)


def write_audit(path: Path) -> None:
    """Result-level records whose per-task majority is JUDGE (t00 has a 2-to-1 majority)."""
    lines = []
    for task, score in zip(TASKS, JUDGE):
        for arm in ("a", "b"):
            verdict = defect_verdict() if score else agent_verdict()
            lines.append({"task_id": task, "arm": arm, "attempt": 0, "test_status": "failed",
                          "state": "valid", "verdict": verdict, "evidence_verified": True,
                          "tries": 1})
    lines.append({"task_id": "t00", "arm": "c", "attempt": 0, "test_status": "failed",
                  "state": "valid", "verdict": agent_verdict(), "evidence_verified": True,
                  "tries": 1})
    lines.append({"task_id": "t09", "arm": "c", "attempt": 0, "test_status": "failed",
                  "state": "unscored", "verdict": None, "evidence_verified": False, "tries": 3})
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))


def test_calibrate_command_prints_numbers_and_json(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_audit(tmp_path / "audit.jsonl")
    labels = tmp_path / "labels.csv"
    labels.write_text("task_id,label\n" + "".join(f"{t},{h}\n" for t, h in zip(TASKS, HUMAN)))
    assert main(["calibrate", str(tmp_path), "--labels", str(labels)]) == 0
    out = capsys.readouterr().out
    assert "agreement:      0.800" in out and "Cohen's kappa:  0.524" in out and "95% CI" in out
    assert main(["calibrate", str(tmp_path / "audit.jsonl"), "--labels", str(labels),
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["kappa"] == pytest.approx(KAPPA, abs=1e-6)
    assert data["confusion"]["judge_0_human_0"] == 6


def test_calibrate_rejects_a_broken_audit_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "audit.jsonl").write_text('{"task_id": "t1"}\n')
    labels = tmp_path / "labels.csv"
    labels.write_text("task_id,label\nt1,1\n")
    assert main(["calibrate", str(tmp_path), "--labels", str(labels)]) == 2
    assert "line 1" in capsys.readouterr().err


def test_per_run_label_rows_are_aggregated_by_majority_with_ties_and_blanks_reported(
        tmp_path: Path) -> None:
    path = tmp_path / "labels.csv"
    path.write_text("task_id,criteria,grade,correct,explanation,model_run\n"
                    '12,sab,1.00,0,"defect, clearly",run_a\n'
                    "12,sab,1.00,0,x,run_b\n"
                    "12,sab,0.00,0,x,run_c\n"
                    "2,sab,0.00,0,x,run_a\n"
                    "2,sab,,0,not labelled yet,run_b\n"
                    "28,sab,1.00,0,x,run_a\n"
                    "28,sab,0.00,0,x,run_b\n")
    labels = read_labels(path)
    assert labels.column == "grade" and labels.rows == 7 and labels.blank == 1
    assert labels.labels == {"12": 1, "2": 0} and labels.ties == ["28"]
    result = calibrate({"12": 1, "2": 1, "28": 0}, labels)
    assert result.n == 2 and result.label_ties == ["28"] and result.blank_labels == 1
    assert result.verdicts_without_label == []  # 28 tied: counted once, as a tie


def test_a_constant_judge_gets_no_false_interval(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result = calibrate(dict(zip(TASKS, [0] * 10)), dict(zip(TASKS, HUMAN)))
    assert result.kappa == 0.0 and result.kappa_ci is None
    assert "judge gave every task the same label" in result.kappa_note
    write_audit(tmp_path / "audit.jsonl")
    labels = tmp_path / "labels.csv"
    labels.write_text("task_id,label\n" + "".join(f"{t},1\n" for t in TASKS))
    assert main(["calibrate", str(tmp_path), "--labels", str(labels)]) == 0
    out = capsys.readouterr().out
    assert "-0.000" not in out and "95% CI" not in out and "same label" in out
    assert main(["calibrate", str(tmp_path), "--labels", str(labels), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["kappa_ci"] is None and "kappa_ci_analytic" not in data


def test_bootstrap_leaves_out_resamples_where_kappa_is_undefined() -> None:
    judge, human = [1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 1]
    result = calibrate(dict(zip(TASKS, judge)), dict(zip(TASKS, human)), seed=3)
    assert result.kappa_ci is not None and result.resamples_used < result.resamples
    assert result.kappa_ci[0] < result.kappa <= result.kappa_ci[1]


def test_label_column_can_be_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_audit(tmp_path / "audit.jsonl")
    labels = tmp_path / "labels.csv"
    labels.write_text("task_id,label,mine\n" + "".join(
        f"{t},0,{h}\n" for t, h in zip(TASKS, HUMAN)))
    assert main(["calibrate", str(tmp_path), "--labels", str(labels),
                 "--label-column", "mine", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["kappa"] == pytest.approx(KAPPA, abs=1e-6)
    assert main(["calibrate", str(tmp_path), "--labels", str(labels),
                 "--label-column", "absent"]) == 2
