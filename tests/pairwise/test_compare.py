"""``judgekit compare OUT_A OUT_B``: agreement between two judged outputs, through the CLI.

Output A: the fair judge (the solution marked GOOD wins every dimension) on tasks t0..t11.
Output B: a judge that answers like the fair one except on tasks whose number is a multiple
of 3, where it ties (a draw), on tasks t0..t9 and one more, t12. With the arms in name
order (base = A, ctx = B), the GOOD solution is ctx's on tasks t with t % 4 in (0, 1).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from judgekit.testing import FakeAPIServer, Reply, prompt_of
from tests.clirun import ROOT, judgekit
from tests.pairwise.helpers import DIMS, prefers, result, sized_diff, verdict, write_runs

#: Matched tasks t0..t9: each output's verdict (the same on every dimension).
A_VERDICTS = ["B" if t % 4 in (0, 1) else "A" for t in range(10)]
B_VERDICTS = ["draw" if t % 3 == 0 else v for t, v in enumerate(A_VERDICTS)]


def _hand_kappa(a: list[str], b: list[str]) -> float:
    n = len(a)
    observed = sum(x == y for x, y in zip(a, b)) / n
    chance = sum(a.count(x) * b.count(x) for x in ("A", "B", "draw")) / n ** 2
    return (observed - chance) / (1 - chance)


def test_the_hand_figures() -> None:
    """6 of 10 agree; marginals A 4 / B 6 against A 2 / B 4 / draw 4: chance 32/100,
    kappa (60 - 32) / (100 - 32) = 7/17."""
    assert sum(x == y for x, y in zip(A_VERDICTS, B_VERDICTS)) == 6
    assert _hand_kappa(A_VERDICTS, B_VERDICTS) == pytest.approx(7 / 17)


def _runs(path: Path, tasks: list[int]) -> Path:
    runs = []
    for t in tasks:
        good = "ctx" if t % 4 in (0, 1) else "base"
        for arm in ("base", "ctx"):
            marker = ("GOOD " if arm == good else "plain ") + str(t)
            runs.append(result(f"t{t}", arm, sized_diff(marker, 3)))
    return write_runs(path, runs)


def _ties_on_multiples_of_three(api: str, body: dict[str, Any]) -> Reply:
    task = int(re.search(r"(?:GOOD|plain) (\d+)", prompt_of(body)).group(1))
    return Reply.ok(verdict("tie")) if task % 3 == 0 else prefers("GOOD")(api, body)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("compare")
    env = {"OPENAI_API_KEY": "k", "JUDGEKIT_CACHE": str(tmp / "cache.sqlite")}
    made = []
    for name, tasks, respond in (("out-a", list(range(12)), prefers("GOOD")),
                                 ("out-b", [*range(10), 12], _ties_on_multiples_of_three)):
        runs = _runs(tmp / f"{name}.json", tasks)
        with FakeAPIServer(respond) as server:
            proc = judgekit("judge", runs, "--no-similarity", "--no-audit", "--judge",
                            f"openai:judge-{name[-1]}@{server.openai_base_url}", "--out",
                            tmp / name, env=env)
        assert proc.returncode == 0, proc.stderr
        made.append(tmp / name)
    return made[0], made[1]


def test_agreement_per_dimension_equals_the_hand_computation(outputs) -> None:
    a, b = outputs
    proc = judgekit("compare", a, b / "pairwise.jsonl", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert (data["n_matched"], data["only_in_a"], data["only_in_b"]) == (10, 2, 1)
    assert data["judge_a"] == "openai:judge-a" and data["judge_b"] == "openai:judge-b"
    assert data["left_out"] == {}
    for dim in DIMS:
        d = data["by_dimension"][dim]
        assert (d["n"], d["agreeing"]) == (10, 6) and d["share_agreeing"] == 0.6
        assert d["kappa"] == pytest.approx(7 / 17)
        lo, hi = d["kappa_ci"]
        assert -1 <= lo <= 7 / 17 <= hi <= 1
        assert d["confusion"] == {"a_A_b_A": 2, "a_A_b_B": 0, "a_A_b_draw": 2,
                                  "a_B_b_A": 0, "a_B_b_B": 4, "a_B_b_draw": 2,
                                  "a_draw_b_A": 0, "a_draw_b_B": 0, "a_draw_b_draw": 0}
    pooled = data["pooled"]
    assert (pooled["n"], pooled["agreeing"]) == (30, 18)
    assert pooled["kappa"] == pytest.approx(7 / 17)


def test_the_order_of_the_outputs_transposes_the_confusion(outputs) -> None:
    a, b = outputs
    proc = judgekit("compare", b, a, "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert (data["only_in_a"], data["only_in_b"]) == (1, 2)
    d = data["by_dimension"]["minimality"]
    assert d["confusion"]["a_draw_b_A"] == 2 and d["confusion"]["a_draw_b_B"] == 2
    assert d["kappa"] == pytest.approx(7 / 17)


def test_the_text_output(outputs) -> None:
    a, b = outputs
    proc = judgekit("compare", a, b)
    assert proc.returncode == 0, proc.stderr
    assert "pairs: 10 in both, 2 only in A, 1 only in B" in proc.stdout
    kappa = f"{7 / 17:.3f}"
    for dim in DIMS:
        assert re.search(rf"^{dim}\s+10\s+6\s+0\.600\s+{kappa}\s+\[", proc.stdout, re.M)
    assert re.search(rf"^all\s+30\s+18\s+0\.600\s+{kappa}", proc.stdout, re.M)


@pytest.mark.parametrize(("fault", "field"), [
    ("missing", None),
    ("bad_json", "line 2"),
    ("no_task", "line 1: task_id"),
    ("twice", "line 2"),
])
def test_a_bad_input_is_one_line_naming_the_file_and_the_field(
        outputs, tmp_path: Path, fault: str, field: str | None) -> None:
    a, _ = outputs
    lines = (a / "pairwise.jsonl").read_text().splitlines()
    bad = tmp_path / "pairwise.jsonl"
    if fault == "bad_json":
        bad.write_text(lines[0] + "\n{\"task_id\": \n")
    elif fault == "no_task":
        rec = json.loads(lines[0])
        del rec["task_id"]
        bad.write_text(json.dumps(rec) + "\n")
    elif fault == "twice":
        bad.write_text(lines[0] + "\n" + lines[0] + "\n")
    proc = judgekit("compare", a, tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert str(bad) in line
    if field is not None:
        assert f"{bad}: {field}" in line


def test_docs_show_the_output_of_the_command(outputs) -> None:
    """docs/pairwise.md's compare example is this test's output, word for word."""
    a, _ = outputs
    text = (ROOT / "docs" / "pairwise.md").read_text(encoding="utf-8")
    start = text.index("$ judgekit compare out-a out-b\n")
    block = text[start: text.index("```", start)].splitlines()[1:]
    proc = judgekit("compare", "out-a", "out-b", cwd=a.parent)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == block
