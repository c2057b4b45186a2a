import math

import pytest

from judgekit import stats
from judgekit.scoring.files import file_scores


def test_file_scores_seed_example():
    s = file_scores(["A", "B", "D", "E"], ["A", "B", "C"])
    assert s.precision == 0.5
    assert s.recall == pytest.approx(2 / 3)
    assert s.f1 == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))


def test_file_scores_edge_cases():
    assert file_scores([], ["a"]) == (0.0, 0.0, 0.0)
    assert file_scores(["a"], []) == (0.0, 0.0, 0.0)
    assert file_scores([], []) == (0.0, 0.0, 0.0)
    assert file_scores(["a", "b"], ["a", "b"]) == (1.0, 1.0, 1.0)


def test_wilson_interval_known_values():
    lo, hi = stats.wilson_interval(8, 10)
    assert (round(lo, 4), round(hi, 4)) == (0.4902, 0.9433)
    lo, hi = stats.wilson_interval(0, 20)
    assert lo == 0.0 and hi == pytest.approx(0.1611, abs=1e-4)
    assert stats.wilson_interval(0, 0) == (0.0, 0.0)


def test_mcnemar_exact_matches_binomial_tail():
    # b=1, c=5: 2 * P(X <= 1), X ~ Bin(6, 0.5) = 2 * 7/64
    assert stats.mcnemar_exact(1, 5) == pytest.approx(14 / 64)
    assert stats.mcnemar_exact(0, 0) == 1.0
    assert stats.mcnemar_exact(3, 3) == 1.0
    assert stats.mcnemar_exact(0, 10) == pytest.approx(2 / 1024)


def test_pass_at_k_unbiased_estimator():
    assert stats.pass_at_k(5, 2, 1) == pytest.approx(0.4)
    assert stats.pass_at_k(5, 2, 3) == pytest.approx(1 - math.comb(3, 3) / math.comb(5, 3))
    assert stats.pass_at_k(3, 0, 2) == 0.0
    assert stats.pass_at_k(3, 3, 1) == 1.0


def test_bootstrap_is_seeded_and_reproducible():
    values = [0.13, 0.41, 0.57, 0.92, 0.99, 0.02, 0.71, 0.33, 0.65, 0.28]
    a = stats.bootstrap_mean_ci(values, seed=7)
    b = stats.bootstrap_mean_ci(values, seed=7)
    c = stats.bootstrap_mean_ci(values, seed=8)
    assert a == b and a != c
    assert a[0] < sum(values) / len(values) < a[1]
    assert stats.bootstrap_mean_ci([0.5]) == (0.5, 0.5)


def test_cohen_kappa_by_hand():
    a = [1, 1, 0, 0, 1, 0, 1, 0]
    b = [1, 0, 0, 0, 1, 0, 1, 1]
    po = 6 / 8
    pe = (4 / 8) * (4 / 8) + (4 / 8) * (4 / 8)
    assert stats.cohen_kappa(a, b) == pytest.approx((po - pe) / (1 - pe))


def test_bootstrap_memory_does_not_grow_with_resamples_times_values():
    """One call on 50,000 values used to allocate resamples × values (1.6 GB)."""
    import tracemalloc

    import numpy as np

    from judgekit import stats

    values = np.random.default_rng(1).random(50_000)  # continuous: the chunked path
    tracemalloc.start()
    lo, hi = stats.bootstrap_mean_ci(values, resamples=200)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert lo < values.mean() < hi
    assert peak < 64 * 2**20, f"peak {peak / 2**20:.0f} MiB"


def test_discrete_values_resample_through_level_counts():
    from judgekit import stats

    values = [0.0, 0.5, 1.0] * 20_000
    lo, hi = stats.bootstrap_mean_ci(values)
    assert lo < 0.5 < hi and hi - lo < 0.02


def test_sign_flip_exact_and_cluster_interval():
    from judgekit import stats

    assert stats.sign_flip_p([1.0] * 5) == 2 / 2**5
    assert stats.sign_flip_p([0.0, 0.0]) == 1.0
    assert stats.sign_flip_p([1.0, -1.0] * 20) == 1.0
    assert stats.cluster_bootstrap_ratio_ci([3, 3, 3], [3, 3, 3]) == (1.0, 1.0)
    lo, hi = stats.cluster_bootstrap_ratio_ci([0, 10], [10, 10])
    assert lo <= 0.5 <= hi


def test_sign_flip_draws_and_sums_as_integer_signs_would():
    """The ±1 signs made in place as floats give the p-values integer signs gave."""
    import numpy as np

    from judgekit import stats

    def integer_signs(d: np.ndarray, seed: int, resamples: int = 10_000) -> float:
        d = d[d != 0]
        observed = abs(d.sum())
        tol = 1e-9 * max(1.0, observed)
        rng = np.random.default_rng(seed)
        hits = 0
        step = max(1, (1 << 20) // d.size)
        for start in range(0, resamples, step):
            signs = rng.integers(0, 2, size=(min(resamples, start + step) - start, d.size)) * 2 - 1
            hits += int(np.sum(np.abs(signs @ d) >= observed - tol))
        return (hits + 1) / (resamples + 1)

    rng = np.random.default_rng(0)
    for i in range(12):
        d = rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0, 1 / 3], size=int(rng.integers(17, 3000)))
        assert stats.sign_flip_p(d, seed=i) == integer_signs(d, seed=i)
