"""``judgekit calibrate OUT --labels gold.csv``: pairwise verdicts against hand labels.

The gold set (``tests/pairwise/data/bobbin_gold.csv``) labels four comparisons of the
bundled bobbin example by hand, where the diffs make the answer clear. The judge is the
scripted one of :mod:`tests.pairwise.gold_judge`, served by the fake API, so its verdicts
are known and the figures can be computed by hand.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from judgekit.pairwise.calibrate import Item, agreement
from judgekit.testing import FakeAPIServer
from tests.clirun import ROOT, judgekit
from tests.conftest import EXAMPLE_BOBBIN
from tests.pairwise.gold_judge import respond

GOLD = ROOT / "tests" / "pairwise" / "data" / "bobbin_gold.csv"
JUDGE = "anthropic:claude-haiku-4-5"
A, B = "no-bobbin", "with-bobbin"

#: The scripted judge's verdicts on the labelled pairs (arm_a = no-bobbin), read off its
#: rules: ruff-001's A adds to the black suite (consistency B) and changes more lines
#: (minimality B); ruff-002's and ruff-004's B diffs are a few lines shorter (minimality B);
#: everything else is a tie, so a draw. flask-001's diffs are identical: a draw without a
#: call, which no judge answered and is left out.
VERDICTS = {
    ("ruff-001", "consistency"): "B", ("ruff-001", "completeness"): "draw",
    ("ruff-001", "minimality"): "B",
    ("ruff-002", "consistency"): "draw", ("ruff-002", "completeness"): "draw",
    ("ruff-002", "minimality"): "B",
    ("ruff-004", "consistency"): "draw", ("ruff-004", "completeness"): "draw",
    ("ruff-004", "minimality"): "B",
}
#: By hand, over the 9 items: the gold set says B on ruff-001's consistency and minimality
#: and draw on the other 7. The judge matches on 7 of 9 (both B labels, five draws; it says
#: B where gold says draw on ruff-002's and ruff-004's minimality).
ACCURACY = 7 / 9
# Judge marginals: B 4, draw 5; gold: B 2, draw 7. Chance agreement (4*2 + 5*7) / 81 =
# 43/81; kappa = (63/81 - 43/81) / (1 - 43/81) = 20/38.
KAPPA = 10 / 19


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``judgekit judge examples/bobbin --out OUT`` against the scripted judge."""
    tmp = tmp_path_factory.mktemp("judged")
    out = tmp / "out"
    with FakeAPIServer(respond) as server:
        proc = judgekit("judge", EXAMPLE_BOBBIN, "--judge", JUDGE, "--out", out, "--no-audit",
                        env={**server.env(), "ANTHROPIC_API_KEY": "test-key",
                             "JUDGEKIT_CACHE": str(tmp / "cache.sqlite")})
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture
def out(judged: Path, tmp_path: Path) -> Path:
    """A copy of the judged output directory, for a test to change."""
    return Path(shutil.copytree(judged, tmp_path / "out"))


def test_the_judged_records_are_the_verdicts_the_hand_computation_uses(judged: Path) -> None:
    records = [json.loads(x) for x in (judged / "pairwise.jsonl").read_text().splitlines()]
    got = {}
    for r in records:
        assert (r["arm_a"], r["arm_b"]) == (A, B)
        for dim, d in r["dimensions"].items():
            got[(r["task_id"], dim)] = {A: "A", B: "B"}.get(d["winner"], "draw")
    assert {k: v for k, v in got.items() if k in VERDICTS} == VERDICTS
    assert next(r for r in records if r["task_id"] == "flask-001")["identical"]


def test_accuracy_and_kappa_per_judge_equal_the_hand_computation(out: Path) -> None:
    proc = judgekit("calibrate", out, "--labels", GOLD, "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert list(data["judges"]) == [JUDGE] and data["jury"] is None
    j = data["judges"][JUDGE]
    assert j["n"] == 9 and j["n_pairs"] == 3
    assert j["accuracy"] == pytest.approx(ACCURACY)
    assert j["kappa"] == pytest.approx(KAPPA)
    lo, hi = j["kappa_ci"]
    assert -1 <= lo <= KAPPA <= hi <= 1 and "3 compared pairs" in j["kappa_note"]
    assert j["confusion"]["judge_B_gold_B"] == 2 and j["confusion"]["judge_B_gold_draw"] == 2
    assert j["confusion"]["judge_draw_gold_draw"] == 5 and sum(j["confusion"].values()) == 9
    # decisive items: both B labels, where the judge also says B
    assert j["n_decisive"] == 2 and j["agreement_excluding_draws"] == 1.0
    assert {d: v["accuracy"] for d, v in j["by_dimension"].items()} == pytest.approx(
        {"consistency": 1.0, "completeness": 1.0, "minimality": 1 / 3})
    assert data["left_out"] == {"identical": 3} and data["labels_without_verdict"] == []
    assert data["n_labels"] == 12 and data["n_verdicts_without_label"] == 18


def test_the_report_shows_the_calibration_and_keeps_it(out: Path) -> None:
    proc = judgekit("calibrate", out, "--labels", GOLD)
    assert proc.returncode == 0, proc.stderr
    assert f"judge {JUDGE}: 9 items of 3 compared pairs" in proc.stdout
    assert "accuracy:                  0.778" in proc.stdout
    assert "Cohen's kappa:             0.526" in proc.stdout
    assert "jury: none" in proc.stdout and "calibration.json" in proc.stderr
    kept = json.loads((out / "calibration.json").read_text(encoding="utf-8"))
    assert kept["pairwise"]["judges"][JUDGE]["kappa"] == pytest.approx(KAPPA)
    (out / "report.md").unlink()
    assert judgekit("report", out).returncode == 0
    md = (out / "report.md").read_text(encoding="utf-8")
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "## Judge calibration against labels" in md
    assert f"| {JUDGE} | 9 | 77.8% | 0.526 [" in md
    assert 'id="calibration"' in html and "77.8%" in html
    section = html[html.index('id="calibration"'):]
    assert "Cohen&#x27;s kappa per judge" in section or "Cohen's kappa per judge" in section
    assert f"{KAPPA:.2f} [" in section  # the plotted kappa, with its interval


def test_jsonl_labels_and_swapped_arms_give_the_same_figures(out: Path, tmp_path: Path) -> None:
    lines = GOLD.read_text(encoding="utf-8").splitlines()
    rows = []
    for n, line in enumerate(lines[1:]):
        task, arm_a, arm_b, dim, label = line.split(",")[:5]
        if n % 2:  # every other label names the arms the other way round
            arm_a, arm_b = arm_b, arm_a
            label = {"A": "B", "B": "A"}.get(label, label)
        rows.append(json.dumps({"task_id": task, "arm_a": arm_a, "arm_b": arm_b,
                                "dimension": dim, "label": label.lower()}))
    gold = tmp_path / "gold.jsonl"
    gold.write_text("\n".join(rows) + "\n", encoding="utf-8")
    proc = judgekit("calibrate", out / "pairwise.jsonl", "--labels", gold, "--json")
    assert proc.returncode == 0, proc.stderr
    j = json.loads(proc.stdout)["judges"][JUDGE]
    assert j["accuracy"] == pytest.approx(ACCURACY) and j["kappa"] == pytest.approx(KAPPA)


@pytest.mark.parametrize(("text", "name", "field"), [
    ("task_id,arm_a,arm_b,dimension,label\nruff-001,no-bobbin,with-bobbin,minimality,C\n",
     "gold.csv", "line 2: label"),
    ("task_id,arm_a,arm_b,dimension,label\nruff-001,no-bobbin,with-bobbin,speed,A\n",
     "gold.csv", "line 2: dimension"),
    ("task_id,arm_a,arm_b,label,dimension\n,no-bobbin,with-bobbin,A,minimality\n",
     "gold.csv", "line 2: task_id"),
    ("task_id,arm_a,dimension,label\nruff-001,no-bobbin,minimality,A\n",
     "gold.csv", "header"),
    ("task_id,arm_a,arm_b,dimension,label\nruff-001,no-bobbin,with-bobbin,minimality,A\n"
     "ruff-001,with-bobbin,no-bobbin,minimality,A\n", "gold.csv", "line 3: label"),
    ('{"task_id": "ruff-001", "arm_a": "x", "arm_b": "y", "dimension": "minimality", '
     '"label": "A"}\n{"task_id": "ruff-002",\n', "gold.jsonl", "line 2"),
    ('{"task_id": "ruff-001", "arm_a": "x", "dimension": "minimality", "label": "A"}\n',
     "gold.jsonl", "line 1: arm_b"),
])
def test_a_bad_label_file_is_one_line_naming_the_file_and_the_field(
        out: Path, tmp_path: Path, text: str, name: str, field: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    proc = judgekit("calibrate", out, "--labels", path)
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert f"{path}: {field}:" in line and "Traceback" not in proc.stderr
    assert not (out / "calibration.json").exists()


def test_pairwise_labels_need_pairwise_records(tmp_path: Path) -> None:
    proc = judgekit("calibrate", tmp_path, "--labels", GOLD)
    assert proc.returncode == 2
    assert "pairwise.jsonl" in proc.stderr and "Traceback" not in proc.stderr


def test_kappa_over_three_labels_by_hand() -> None:
    """Judge and gold over A, B and draw: 6 of 8 agree.

    Confusion (judge rows, gold columns): A: 2 A, 1 draw; B: 2 B; draw: 1 B, 2 draw.
    Judge marginals 3/2/3, gold 2/3/3: chance (3*2 + 2*3 + 3*3) / 64 = 21/64;
    kappa = (48/64 - 21/64) / (43/64) = 27/43.
    """
    pairs = [("A", "A"), ("A", "A"), ("A", "draw"), ("B", "B"), ("B", "B"), ("draw", "B"),
             ("draw", "draw"), ("draw", "draw")]
    items = [Item(f"t{i}", "x", "y", "minimality", j, g, i) for i, (j, g) in enumerate(pairs)]
    a = agreement(items)
    assert a.accuracy == 6 / 8 and a.kappa == pytest.approx(27 / 43)
    # decisive: the two A/A and two B/B items agree, none disagrees
    assert a.n_decisive == 4 and a.agreement_excluding_draws == 1.0
    assert a.kappa_ci is not None and a.kappa_ci[0] < a.kappa_ci[1]


def test_docs_show_the_output_of_the_command(out: Path, tmp_path: Path) -> None:
    """docs/pairwise.md's calibrate example is this test's output, word for word."""
    text = (ROOT / "docs" / "pairwise.md").read_text(encoding="utf-8")
    start = text.index("$ judgekit calibrate out --labels gold.csv\n")
    block = text[start: text.index("```", start)].splitlines()[1:]
    gold = tmp_path / "gold.csv"
    shutil.copy(GOLD, gold)
    proc = judgekit("calibrate", out, "--labels", gold)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == block
