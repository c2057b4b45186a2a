"""The effective number of judges: 1 for identical judges, the number of judges for
independent ones (by simulation)."""

from __future__ import annotations

import numpy as np
import pytest

from judgekit import stats


def test_identical_judges_count_as_one() -> None:
    rng = np.random.default_rng(1)
    verdict = rng.choice([0.0, 0.5, 1.0], 500)
    n_eff, r, pairs = stats.effective_judges(np.tile(verdict[:, None], (1, 7)).tolist())
    assert (n_eff, pairs) == (1.0, 21) and r == pytest.approx(1.0)


@pytest.mark.parametrize("judges", [3, 9])
def test_independent_judges_count_as_many(judges: int) -> None:
    rng = np.random.default_rng(judges)
    verdicts = rng.choice([0.0, 0.5, 1.0], size=(2000, judges))
    n_eff, _, _ = stats.effective_judges(verdicts.tolist())
    assert n_eff is not None and abs(n_eff - judges) <= 0.1 * judges


def test_judges_sharing_their_mistakes_count_as_fewer() -> None:
    """Nine judges that copy one of two independent judges 90% of the time."""
    rng = np.random.default_rng(9)
    truth = rng.integers(0, 2, (4000, 2)).astype(float)
    copy = np.where(rng.random((4000, 9)) < 0.9, truth[:, [k % 2 for k in range(9)]],
                    rng.integers(0, 2, (4000, 9)))
    n_eff, _, _ = stats.effective_judges(copy.tolist())
    assert n_eff is not None and 1.5 < n_eff < 3


def test_missing_verdicts_are_left_out_pairwise() -> None:
    rows = [[1, 1, None], [0, 0, 1], [1, 1, 0], [0, 0, None]]
    n_eff, r, pairs = stats.effective_judges(rows)
    assert pairs == 3 and r is not None and n_eff is not None
