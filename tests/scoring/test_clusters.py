"""Intervals clustered by repository: tasks of one repository are correlated (Miller 2024)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from judgekit import stats
from judgekit.ingest.models import RunResult, Task, TestResult
from judgekit.scoring.clusters import repository_of
from tests.clirun import judgekit

PASSED = "============ 1 passed in 0.01s ============"
FAILED = "============ 1 failed in 0.01s ============"
REPOS = ("acme/alpha", "acme/beta", "acme/gamma", "acme/delta")


def generated_run(path: Path, rates: dict[str, float], *, seed: int = 2024,
                  tasks: int = 10) -> Path:
    """Tasks of ``rates``' repositories on arms a and b. Each repository has its own pass
    rate and its own file-level accuracy (how many of the fix's two files the agent finds),
    so outcomes are correlated within a repository exactly as far as the rates differ."""
    rng = np.random.default_rng(seed)
    lines = []
    for repo, rate in rates.items():
        name = repo.split("/")[1]
        for t in range(tasks):
            for arm, lift in (("a", 0.0), ("b", 0.1)):
                ok = bool(rng.random() < min(1.0, rate + lift))
                found = ["src/fix.py"] + (["src/other.py"] if rng.random() < rate else [])
                lines.append(RunResult(
                    task=Task(id=f"{name}-task-{t}", repo=f"https://github.com/{repo}.git"),
                    arm=arm, model="m", agent_files=found,
                    ground_truth_files=["src/fix.py", "src/other.py"],
                    test=TestResult(exit_code=0 if ok else 1, output=PASSED if ok else FAILED)))
    path.write_text("".join(r.model_dump_json() + "\n" for r in lines), encoding="utf-8")
    return path


def width(ci: list[float]) -> float:
    return ci[1] - ci[0]


def score_json(path: Path) -> dict:
    proc = judgekit("score", path, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


CORRELATED = dict(zip(REPOS, (0.05, 0.35, 0.65, 0.95)))
UNCORRELATED = dict(zip(REPOS, (0.5, 0.5, 0.5, 0.5)))


def test_four_correlated_repositories_widen_the_interval_and_both_are_reported(
        tmp_path: Path) -> None:
    data = score_json(generated_run(tmp_path / "runs.jsonl", CORRELATED))
    clusters = data["clusters"]
    assert clusters["clustered"] and clusters["n_clusters"] == 4
    assert clusters["tasks_per_cluster"] == {r: 10 for r in sorted(REPOS)}
    assert clusters["n_tasks_from_repo_field"] == 40
    for arm in data["arms"].values():
        naive, clustered = arm["pass_rate_ci"], arm["clustered"]["pass_rate_ci"]
        assert arm["clustered"]["n_clusters"] == 4
        assert width(clustered) > 1.5 * width(naive)
        assert width(arm["clustered"]["f1_ci"]) > 1.5 * width(arm["f1_ci"])
    (cmp,) = data["comparisons"]
    assert cmp["clustered"]["n_clusters"] == 4
    assert width(cmp["clustered"]["delta_pass_rate_ci"]) > width(cmp["delta_pass_rate_ci"])
    assert cmp["clustered"]["p_value"] is not None and cmp["p_value"] is not None
    # the pairs are the same: per task, serving model and attempt
    assert cmp["n_paired"] == 40 and cmp["n_tasks"] == 40


def test_correlation_not_the_cluster_count_is_what_widens(tmp_path: Path) -> None:
    """Same size, four repositories, one pass rate for all: the clustered interval widens far
    less than when the repositories differ."""
    def ratio(data: dict) -> float:
        arm = data["arms"]["a"]
        return width(arm["clustered"]["pass_rate_ci"]) / width(arm["pass_rate_ci"])

    correlated = ratio(score_json(generated_run(tmp_path / "c.jsonl", CORRELATED)))
    independent = ratio(score_json(generated_run(tmp_path / "i.jsonl", UNCORRELATED)))
    assert correlated > 1.3 * independent


def test_summary_and_reports_carry_naive_and_clustered_figures(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = judgekit("score", generated_run(tmp_path / "runs.jsonl", CORRELATED), "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert "Clustered by repository: 4 clusters" in proc.stdout
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    arm = summary["arms"]["a"]
    assert arm["pass_rate_ci"] and arm["clustered"]["pass_rate_ci"]
    for name in ("report.md", "report.html"):
        text = (out / name).read_text(encoding="utf-8")
        assert "Clustered by repository: 4 clusters" in text, name
        assert "pass rate, clustered [95% CI]" in text, name
        assert "sign-flip test over repositories" in text, name


def test_one_repository_says_so_and_clusters_nothing(tmp_path: Path) -> None:
    path = generated_run(tmp_path / "runs.jsonl", {"acme/alpha": 0.5}, tasks=12)
    data = score_json(path)
    assert data["clusters"]["clustered"] is False and data["clusters"]["n_clusters"] == 1
    assert "one cluster" in data["clusters"]["note"]
    assert all(a["clustered"] is None for a in data["arms"].values())
    assert data["comparisons"][0]["clustered"] is None
    proc = judgekit("score", path)
    assert "One cluster: every task with a known repository comes from acme/alpha" in \
        " ".join(proc.stdout.split())


@pytest.mark.parametrize(("repo", "task_id", "expected"), [
    ("pallets/flask", "x", ("pallets/flask", "repo")),
    ("https://github.com/Pallets/flask.git", "x", ("pallets/flask", "repo")),
    ("git@github.com:astral-sh/ruff.git", "x", ("astral-sh/ruff", "repo")),
    ("/srv/mirrors/flask/", "x", ("mirrors/flask", "repo")),
    (None, "astropy__astropy-12907", ("astropy/astropy", "task id")),
    (None, "flask-001", ("flask", "task id")),
    (None, "fix-the-cookie", (None, None)),
    ("", "12", (None, None)),
])
def test_the_repository_rule(repo: str | None, task_id: str, expected: tuple) -> None:
    assert repository_of(repo, task_id) == expected


def test_a_task_without_a_repository_is_its_own_cluster(tmp_path: Path) -> None:
    path = generated_run(tmp_path / "runs.jsonl", dict(list(CORRELATED.items())[:2]), tasks=3)
    extra = RunResult(task=Task(id="loose"), arm="a", model="m", agent_files=[],
                      ground_truth_files=["x.py"], test=TestResult(exit_code=1, output=FAILED))
    with path.open("a", encoding="utf-8") as fh:
        fh.write(extra.model_dump_json() + "\n")
    data = score_json(path)
    assert data["clusters"]["n_clusters"] == 3
    assert data["clusters"]["tasks_without_repository"] == ["loose"]
    assert data["arms"]["a"]["clustered"]["n_clusters"] == 3


def test_an_id_named_repository_joins_the_one_a_repo_field_names(tmp_path: Path) -> None:
    path = generated_run(tmp_path / "runs.jsonl", dict(list(CORRELATED.items())[:2]), tasks=3)
    extra = RunResult(task=Task(id="alpha-007"), arm="a", model="m", agent_files=[],
                      ground_truth_files=["x.py"], test=TestResult(exit_code=1, output=FAILED))
    with path.open("a", encoding="utf-8") as fh:
        fh.write(extra.model_dump_json() + "\n")
    clusters = score_json(path)["clusters"]
    assert clusters["tasks_per_cluster"] == {"acme/alpha": 4, "acme/beta": 3}
    assert clusters["n_tasks_from_task_id"] == 1 and clusters["n_clusters"] == 2


def test_clustered_se_of_singletons_is_the_usual_standard_error() -> None:
    x = np.random.default_rng(1).random(30)
    usual = x.std(ddof=1) / np.sqrt(x.size)
    assert stats.clustered_se(x, range(30)) == pytest.approx(usual)


def test_t_critical_matches_scipy() -> None:
    scipy_stats = pytest.importorskip("scipy.stats")
    for df in (1, 2, 3, 9, 30, 31, 45, 200, 5000):
        assert stats.t_critical(df) == pytest.approx(scipy_stats.t.ppf(0.975, df), abs=1e-6)
