"""``judgekit calibrate DIR`` over the labels of several labellers: per labeller, pooled (the
majority; ties left out and counted), and how far the labellers agree."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

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
    for n, key in enumerate(keys):
        ana.add_pairwise(*key, "A", shown_sha256="0" * 64)
        bo.add_pairwise(*key, "A" if n < 20 else "B", shown_sha256="0" * 64)
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
    rows = ["task_id,label"]
    for rec in records:
        key = (rec["task_id"], rec["arm"], rec["attempt"], rec.get("run_id") or "")
        label = 1 if rec["task_id"] == "calc-002" else 0
        ana.add_audit(key, 1 - label, category=None, shown_sha256="0" * 64)
        ana.add_audit(key, label, category=None, shown_sha256="0" * 64)  # supersedes
        bo.add_audit(key, label, category=None, shown_sha256="0" * 64)
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
    assert got == want and got["n"] == len({r["task_id"] for r in records})
