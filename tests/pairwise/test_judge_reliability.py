"""The judge that audits itself: position consistency, preference fairness, repetition
stability and the reliability verdict in summary.json, against the fake API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgekit.engine import Engine, EngineConfig
from judgekit.pairwise import PairwiseOptions, run_pairwise
from judgekit.scoring import score
from judgekit.testing import FakeAPIServer
from tests.clirun import judgekit
from tests.pairwise.helpers import DIMS, always, diff, prefers, result, write_runs

MODEL = "anthropic:claude-haiku-4-5"


def _runs(tmp_path: Path, n: int = 12) -> Path:
    runs = []
    for t in range(n):
        good_in = "ctx" if t % 3 else "base"  # the better arm varies by task
        runs.append(result(f"t{t}", "base", diff(("GOOD " if good_in == "base" else "plain ")
                                                  + str(t))))
        runs.append(result(f"t{t}", "ctx", diff(("GOOD " if good_in == "ctx" else "plain ")
                                                 + str(t))))
    return write_runs(tmp_path / "runs.json", runs)


def _judge(tmp_path: Path, server: FakeAPIServer, *args: object):
    env = {**server.env(), "ANTHROPIC_API_KEY": "test-key",
           "JUDGEKIT_CACHE": str(tmp_path / "cache.sqlite")}
    return judgekit("judge", _runs(tmp_path), "--no-similarity", "--judge", MODEL,
                    "--no-audit", "--out", tmp_path / "out", "--force", *map(str, args), env=env)


def _reliability(tmp_path: Path) -> dict:
    return json.loads((tmp_path / "out" / "summary.json").read_text())["pairwise"][
        "judge_reliability"]


def test_a_judge_that_always_prefers_the_first_slot_is_flagged(tmp_path: Path) -> None:
    with FakeAPIServer(always("A")) as server:
        proc = _judge(tmp_path, server)
    assert proc.returncode == 0, proc.stderr
    rel = _reliability(tmp_path)
    assert rel["flagged"] is True and rel["threshold"] == 0.6
    assert rel["position_consistency"] == pytest.approx(0.0, abs=0.05)
    assert rel["preference_fairness"] == 1.0
    lo, hi = rel["preference_fairness_ci"]
    assert lo > 0 and hi >= lo  # the interval excludes 0
    assert set(rel["by_dimension"]) == set(DIMS)
    for dim in DIMS:
        assert rel["by_dimension"][dim]["n"] == 12
        assert rel["by_dimension"][dim]["position_consistency"] == 0.0
    assert len(rel["reasons"]) == 2 and "first" in rel["message"]


def test_a_judge_that_answers_on_the_merits_is_not_flagged(tmp_path: Path) -> None:
    with FakeAPIServer(prefers("GOOD")) as server:
        proc = _judge(tmp_path, server)
    assert proc.returncode == 0, proc.stderr
    rel = _reliability(tmp_path)
    assert rel["flagged"] is False and rel["reasons"] == []
    assert rel["position_consistency"] == 1.0 and rel["preference_fairness"] == 0.0
    lo, hi = rel["preference_fairness_ci"]
    assert lo <= 0 <= hi
    assert rel["repetition_stability"] is None and rel["n_repeat_calls"] == 0


def test_a_second_slot_judge_leans_negative(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    runs = [r for t in range(6) for r in (result(f"t{t}", "a", diff(f"x{t}")),
                                          result(f"t{t}", "b", diff(f"y{t}")))]
    with FakeAPIServer(always("B")) as server:
        report = run_pairwise(runs, score(runs), Engine(EngineConfig(
            model=MODEL, base_url=server.url, cache_path=tmp_path / "c.sqlite",
            progress=False)))
    rel = report.summary().model_dump(mode="json")["pairwise"]["judge_reliability"]
    assert rel["flagged"] and rel["preference_fairness"] == -1.0
    assert rel["preference_fairness_ci"][1] < 0


def test_stability_sample_makes_exactly_n_times_k_extra_calls_and_reruns_free(
        tmp_path: Path) -> None:
    with FakeAPIServer(prefers("GOOD")) as server:
        proc = _judge(tmp_path, server, "--stability-sample", 20, "--stability-repeats", 3)
        assert proc.returncode == 0, proc.stderr
        assert server.count("anthropic") == 24 + 60  # 12 pairs x 2 orders, then 20 x 3
        rel = _reliability(tmp_path)
        assert rel["repetition_stability"] == 1.0
        assert (rel["n_repeats"], rel["n_repeat_calls"]) == (60, 60)
        run = json.loads((tmp_path / "out" / "summary.json").read_text())["pairwise_run"]
        assert run["n_calls"] == 84
        again = _judge(tmp_path, server, "--stability-sample", 20, "--stability-repeats", 3)
        assert again.returncode == 0, again.stderr
        assert server.count("anthropic") == 84  # the re-run is served from the cache
    rel = _reliability(tmp_path)
    assert rel["repetition_stability"] == 1.0 and rel["n_repeat_calls"] == 0


def test_an_unstable_judge_has_low_repetition_stability(tmp_path: Path, monkeypatch) -> None:
    import itertools

    from judgekit.testing import Reply
    from tests.pairwise.helpers import verdict

    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    flips = itertools.cycle("AB")
    runs = [r for t in range(5) for r in (result(f"t{t}", "a", diff(f"x{t}")),
                                          result(f"t{t}", "b", diff(f"y{t}")))]
    with FakeAPIServer(lambda api, body: Reply.ok(verdict(next(flips)))) as server:
        report = run_pairwise(runs, score(runs), Engine(EngineConfig(
            model=MODEL, base_url=server.url, cache_path=tmp_path / "c.sqlite",
            progress=False)), PairwiseOptions(stability_sample=4, stability_repeats=2))
        assert server.count() == 10 + 8
    rel = report.summary().model_dump(mode="json")["pairwise"]["judge_reliability"]
    assert rel["n_repeats"] == 8 and rel["repetition_stability"] < 1.0
