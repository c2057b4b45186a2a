"""The review queue's random order and the labels' record of how each item was chosen."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from judgekit.review.items import load_queue, queue_order
from judgekit.review.sampling import SampledState, SampledStore

DIMS = ("consistency", "completeness", "minimality")


def test_the_order_is_a_seeded_permutation() -> None:
    assert queue_order(50, 3) == queue_order(50, 3)
    assert queue_order(50, 3) != queue_order(50, 4)
    assert sorted(queue_order(50, 3)) == list(range(50))


def test_two_sessions_with_one_seed_show_one_order(judged_out: Path) -> None:
    def tasks(seed: int) -> list[str]:
        return [f"{it.task_id}/{it.record.attempt_a}" for it in load_queue(judged_out, seed).items]
    assert tasks(5) == tasks(5)
    assert tasks(5) != tasks(6)
    assert sorted(tasks(5)) == sorted(tasks(6))


def _state(out: Path, seed: int = 0) -> SampledState:
    return SampledState(load_queue(out, seed), SampledStore(out, "ana"))


def _rows(out: Path) -> list[dict[str, object]]:
    return [json.loads(x) for x in (out / "labels" / "pairwise.jsonl").read_text().splitlines()]


def test_labels_in_queue_order_are_random_and_others_say_how_they_were_chosen(
        judged_out: Path, tmp_path: Path) -> None:
    out = Path(shutil.copytree(judged_out, tmp_path / "out"))
    state = _state(out, seed=11)
    for i in (0, 1):
        for dim in DIMS:
            state.label({"i": i, "dimension": dim, "choice": "left"})
    state.label({"i": 5, "dimension": DIMS[0], "choice": "draw", "via": "filter"})
    state.label({"i": 7, "dimension": DIMS[0], "choice": "draw"})
    state.label({"i": 2, "dimension": DIMS[0], "choice": "right", "via": "filter"})
    rows = _rows(out)
    assert [(r["chosen"], r["queue_position"], r["queue_seed"]) for r in rows] == (
        [("random", 0, 11)] * 3 + [("random", 1, 11)] * 3
        + [("filter", 5, 11), ("hand", 7, 11), ("random", 2, 11)])
    view = state.queue_view()
    assert view["queue_seed"] == 11 and view["random_labelled"] == {"pairwise": 2}


def test_calibrate_uses_the_random_labels_only_and_counts_the_others(
        judged_out: Path, tmp_path: Path) -> None:
    from tests.clirun import judgekit

    out = Path(shutil.copytree(judged_out, tmp_path / "out"))
    state = _state(out)
    for i in range(4):
        for dim in DIMS:
            state.label({"i": i, "dimension": dim, "choice": "left"})
    for i in (7, 9):
        for dim in DIMS:
            state.label({"i": i, "dimension": dim, "choice": "right"})
    proc = judgekit("calibrate", out, "--json")
    assert proc.returncode == 0, proc.stderr
    corrected = json.loads(proc.stdout)["corrected"]
    (pair,) = corrected
    for dim in DIMS:
        c = corrected[pair][dim]
        assert (c["n_labelled"], c["n_labels_not_random"], c["random_sample"]) == (4, 2, True)
        assert c["n_items"] == 10 and c["judge_only"] is not None and c["ppi"] is not None


def test_calibrate_reports_every_kind_of_label_present(
        judged_out: Path, audited_out: Path, tmp_path: Path) -> None:
    """An output with pairwise and audit records, labelled in the review app: calibrate
    without --labels measures both, in its text, its JSON, calibration.json and report."""
    from tests.clirun import judgekit

    out = Path(shutil.copytree(judged_out, tmp_path / "out"))
    shutil.copy(audited_out / "audit.jsonl", out / "audit.jsonl")
    state = _state(out)
    for i, item in enumerate(state.queue.items[:8]):
        if item.kind == "audit":
            state.label({"i": i, "choice": 0})
        else:
            for dim in DIMS:
                state.label({"i": i, "dimension": dim, "choice": "left"})
    kinds = {it.kind for it in state.queue.items[:8]}
    assert kinds == {"audit", "pairwise"}
    proc = judgekit("calibrate", out, "--target-width", "0.05")
    assert proc.returncode == 0, proc.stderr
    assert "== pairwise labels ==" in proc.stdout and "== audit labels ==" in proc.stdout
    assert "tasks compared:" in proc.stdout and "judge only (uncorrected)" in proc.stdout
    got = json.loads(judgekit("calibrate", out, "--json").stdout)
    assert set(got) == {"pairwise", "audit"}
    assert got["audit"]["corrected"]["defect"]["n_labelled"] == sum(
        it.kind == "audit" for it in state.queue.items[:8])
    kept = json.loads((out / "calibration.json").read_text())
    assert kept["pairwise"] is not None and kept["audit"] is not None
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "labels only" in report and "PPI++" in report


def test_the_queue_shows_progress_toward_the_label_budget(judged_out: Path,
                                                          tmp_path: Path) -> None:
    """After `calibrate --target-width`, the review's queue says how many random labels
    each kind has toward the count it asked for."""
    from judgekit.cli.review import _targets
    from tests.clirun import judgekit

    out = Path(shutil.copytree(judged_out, tmp_path / "out"))
    state = _state(out)
    for i in range(3):
        for dim in DIMS:
            state.label({"i": i, "dimension": dim, "choice": "left"})
    proc = judgekit("calibrate", out, "--target-width", "0.3")
    assert proc.returncode == 0, proc.stderr
    assert "±30 points" in proc.stdout
    targets = _targets(out)
    needs = [c["labels_needed"] for dims in json.loads(
        (out / "calibration.json").read_text())["pairwise"]["corrected"].values()
        for c in dims.values()]
    assert targets == {"pairwise": {"half_width": 0.3,
                                    "labels_needed": None if None in needs else max(needs)}}
    state = SampledState(load_queue(out, 0), SampledStore(out, "ana"), targets)
    assert state.queue_view()["targets"]["pairwise"]["random_labelled"] == 3
    for dim in DIMS:
        state.label({"i": 3, "dimension": dim, "choice": "left"})
    assert state.queue_view()["targets"]["pairwise"]["random_labelled"] == 4
