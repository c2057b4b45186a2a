"""``judgekit calibrate OUT --labels gold.csv`` on a jury's output: per judge and the jury.

Three scripted judges on loopback servers judge the bundled bobbin example, so each one's
verdicts on the labelled pairs are known by rule and the figures can be computed by hand:

- G (:func:`tests.pairwise.gold_judge.respond`): the verdicts of ``VERDICTS`` in
  ``test_calibrate_gold``;
- C (:func:`tests.pairwise.gold_judge.respond_consistency_everywhere`): B on every
  dimension of ruff-001 (its A adds to the black suite), a draw on ruff-002 and ruff-004;
- F (always the first slot): position bias in both orders, so a draw everywhere.

The jury (majority of three) then says B on ruff-001's consistency and minimality (G and C
agree) and a draw on the other seven items: exactly the gold labels.
"""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path

import numpy as np
import pytest

from judgekit.testing import FakeAPIServer
from tests.clirun import judgekit
from tests.conftest import EXAMPLE_BOBBIN
from tests.pairwise.gold_judge import respond, respond_consistency_everywhere
from tests.pairwise.helpers import always
from tests.pairwise.test_calibrate_gold import GOLD

G, C, F = "anthropic:claude-haiku-4-5", "openai:black-judge", "openai:first-judge"

#: The labelled items, (task, dimension), ruff-001 first: gold says B on two, draw on seven.
ITEMS = [(t, d) for t in ("ruff-001", "ruff-002", "ruff-004")
         for d in ("consistency", "completeness", "minimality")]
GOLD_LABELS = ["B", "draw", "B"] + ["draw"] * 6
VERDICTS = {
    G: ["B", "draw", "B", "draw", "draw", "B", "draw", "draw", "B"],
    C: ["B", "B", "B"] + ["draw"] * 6,
    F: ["draw"] * 9,
}
JURY = ["B", "draw", "B"] + ["draw"] * 6


def _kappa(judge: list[str], gold: list[str]) -> float:
    """Cohen's kappa by its definition, over the labels A, B, draw."""
    n = len(gold)
    observed = sum(j == g for j, g in zip(judge, gold)) / n
    chance = sum(judge.count(x) * gold.count(x) for x in ("A", "B", "draw")) / n ** 2
    return (observed - chance) / (1 - chance)


def test_the_hand_figures() -> None:
    """The figures the CLI must give, worked out here from the verdicts above.

    G: 7 of 9 agree; marginals B 4 / draw 5 against B 2 / draw 7: kappa 20/38.
    C: 8 of 9 (it says B on ruff-001's completeness); B 3 / draw 6: chance 48/81,
    kappa (72 - 48) / (81 - 48) = 8/11. F: 7 of 9, always a draw: kappa 0 by construction.
    The jury: 9 of 9, kappa 1.
    """
    assert _kappa(VERDICTS[G], GOLD_LABELS) == pytest.approx(10 / 19)
    assert _kappa(VERDICTS[C], GOLD_LABELS) == pytest.approx(8 / 11)
    assert _kappa(JURY, GOLD_LABELS) == pytest.approx(1.0)
    majority = [max(set(v), key=v.count) if max(v.count(x) for x in set(v)) >= 2 else "draw"
                for v in zip(*VERDICTS.values())]
    assert majority == JURY


@pytest.fixture(scope="module")
def jury_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("jury_gold")
    out = tmp / "out"
    with ExitStack() as stack:
        g, c, f = (stack.enter_context(FakeAPIServer(r)) for r in (
            respond, respond_consistency_everywhere, always("A")))
        judges = [f"{G}@{g.url}", f"{C}@{c.openai_base_url}", f"{F}@{f.openai_base_url}"]
        proc = judgekit("judge", EXAMPLE_BOBBIN, *[x for j in judges for x in ("--judge", j)],
                        "--out", out, "--no-audit",
                        env={"ANTHROPIC_API_KEY": "test-key", "OPENAI_API_KEY": "test-key",
                             "JUDGEKIT_CACHE": str(tmp / "cache.sqlite")})
    assert proc.returncode == 0, proc.stderr
    return out


def test_the_records_hold_each_judges_verdicts_and_the_jurys(jury_out: Path) -> None:
    records = {r["task_id"]: r for r in map(
        json.loads, (jury_out / "pairwise.jsonl").read_text().splitlines())}
    side = {"no-bobbin": "A", "with-bobbin": "B"}
    for n, (task, dim) in enumerate(ITEMS):
        rec = records[task]
        assert side.get(rec["dimensions"][dim]["winner"], "draw") == JURY[n]
        for name, verdicts in VERDICTS.items():
            own = rec["judges"][name]["dimensions"][dim]["winner"]
            assert side.get(own, "draw") == verdicts[n], (name, task, dim)


def test_accuracy_and_kappa_per_judge_and_for_the_jury_equal_the_hand_computation(
        jury_out: Path) -> None:
    proc = judgekit("calibrate", jury_out / "pairwise.jsonl", "--labels", GOLD, "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert list(data["judges"]) == [G, C, F]  # in the jury's order
    figures = {**data["judges"], "jury": data["jury"]}
    for name, verdicts in {**VERDICTS, "jury": JURY}.items():
        got = figures[name]
        assert got["n"] == 9 and got["n_pairs"] == 3, name
        hits = sum(v == g for v, g in zip(verdicts, GOLD_LABELS))
        assert got["accuracy"] == pytest.approx(hits / 9), name
        for j in ("A", "B", "draw"):
            for g in ("A", "B", "draw"):
                cell = sum(v == j and gl == g for v, gl in zip(verdicts, GOLD_LABELS))
                assert got["confusion"][f"judge_{j}_gold_{g}"] == cell, (name, j, g)
        decisive = [(v, g) for v, g in zip(verdicts, GOLD_LABELS) if "draw" not in (v, g)]
        assert got["n_decisive"] == len(decisive)
        assert got["agreement_excluding_draws"] == (
            sum(v == g for v, g in decisive) / len(decisive) if decisive else None)
    assert figures[G]["kappa"] == pytest.approx(10 / 19)
    assert figures[C]["kappa"] == pytest.approx(8 / 11)
    assert figures[F]["kappa"] == 0.0 and "kappa is 0 by construction" in figures[F][
        "kappa_note"]
    assert figures["jury"]["accuracy"] == 1.0 and figures["jury"]["kappa"] == pytest.approx(1.0)
    for name in (G, C, "jury"):
        lo, hi = figures[name]["kappa_ci"]
        assert -1 <= lo <= figures[name]["kappa"] + 1e-9 and hi <= 1 + 1e-9
    assert figures["jury"]["disagreements"] == []
    assert data["left_out"] == {"identical": 3} and data["labels_without_verdict"] == []


def test_the_text_output_shows_each_judge_and_the_jury(jury_out: Path) -> None:
    proc = judgekit("calibrate", jury_out / "pairwise.jsonl", "--labels", GOLD)
    assert proc.returncode == 0, proc.stderr
    for name in (G, C, F):
        assert f"judge {name}: 9 items of 3 compared pairs" in proc.stdout
    assert "jury: 9 items of 3 compared pairs" in proc.stdout
    assert "jury: none" not in proc.stdout


def test_the_jurys_effective_number_from_its_errors_follows_the_formula(
        jury_out: Path) -> None:
    """Errors (verdict less label, A 1, B 0, draw 0.5) of each judge on the 9 labelled
    items, their mean pairwise correlation r, and n / (1 + (n - 1) r)."""
    data = json.loads(judgekit("calibrate", jury_out / "pairwise.jsonl", "--labels", GOLD,
                               "--json").stdout)
    value = {"A": 1.0, "B": 0.0, "draw": 0.5}
    errors = np.array([[value[v] - value[g] for v, g in zip(VERDICTS[name], GOLD_LABELS)]
                       for name in (G, C, F)])
    rs = []
    for i in range(3):
        for j in range(i + 1, 3):
            if errors[i].std() and errors[j].std():
                rs.append(float(np.corrcoef(errors[i], errors[j])[0, 1]))
    r = min(1.0, max(0.0, float(np.mean(rs))))
    got = data["effective_judges_errors"]
    assert got["of"] == "errors" and got["n_judges"] == 3 and got["n_items"] == 9
    assert got["n_effective"] == pytest.approx(3 / (1 + 2 * r), abs=1e-6)
