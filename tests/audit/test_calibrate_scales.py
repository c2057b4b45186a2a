"""``judgekit calibrate --label-columns``: item-audit verdicts against human severity
scales in the form SWE-bench Verified publishes them (self-made items and labels), each
figure checked against a hand computation."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any

import pytest

from judgekit.cli import main
from judgekit.testing import FakeAPIServer, Reply, prompt_of
from tests.audit.helpers import agent_verdict

N_ITEMS = 300
THRESHOLD = 2
COLUMNS = ("underspecified", "false_negative")
CATEGORY = {"underspecified": "underspecified-issue", "false_negative": "wrong-tests"}


def _judged_kind(i: int) -> str | None:
    """The scripted judge's verdict on item ``i``: a category, 'none', or None (no
    verdict)."""
    if i % 50 == 13:
        return None
    if i % 5 == 0:
        return "underspecified-issue"
    if i % 7 == 0:
        return "wrong-tests"
    if i % 11 == 0:
        return "environment-drift"
    return "none"


def _human(i: int) -> dict[str, str] | None:
    """The labels of item ``i`` (None: no row); blank scores on some rows."""
    if i % 40 == 7:
        return None
    under = "" if i % 60 == 1 else str((i * 3) % 4 if i % 5 else 3 - (i // 5) % 2)
    false_neg = "" if i % 60 == 1 else str((i * 7) % 4 if i % 7 else 2 + (i // 7) % 2)
    return {"underspecified": under, "false_negative": false_neg}


def _items(path: Path) -> Path:
    rows = [{"instance_id": f"acme__calc-{i}", "repo": "acme/calc",
             "problem_statement": f"Item number {i}: div(1, 0) should return None.",
             "patch": "diff --git a/src/calc.py b/src/calc.py\n", "test_patch": "",
             "FAIL_TO_PASS": "[]", "PASS_TO_PASS": "[]", "hints_text": ""}
            for i in range(N_ITEMS)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _labels(path: Path, extra: int = 5) -> Path:
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["instance_id", "underspecified", "underspecified_notes", "false_negative",
                    "false_negative_notes", "other_major_issues", "filter_out"])
        for i in range(N_ITEMS):
            h = _human(i)
            if h is not None:
                w.writerow([f"acme__calc-{i}", h["underspecified"], "note, with a comma",
                            h["false_negative"], "", "0", ""])
        for k in range(extra):  # labels of items that were never audited
            w.writerow([f"other__repo-{k}", "3", "", "0", "", "0", ""])
    return path


def judge(api: str, body: dict[str, Any]) -> Reply:
    i = int(re.search(r"Item number (\d+):", prompt_of(body)).group(1))
    kind = _judged_kind(i)
    if kind is None:
        return Reply.ok({"nonsense": True})
    if kind == "none":
        return Reply.ok(agent_verdict(evidence='"should return None."'))
    return Reply.ok({"score": 1, "deficiency_exists": True, "deficiency_caused_failure": True,
                     "deficiency_type": kind, "existence_reasoning": "A defect.",
                     "causation_reasoning": "A correct fix fails.",
                     "evidence": '"should return None."'})


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("scales")
    out = tmp / "out"
    mp = pytest.MonkeyPatch()
    mp.setenv("OPENAI_API_KEY", "test-openai-key")
    try:
        with FakeAPIServer(judge) as server:
            code = main(["audit", "--items", str(_items(tmp / "items.jsonl")), "--rubric",
                         "swe-bench", "--judge", f"openai:m@{server.openai_base_url}",
                         "--out", str(out), "--no-cache", "--json"])
    finally:
        mp.undo()
    assert code == 0
    return out


def _calibrate(out: Path, labels: Path, capsys, *extra: str) -> dict[str, Any]:
    capsys.readouterr()
    code = main(["calibrate", str(out), "--labels", str(labels), "--label-columns",
                 ",".join(COLUMNS), "--label-threshold", str(THRESHOLD),
                 "--label-map", "underspecified=underspecified-issue",
                 "--label-map", "false_negative=wrong-tests", "--json", *extra])
    assert code == 0
    return json.loads(capsys.readouterr().out)


def _kappa(pairs: list[tuple[int, int]]) -> tuple[float, float]:
    n = len(pairs)
    po = sum(j == h for j, h in pairs) / n
    pj, ph = sum(j for j, _ in pairs) / n, sum(h for _, h in pairs) / n
    pe = pj * ph + (1 - pj) * (1 - ph)
    return po, (po - pe) / (1 - pe)


def _expect(judge_call, human_call) -> dict[str, Any]:
    """n, confusion, agreement and kappa by hand."""
    pairs = []
    for i in range(N_ITEMS):
        j, h = judge_call(i), human_call(i)
        if j is not None and h is not None:
            pairs.append((j, h))
    cells = {f"judge_{j}_human_{h}": sum(p == (j, h) for p in pairs)
             for j in (1, 0) for h in (1, 0)}
    po, kappa = _kappa(pairs)
    return {"n": len(pairs), "confusion": cells, "agreement": po, "kappa": kappa}


def _score(value: str) -> int | None:
    return None if value == "" else int(int(value) >= THRESHOLD)


def _human_overall(i: int) -> int | None:
    h = _human(i)
    if h is None:
        return None
    flags = [_score(h[c]) for c in COLUMNS]
    return 1 if 1 in flags else None if None in flags else 0


def _judge_overall(i: int) -> int | None:
    kind = _judged_kind(i)
    return None if kind is None else int(kind != "none")


def _check(got: dict[str, Any], want: dict[str, Any]) -> None:
    assert got["n"] == want["n"]
    assert got["confusion"] == want["confusion"]
    assert got["agreement"] == pytest.approx(want["agreement"], abs=1e-6)
    assert got["kappa"] == pytest.approx(want["kappa"], abs=1e-6)


def test_overall_and_per_category_figures_equal_a_hand_computation(
        audited: Path, tmp_path: Path, capsys) -> None:
    got = _calibrate(audited, _labels(tmp_path / "labels.csv"), capsys)
    _check(got, _expect(_judge_overall, _human_overall))
    for col in COLUMNS:
        def judge_col(i: int, col: str = col) -> int | None:
            kind = _judged_kind(i)
            return None if kind is None else int(kind == CATEGORY[col])

        def human_col(i: int, col: str = col) -> int | None:
            h = _human(i)
            return None if h is None else _score(h[col])

        _check(got["categories"][col], _expect(judge_col, human_col))
    tp = got["confusion"]["judge_1_human_1"]
    assert got["judge_ife_precision"] == pytest.approx(
        tp / (tp + got["confusion"]["judge_1_human_0"]))


def test_items_without_a_label_or_a_verdict_are_counted(
        audited: Path, tmp_path: Path, capsys) -> None:
    got = _calibrate(audited, _labels(tmp_path / "labels.csv", extra=5), capsys)
    no_verdict = {i for i in range(N_ITEMS) if _judged_kind(i) is None}
    no_row = {i for i in range(N_ITEMS) if _human(i) is None}
    blank = {i for i in range(N_ITEMS) if _human(i) is not None and _human_overall(i) is None}
    assert got["n_items_without_label"] == len(blank)
    assert got["n_verdicts_without_label"] == len((set(range(N_ITEMS)) - no_verdict)
                                                  & (no_row | blank))
    labelled = {i for i in range(N_ITEMS) if _human_overall(i) is not None}
    assert got["n_labels_without_verdict"] == len(labelled & no_verdict) + 5
    assert got["n"] + got["n_verdicts_without_label"] == N_ITEMS - len(no_verdict)


def test_the_result_is_kept_in_calibration_json(audited: Path, tmp_path: Path,
                                                capsys) -> None:
    got = _calibrate(audited, _labels(tmp_path / "labels.csv"), capsys)
    kept = json.loads((audited / "calibration.json").read_text())["audit_scales"]
    assert kept["kappa"] == got["kappa"] and set(kept["categories"]) == set(COLUMNS)


def test_several_raters_give_krippendorffs_alpha_equal_to_a_hand_computation(
        audited: Path, tmp_path: Path, capsys) -> None:
    path = tmp_path / "raters.csv"
    scores: dict[int, list[int | None]] = {}
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["instance_id", "rater", "underspecified", "false_negative"])
        for i in range(40):
            for r in range(3):
                if (i + r) % 9 == 0:
                    continue  # this rater did not label this item
                value = (i + r * (i % 3)) % 4
                scores.setdefault(i, []).append(value)
                w.writerow([f"acme__calc-{i}", f"rater-{r}", value, 0])
    got = _calibrate(audited, path, capsys, "--rater-column", "rater")
    # alpha by hand: 1 - D_o / D_e over items with two or more values (interval metric)
    units = [v for v in scores.values() if len(v) >= 2]
    values = [x for u in units for x in u]
    n = len(values)
    d_o = sum(sum((a - b) ** 2 for ai, a in enumerate(u) for bi, b in enumerate(u)
                  if ai != bi) / (len(u) - 1) for u in units) / n
    d_e = sum((a - b) ** 2 for ai, a in enumerate(values) for bi, b in enumerate(values)
              if ai != bi) / (n * (n - 1))
    col = got["inter_rater_by_column"]["underspecified"]
    assert col["alpha"] == pytest.approx(1 - d_o / d_e, abs=1e-6)
    assert col["n_items"] == len(units) and col["n_raters"] == 3
    lo, hi = col["alpha_ci"]
    assert lo <= col["alpha"] <= hi
    calls = [[int(x >= THRESHOLD) for x in u] for u in units]
    flat = [x for u in calls for x in u]
    d_o = sum(sum((a - b) ** 2 for ai, a in enumerate(u) for bi, b in enumerate(u)
                  if ai != bi) / (len(u) - 1) for u in calls) / n
    d_e = sum((a - b) ** 2 for ai, a in enumerate(flat) for bi, b in enumerate(flat)
              if ai != bi) / (n * (n - 1))
    assert got["inter_rater"]["alpha"] == pytest.approx(1 - d_o / d_e, abs=1e-6)


def test_a_score_that_is_not_a_number_names_the_line_and_column(
        audited: Path, tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("instance_id,underspecified,false_negative\nacme__calc-1,2,0\n"
                   "acme__calc-2,high,0\n")
    code = main(["calibrate", str(audited), "--labels", str(bad), "--label-columns",
                 "underspecified,false_negative"])
    err = capsys.readouterr().err
    assert code == 2 and f"{bad}: line 3: underspecified:" in err


def test_the_reports_show_the_calibration_against_the_scales(
        audited: Path, tmp_path: Path, capsys) -> None:
    got = _calibrate(audited, _labels(tmp_path / "labels.csv"), capsys)
    md = (audited / "report.md").read_text()
    assert f"on {got['n']} items: agreement" in md
    assert "underspecified (category underspecified-issue): agreement" in md
    assert "false_negative (category wrong-tests)" in (audited / "report.html").read_text()
