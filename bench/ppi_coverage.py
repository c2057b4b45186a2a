"""Coverage and width of judgekit's prediction-powered intervals, by simulation.

A known truth and a judge of known error: T items (1,000), n (50) labelled uniformly at
random, the judge's verdict on every item. For each setting and replicate the script
computes, with ``judgekit.stats``, the judge-only interval (the judge's verdicts as if
right), the labels-only (classical) interval, plain PPI (lambda 1) and PPI++ (lambda tuned),
and counts how often each covers the truth: the share over the T items (what judgekit's
estimate is of) and the probability the items were drawn with. It then plans, from the n
labels, the labels that bring PPI++ to ±W (``ppi_labels_needed``), labels that many and
counts how often the interval is ±W or narrower.

Judges: ``biased``, wrong on 25% of the items, always toward 1 (every 1 right, a share of
the 0s called 1); ``agrees80``, wrong on 20% of the items either way.

Usage::

    python bench/ppi_coverage.py [--replicates 10000] [--out bench/results/ppi_coverage.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from judgekit import stats  # noqa: E402


def judge_of(kind: str, y: np.ndarray, truth: float, rng: np.random.Generator) -> np.ndarray:
    if kind == "biased":
        return np.where(y == 1, 1.0, (rng.random(y.size) < 0.25 / (1 - truth)).astype(float))
    return np.where(rng.random(y.size) < 0.2, 1 - y, y)


def one_setting(kind: str, truth: float, items: int, labelled: int, replicates: int,
                width: float, seed: int) -> dict[str, object]:
    rng = np.random.default_rng(seed)
    names = ("judge_only", "classical", "ppi", "ppi_plus")
    covers = {k: [0, 0] for k in names}
    widths: dict[str, list[float]] = {k: [] for k in names}
    planned: list[int] = []
    reached = unreachable = 0
    for _ in range(replicates):
        y = (rng.random(items) < truth).astype(float)
        yhat = judge_of(kind, y, truth, rng)
        order = rng.permutation(items)
        lab, unl = order[:labelled], order[labelled:]
        share = float(y.mean())
        _, jlo, jhi = stats.classical_mean_ci(yhat)
        _, clo, chi = stats.classical_mean_ci(y[lab])
        _, plo, phi, _ = stats.ppi_mean(y[lab], yhat[lab], yhat[unl], lam=1.0)
        _, qlo, qhi, _ = stats.ppi_mean(y[lab], yhat[lab], yhat[unl], lam=None)
        for k, (lo, hi) in zip(names, ((jlo, jhi), (clo, chi), (plo, phi), (qlo, qhi))):
            covers[k][0] += lo <= share <= hi
            covers[k][1] += lo <= truth <= hi
            widths[k].append((hi - lo) / 2)
        need = stats.ppi_labels_needed(y[lab], yhat[lab], yhat[unl], width)
        if need is None:
            unreachable += 1
            continue
        need = max(need, labelled)
        planned.append(need)
        _, lo, hi, _ = stats.ppi_mean(y[order[:need]], yhat[order[:need]],
                                      yhat[order[need:]], lam=None)
        reached += (hi - lo) / 2 <= width
    return {
        "judge": kind, "truth": truth, "items": items, "labelled": labelled,
        "replicates": replicates,
        "coverage_of_share": {k: v[0] / replicates for k, v in covers.items()},
        "coverage_of_probability": {k: v[1] / replicates for k, v in covers.items()},
        "mean_half_width": {k: float(np.mean(v)) for k, v in widths.items()},
        "budget": {"half_width": width, "median_labels_planned":
                   float(np.median(planned)) if planned else None,
                   "reached": reached / replicates, "unreachable": unreachable}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--replicates", type=int, default=10_000)
    ap.add_argument("--items", type=int, default=1000)
    ap.add_argument("--labelled", type=int, default=50)
    ap.add_argument("--width", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=51)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    rows = [one_setting(kind, truth, args.items, args.labelled, args.replicates, args.width,
                        args.seed + i)
            for i, (kind, truth) in enumerate([("biased", 0.5), ("biased", 0.3),
                                               ("agrees80", 0.5), ("agrees80", 0.3)])]
    print(f"{'judge':<9} {'truth':>5}  coverage of the share (of the probability)        "
          "mean ± width                      budget ±W")
    print(f"{'':<9} {'':>5}  {'judge':>13} {'labels':>13} {'PPI':>13} {'PPI++':>13}  "
          f"{'judge':>6} {'labels':>6} {'PPI':>6} {'PPI++':>6}  planned reached")
    for r in rows:
        cs, cp, w, b = (r["coverage_of_share"], r["coverage_of_probability"],
                        r["mean_half_width"], r["budget"])
        assert isinstance(cs, dict) and isinstance(cp, dict) and isinstance(w, dict)
        assert isinstance(b, dict)
        cells = " ".join(f"{cs[k]:6.1%} ({cp[k]:5.1%})" for k in cs)
        ws = " ".join(f"{w[k]:6.3f}" for k in w)
        print(f"{r['judge']:<9} {r['truth']:>5}  {cells}  {ws}  "
              f"{b['median_labels_planned']!s:>7} {b['reached']:6.1%}")
    if args.out is not None:
        args.out.write_text(json.dumps({"settings": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
