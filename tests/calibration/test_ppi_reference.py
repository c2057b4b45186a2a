"""judgekit's prediction-powered means against ppi-python 0.2.3's (values computed by
``data/ppi_reference.py``: that library is too heavy a dependency for the suite)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgekit import stats

REFERENCE = json.loads((Path(__file__).parent / "data" / "ppi_reference.json").read_text())
CASES = REFERENCE["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
@pytest.mark.parametrize(("key", "lam"), [("ppi", 1.0), ("ppi_plus", None)])
def test_ppi_equals_reference(case: dict, key: str, lam: float | None) -> None:
    est, lo, hi, _ = stats.ppi_mean(case["labels"], case["predicted_labelled"],
                                    case["predicted_unlabelled"], lam=lam)
    assert [est, lo, hi] == pytest.approx(case[key], abs=1e-6)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_classical_equals_reference(case: dict) -> None:
    assert list(stats.classical_mean_ci(case["labels"])) == pytest.approx(case["classical"],
                                                                          abs=1e-6)


def test_clusters_of_one_item_each_change_nothing() -> None:
    case = CASES[0]
    n, big_n = len(case["labels"]), len(case["predicted_unlabelled"])
    plain = stats.ppi_mean(case["labels"], case["predicted_labelled"],
                           case["predicted_unlabelled"], lam=None)
    clustered = stats.ppi_mean(case["labels"], case["predicted_labelled"],
                               case["predicted_unlabelled"], lam=None,
                               clusters_labelled=[f"l{i}" for i in range(n)],
                               clusters_unlabelled=[f"u{i}" for i in range(big_n)])
    assert clustered == pytest.approx(plain, abs=1e-12)


def test_shared_tasks_widen_the_interval() -> None:
    """Items of one task that agree with each other carry less information than as many
    independent items: the clustered interval is wider."""
    labels = [1.0, 1.0, 1.0, 0.0, 0.0, 0.0] * 4
    predicted = [1.0] * 24  # the judge is wrong on every item of every other task
    unlabelled = [1.0, 0.0] * 50
    tasks = [f"t{i // 3}" for i in range(len(labels))]
    plain = stats.ppi_mean(labels, predicted, unlabelled, lam=1.0)
    clustered = stats.ppi_mean(labels, predicted, unlabelled, lam=1.0,
                               clusters_labelled=tasks)
    assert clustered[0] == plain[0]
    assert clustered[2] - clustered[1] > plain[2] - plain[1]
