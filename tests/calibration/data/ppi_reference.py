"""Reference values of prediction-powered means, computed with ppi-python 0.2.3.

Run in an environment with ``ppi-python==0.2.3`` installed (it needs numba, scipy,
statsmodels, scikit-learn and pandas, too heavy for the test suite):

    python tests/calibration/data/ppi_reference.py > tests/calibration/data/ppi_reference.json

Each case draws labels, the judge's predictions of them and the judge's predictions of
unlabelled items from a seeded generator (written out in full, so the test reads the
inputs rather than re-drawing them) and records ``ppi_mean_pointestimate`` and
``ppi_mean_ci`` (alpha 0.05, two-sided) with ``lam=1`` (plain PPI) and ``lam=None``
(PPI++, power-tuned), and ``classical_mean_ci``.
"""

from __future__ import annotations

import json
import sys

import numpy as np
from ppi_py import classical_mean_ci, ppi_mean_ci, ppi_mean_pointestimate


def case(name: str, y: np.ndarray, yhat: np.ndarray, yhat_u: np.ndarray) -> dict[str, object]:
    out: dict[str, object] = {"name": name, "labels": y.tolist(),
                              "predicted_labelled": yhat.tolist(),
                              "predicted_unlabelled": yhat_u.tolist()}
    for key, lam in (("ppi", 1.0), ("ppi_plus", None)):
        est = ppi_mean_pointestimate(y, yhat, yhat_u, lam=lam)
        lo, hi = ppi_mean_ci(y, yhat, yhat_u, alpha=0.05, lam=lam)
        out[key] = [float(np.ravel(est)[0]), float(np.ravel(lo)[0]), float(np.ravel(hi)[0])]
    lo, hi = classical_mean_ci(y, alpha=0.05)
    out["classical"] = [float(y.mean()), float(np.ravel(lo)[0]), float(np.ravel(hi)[0])]
    return out


def main() -> None:
    rng = np.random.default_rng(51)
    cases = []
    # binary labels, a judge right 80% of the time
    y = rng.binomial(1, 0.4, 60).astype(float)
    flip = rng.random(60) < 0.2
    yhat = np.where(flip, 1 - y, y)
    u = rng.binomial(1, 0.4, 900).astype(float)
    cases.append(case("binary_80", y, yhat, np.where(rng.random(900) < 0.2, 1 - u, u)))
    # win rates with ties as half, a judge biased toward A
    y = rng.choice([0.0, 0.5, 1.0], 40, p=[0.4, 0.2, 0.4])
    yhat = np.where(rng.random(40) < 0.3, 1.0, y)
    u = rng.choice([0.0, 0.5, 1.0], 500, p=[0.3, 0.2, 0.5])
    cases.append(case("win_rate_ties", y, yhat, u))
    # a judge unrelated to the labels: PPI++ tunes lambda down toward 0
    y = rng.binomial(1, 0.5, 30).astype(float)
    cases.append(case("unrelated", y, rng.binomial(1, 0.5, 30).astype(float),
                      rng.binomial(1, 0.5, 300).astype(float)))
    # few labels, many unlabelled
    y = rng.binomial(1, 0.2, 12).astype(float)
    cases.append(case("few_labels", y, np.where(rng.random(12) < 0.1, 1 - y, y),
                      rng.binomial(1, 0.25, 2000).astype(float)))
    json.dump({"ppi_python": "0.2.3", "alpha": 0.05, "cases": cases}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
