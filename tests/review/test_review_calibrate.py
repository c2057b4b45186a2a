"""``judgekit calibrate DIR`` over the labels of several labellers, pairwise and audit: per
labeller, pooled (the majority; ties left out and counted), and how far the labellers agree."""

from __future__ import annotations

import html
import json
import shutil
from pathlib import Path

import pytest

from judgekit.review.items import AuditItem, load_queue
from judgekit.review.labels import LabelStore
from tests.clirun import judgekit
from tests.review.conftest import N_TASKS

DIMS = ("consistency", "completeness", "minimality")


def _label_twice(out: Path) -> list[tuple[str, str, str, str]]:
    """ana labels every comparison A; bo agrees on the first 20 and says B on the last 10."""
    records = [json.loads(x) for x in (out / "pairwise.jsonl").read_text().splitlines()]
    keys = [(r["task_id"], r["arm_a"], r["arm_b"], d) for r in records for d in DIMS]
    assert len(keys) == N_TASKS * len(DIMS) == 30
    ana, bo = LabelStore(out, "ana"), LabelStore(out, "bo")
    shown = {it.task_id: it.shown_sha256 for it in load_queue(out, seed=0).items}
    for n, key in enumerate(keys):
        ana.add_pairwise(*key, "A", shown_sha256=shown[key[0]])
        bo.add_pairwise(*key, "A" if n < 20 else "B", shown_sha256=shown[key[0]])
    return keys


def test_two_labellers_who_disagree_are_calibrated_apart_pooled_and_against_each_other(
        judged_out: Path, tmp_path: Path) -> None:
    out = Path(shutil.copytree(judged_out, tmp_path / "out"))
    _label_twice(out)
    proc = judgekit("calibrate", out, "--json")
    assert proc.returncode == 0, proc.stderr  # different labellers never contradict
    got = json.loads(proc.stdout)
    # pooled: the 20 comparisons both labelled A; the 10 they split on are ties, left out
    assert got["n_labels"] == 20 and got["pooled_ties"] == 10
    assert list(got["labellers"]) == ["ana", "bo"]
    assert [c["n_labels"] for c in got["labellers"].values()] == [30, 30]
    # alpha by hand: 60 values (A 50, B 10); 10 units split, each within-unit
    # disagreement 2: alpha = 1 - 59 * 20 / (60² - 50² - 10²) = 1 - 1180 / 1000
    a = got["labeller_agreement"]
    assert a["alpha"] == pytest.approx(-0.18) and a["n_units"] == 30
    assert a["n_pairs"] == N_TASKS and a["ci"][0] <= -0.18 <= a["ci"][1]
    # each labeller's figures are those of a file of their labels alone
    lines = (out / "labels" / "pairwise.jsonl").read_text().splitlines()
    for who in ("ana", "bo"):
        own = tmp_path / f"{who}.jsonl"
        own.write_text("".join(x + "\n" for x in lines if json.loads(x)["labeller"] == who))
        alone = judgekit("calibrate", out, "--labels", own, "--json")
        assert alone.returncode == 0, alone.stderr
        assert got["labellers"][who]["judges"] == json.loads(alone.stdout)["judges"]
        assert json.loads(alone.stdout)["labellers"] == {}  # one labeller: nothing apart


def test_the_reports_show_each_labeller_and_their_agreement(judged_out: Path,
                                                            tmp_path: Path) -> None:
    out = Path(shutil.copytree(judged_out, tmp_path / "out"))
    _label_twice(out)
    proc = judgekit("calibrate", out)
    assert proc.returncode == 0, proc.stderr
    assert "Labels of 2 labellers (ana 30, bo 30)" in proc.stdout
    assert "10 comparisons whose labellers tied are left out" in proc.stdout
    assert "Krippendorff's alpha (nominal) between the labellers -0.180 [" in proc.stdout
    md = (out / "report.md").read_text(encoding="utf-8")
    html = (out / "report.html").read_text(encoding="utf-8")
    for text in (md, html):
        assert "Labels of 2 labellers (ana 30, bo 30)" in text
        assert "between the labellers -0.180" in text
    assert "| ana: " in md and "| bo: " in md


def test_calibrate_without_labels_reads_the_audit_labels_as_the_same_rows_in_a_csv(
        audited_out: Path, tmp_path: Path) -> None:
    out = Path(shutil.copytree(audited_out, tmp_path / "out"))
    records = [json.loads(x) for x in (out / "audit.jsonl").read_text().splitlines()]
    ana, bo = LabelStore(out, "ana"), LabelStore(out, "bo")
    shown = _shown_audit(out)
    rows = ["task_id,label"]
    for rec in records:
        key = (rec["task_id"], rec["arm"], rec["attempt"], rec.get("run_id") or "")
        label = 1 if rec["task_id"] == "calc-002" else 0
        ana.add_audit(key, 1 - label, category=None, shown_sha256=shown[key])
        ana.add_audit(key, label, category=None, shown_sha256=shown[key])  # supersedes
        bo.add_audit(key, label, category=None, shown_sha256=shown[key])
        rows += [f"{rec['task_id']},{label}"] * 2
    csv = tmp_path / "labels.csv"
    csv.write_text("\n".join(rows) + "\n")
    by_default = judgekit("calibrate", out, "--json")
    assert by_default.returncode == 0, by_default.stderr
    named = judgekit("calibrate", out, "--labels", csv, "--json")
    assert named.returncode == 0, named.stderr
    got, want = json.loads(by_default.stdout), json.loads(named.stdout)
    # the lines read: each labeller's last per result counts, ana's first four superseded
    assert (got.pop("label_rows"), want.pop("label_rows")) == (3 * len(records),
                                                                2 * len(records))
    # the CSV names no labellers; the review's labels give each labeller's figures apart
    assert (got.pop("labeller_note"), want.pop("labeller_note")) == (None, None)
    assert got.pop("labeller_agreement")["alpha"] == 1.0 and want.pop("labeller_agreement") is None
    assert list(got.pop("labellers")) == ["ana", "bo"] and want.pop("labellers") == {}
    # the corrected shares: per result from the review's labels, per task from a CSV
    assert (got.pop("corrected_unit"), want.pop("corrected_unit")) == ("result", "task")
    assert "defect" in got.pop("corrected") and "defect" in want.pop("corrected")
    assert got == want and got["n"] == len({r["task_id"] for r in records})


def _shown_audit(out: Path) -> dict[tuple[str, str, int, str], str]:
    """Each audited result's key → the hash of what the review shows of it."""
    return {it.key(): it.shown_sha256 for it in load_queue(out, seed=0).items
            if isinstance(it, AuditItem)}


def _audit_keys(out: Path) -> dict[str, tuple[str, str, int, str]]:
    """``task/arm`` → the key of that audited result."""
    records = [json.loads(x) for x in (out / "audit.jsonl").read_text().splitlines()]
    return {f"{r['task_id']}/{r['arm']}": (r["task_id"], r["arm"], r["attempt"],
                                           r.get("run_id") or "") for r in records}


#: ana labels all four audited results as the judge does (calc-002 a defect of the task);
#: bo labels three of them and blames the agent on calc-002/b.
ANA = {"calc-002/a": 1, "calc-002/b": 1, "calc-001/a": 0, "calc-001/b": 0}
BO = {"calc-002/a": 1, "calc-002/b": 0, "calc-001/a": 0}


def _label_audit(out: Path, **by_labeller: dict[str, int]) -> None:
    keys = _audit_keys(out)
    shown = _shown_audit(out)
    assert sorted(keys) == sorted(ANA)
    for who, labels in by_labeller.items():
        store = LabelStore(out, who)
        for item, label in labels.items():
            store.add_audit(keys[item], label, category=None,  # type: ignore[arg-type]
                            shown_sha256=shown[keys[item]])


def test_two_audit_labellers_are_calibrated_apart_and_against_each_other(
        audited_out: Path, tmp_path: Path) -> None:
    out = Path(shutil.copytree(audited_out, tmp_path / "out"))
    _label_audit(out, ana=ANA, bo=BO)
    proc = judgekit("calibrate", out, "--json")
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    # pooled: calc-002 1 (three 1s of four), calc-001 0: as the judge
    assert got["n"] == 2 and got["agreement"] == 1.0 and got["labeller_note"] is None
    ana, bo = got["labellers"]["ana"], got["labellers"]["bo"]
    assert (ana["n_labels"], ana["n"], ana["agreement"], ana["kappa"]) == (4, 2, 1.0, 1.0)
    # bo split calc-002 evenly: a tie, left out of bo's figures; one task left, one label
    assert (bo["n_labels"], bo["n"], bo["label_ties"]) == (3, 1, ["calc-002"])
    assert bo["agreement"] == 1.0 and bo["kappa"] is None and "undefined" in bo["kappa_note"]
    # by hand, over the three results both labelled (ana 1 1 0, bo 1 0 0): six values, three
    # 1s and three 0s, one unit split: alpha = 1 - (6 - 1) * 2 / (2 * 3 * 3) = 4/9;
    # kappa: observed 2/3, by chance 2/3 * 1/3 + 1/3 * 2/3 = 4/9: (2/3 - 4/9) / (5/9) = 0.4
    a = got["labeller_agreement"]
    assert a["alpha"] == pytest.approx(4 / 9, abs=1e-6) and a["metric"] == "nominal"
    assert (a["n_items"], a["n_raters"]) == (3, 2)
    assert a["alpha_ci"][0] <= a["alpha"] <= a["alpha_ci"][1]
    [pair] = a["pairs"]
    assert pair["labellers"] == ["ana", "bo"] and pair["n"] == 3
    assert pair["agreement"] == pytest.approx(2 / 3, abs=1e-6)
    assert pair["kappa"] == pytest.approx(0.4, abs=1e-6)
    # each labeller's figures are those of a CSV of their rows alone
    for who, labels in (("ana", ANA), ("bo", BO)):
        csv = tmp_path / f"{who}.csv"
        csv.write_text("task_id,label\n" + "".join(f"{k.split('/')[0]},{v}\n"
                                                   for k, v in labels.items()))
        alone = json.loads(judgekit("calibrate", out, "--labels", csv, "--json").stdout)
        mine = got["labellers"][who]
        assert {k: mine[k] for k in ("n", "agreement", "kappa", "kappa_ci", "confusion",
                                     "disagreements")} == {
            k: alone[k] for k in ("n", "agreement", "kappa", "kappa_ci", "confusion",
                                  "disagreements")}
        assert mine["label_ties"] == alone["label_ties"]


def test_the_audit_labellers_are_in_the_command_output_and_the_reports(
        audited_out: Path, tmp_path: Path) -> None:
    out = Path(shutil.copytree(audited_out, tmp_path / "out"))
    _label_audit(out, ana=ANA, bo=BO)
    proc = judgekit("calibrate", out)
    assert proc.returncode == 0, proc.stderr
    md = (out / "report.md").read_text(encoding="utf-8")
    page = html.unescape((out / "report.html").read_text(encoding="utf-8"))
    for text in (proc.stdout, md, page):
        assert "Audit labels of 2 labellers (results labelled: ana 4, bo 3)" in text
        assert "Between the labellers: Krippendorff's alpha (nominal) 0.444 [" in text
        assert "ana vs bo: agreement 66.7%, Cohen's kappa 0.400" in text


def test_one_audit_labeller_gives_no_agreement_between_labellers_and_says_why(
        audited_out: Path, tmp_path: Path) -> None:
    out = Path(shutil.copytree(audited_out, tmp_path / "out"))
    _label_audit(out, ana=ANA)
    proc = judgekit("calibrate", out, "--json")
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert got["labellers"] == {} and got["labeller_agreement"] is None
    assert got["labeller_note"] == ("one labeller (ana): no agreement between labellers to "
                                    "measure")
    assert got["n"] == 2 and got["agreement"] == 1.0
    text = judgekit("calibrate", out)
    assert text.returncode == 0, text.stderr
    why = "No agreement between labellers: one labeller (ana)"
    assert why in text.stdout and "Krippendorff" not in text.stdout
    assert why in (out / "report.md").read_text(encoding="utf-8")


def test_tied_comparisons_are_counted_as_ties_and_not_as_verdicts_without_a_label(
        judged_out: Path, tmp_path: Path) -> None:
    out = Path(shutil.copytree(judged_out, tmp_path / "out"))
    keys = _label_twice(out)[:27]  # the last three comparisons by nobody
    lines = (out / "labels" / "pairwise.jsonl").read_text().splitlines()
    (out / "labels" / "pairwise.jsonl").write_text("".join(
        x + "\n" for x in lines
        if tuple(json.loads(x)[k] for k in ("task_id", "arm_a", "arm_b", "dimension")) in keys))
    got = json.loads(judgekit("calibrate", out, "--json").stdout)
    # 30 comparisons: 20 labelled alike, 7 tied, 3 labelled by nobody: each counted once
    assert got["n_labels"] == 20 and got["pooled_ties"] == 7
    assert got["n_verdicts_without_label"] == 3
    assert got["n_labels"] + got["pooled_ties"] + got["n_verdicts_without_label"] == 30


def test_a_tied_audit_task_is_a_tie_and_not_a_verdict_without_a_label(
        audited_out: Path, tmp_path: Path) -> None:
    out = Path(shutil.copytree(audited_out, tmp_path / "out"))
    _label_audit(out, ana={"calc-002/a": 1, "calc-001/a": 0},
                 bo={"calc-002/a": 0, "calc-001/a": 0})
    got = json.loads(judgekit("calibrate", out, "--json").stdout)
    assert got["label_ties"] == ["calc-002"] and got["verdicts_without_label"] == []
    assert got["n"] == 1  # calc-001: two audited tasks, one compared, one tied
    text = judgekit("calibrate", out).stdout
    assert "0 verdicts without label" in text and "1 tied task(s) left out" in text
