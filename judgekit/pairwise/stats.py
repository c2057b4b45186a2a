"""Statistics of pairwise verdicts: per arm pair and dimension, and a Bradley–Terry ranking.

Only ``valid`` outcomes count. A draw counts as half a win for each side in the win rate
and in the Bradley–Terry fit. ``position_consistency`` is the share of judged comparisons
(both orders asked and answered) whose two orders named the same arm or both said tie;
``first_slot_preference`` is the share of decisive single-order answers that picked the
solution shown first (0.5 means no slot preference).

Example:
    >>> s = PairStats()
    >>> for w in ("a", "a", "b", "draw"):
    ...     s.add(w, agree=True, answers=("A", "B"))
    >>> s.dimension_stats().win_rate_a
    0.625
    >>> bradley_terry({("x", "y"): (3.0, 1.0)})["y"] < 0.5
    True
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from judgekit.engine.types import State
from judgekit.pairwise.models import Interval, PairDimensionStats, RankingEntry
from judgekit.stats import wilson_interval


@dataclass
class PairStats:
    """Counts for one arm pair on one dimension."""

    wins_a: int = 0
    wins_b: int = 0
    draws: int = 0
    identical: int = 0
    unscored: int = 0
    error: int = 0
    position_bias: int = 0
    agree: int = 0
    judged: int = 0
    first_slot: int = 0
    decisive_answers: int = 0

    def add(self, winner: str, *, agree: bool | None, answers: Iterable[str | None] = (),
            bias: bool = False, state: State = "valid", identical: bool | None = None) -> None:
        """Count one outcome; ``agree`` is None when no two answers exist (identical diffs,
        or, with ``identical=False``, a verdict that has no orders of its own: a jury's)."""
        if state == "unscored":
            self.unscored += 1
            return
        if state == "error":
            self.error += 1
            return
        if winner == "a":
            self.wins_a += 1
        elif winner == "b":
            self.wins_b += 1
        else:
            self.draws += 1
        if agree is None:
            self.identical += int(identical is not False)
        else:
            self.judged += 1
            self.agree += int(agree)
        self.position_bias += int(bias)
        for ans in answers:
            if ans in ("A", "B"):
                self.decisive_answers += 1
                self.first_slot += int(ans == "A")

    @property
    def n(self) -> int:
        return self.wins_a + self.wins_b + self.draws

    def dimension_stats(self) -> PairDimensionStats:
        """The statistics ``summary["pairwise"]`` shows for this arm pair and dimension."""
        n = self.n
        score = self.wins_a + self.draws / 2
        return PairDimensionStats(
            wins_a=self.wins_a, wins_b=self.wins_b, draws=self.draws, losses_a=self.wins_b,
            n=n, identical=self.identical, unscored=self.unscored, error=self.error,
            n_unscored=self.unscored + self.error,
            win_rate_a=score / n if n else None,
            win_rate_a_ci=wilson_interval(score, n) if n else None,
            position_consistency=self.agree / self.judged if self.judged else None,
            position_bias=self.position_bias,
            first_slot_preference=(self.first_slot / self.decisive_answers
                                   if self.decisive_answers else None),
            n_judged=self.judged, n_decisive_answers=self.decisive_answers)


@dataclass
class DimensionTable:
    """All pair stats of one evaluation: ``table[(arm_a, arm_b)][dimension]``."""

    table: dict[tuple[str, str], dict[str, PairStats]] = field(default_factory=dict)

    def get(self, pair: tuple[str, str], dimension: str) -> PairStats:
        return self.table.setdefault(pair, {}).setdefault(dimension, PairStats())

    def scores(self, dimension: str) -> dict[tuple[str, str], tuple[float, float]]:
        """``(a, b) -> (score of a, score of b)`` with draws as half a win each."""
        out: dict[tuple[str, str], tuple[float, float]] = {}
        for (a, b), dims in self.table.items():
            s = dims.get(dimension)
            if s is None or s.n == 0:
                continue
            prev = out.get((a, b), (0.0, 0.0))
            out[(a, b)] = (prev[0] + s.wins_a + s.draws / 2, prev[1] + s.wins_b + s.draws / 2)
        return out


def bradley_terry(scores: Mapping[tuple[str, str], tuple[float, float]], *,
                  prior: float = 0.1, iterations: int = 1000,
                  tol: float = 1e-10) -> dict[str, float]:
    """Bradley–Terry strengths (summing to 1) fitted by the MM algorithm.

    ``scores[(i, j)] = (score_i, score_j)``: wins of each side, draws counted as half a
    win each. ``prior`` adds that many virtual draws to every compared pair so that an arm
    that never won keeps a small positive strength and the fit always converges.
    """
    wins: dict[str, float] = {}
    games: dict[tuple[str, str], float] = {}
    for (i, j), (si, sj) in scores.items():
        if i == j:
            continue
        wi, wj = si + prior / 2, sj + prior / 2
        wins[i] = wins.get(i, 0.0) + wi
        wins[j] = wins.get(j, 0.0) + wj
        key = (i, j) if i < j else (j, i)
        games[key] = games.get(key, 0.0) + wi + wj
    arms = sorted(wins)
    if not arms:
        return {}
    p = {a: 1.0 / len(arms) for a in arms}
    games_of: dict[str, list[tuple[str, str, float]]] = {a: [] for a in arms}
    for (i, j), n in games.items():
        games_of[i].append((i, j, n))
        games_of[j].append((i, j, n))
    for _ in range(iterations):
        new = {}
        for a in arms:
            denom = sum(n / (p[i] + p[j]) for i, j, n in games_of[a])
            new[a] = wins[a] / denom if denom else p[a]
        total = sum(new.values())
        new = {a: v / total for a, v in new.items()}
        delta = max(abs(new[a] - p[a]) for a in arms)
        p = new
        if delta < tol:
            break
    return p


def _ranked(scores: Mapping[tuple[str, str], tuple[float, float]]) -> RankingEntry:
    strengths = bradley_terry(scores)
    order = sorted(strengths, key=lambda a: (-strengths[a], a))
    return RankingEntry(ranking=order, strength={a: round(strengths[a], 6) for a in order})


def ranking(table: DimensionTable, dimensions: Iterable[str]) -> dict[str, RankingEntry]:
    """Per dimension, and ``overall`` (all dimensions pooled): arms best first with their
    Bradley–Terry strengths."""
    dims = list(dimensions)
    out = {dim: _ranked(table.scores(dim)) for dim in dims}
    pooled: dict[tuple[str, str], tuple[float, float]] = {}
    for dim in dims:
        for key, (sa, sb) in table.scores(dim).items():
            prev = pooled.get(key, (0.0, 0.0))
            pooled[key] = (prev[0] + sa, prev[1] + sb)
    out["overall"] = _ranked(pooled)
    return out


#: bootstrap resamples of the ranking intervals.
RANKING_BOOTSTRAP = 200


def ranking_intervals(units: Sequence[DimensionTable], dimensions: Iterable[str], *,
                      seed: int = 0, resamples: int = RANKING_BOOTSTRAP
                      ) -> dict[str, dict[str, Interval]]:
    """95% percentile-bootstrap intervals of each arm's Bradley–Terry strength, per
    dimension and ``overall``: ``units`` (one table per compared pair) are resampled with
    replacement and the model refitted on each resample."""
    dims = list(dimensions)
    per_unit: list[dict[str, dict[tuple[str, str], tuple[float, float]]]] = []
    for unit in units:
        scores = {dim: unit.scores(dim) for dim in dims}
        pooled: dict[tuple[str, str], tuple[float, float]] = {}
        for dim in dims:
            for key, (sa, sb) in scores[dim].items():
                prev = pooled.get(key, (0.0, 0.0))
                pooled[key] = (prev[0] + sa, prev[1] + sb)
        scores["overall"] = pooled
        per_unit.append(scores)
    if not per_unit:
        return {}
    rng = random.Random(seed)
    draws: dict[str, dict[str, list[float]]] = {d: {} for d in [*dims, "overall"]}
    k = len(per_unit)
    for _ in range(resamples):
        picked = [per_unit[rng.randrange(k)] for _ in range(k)]
        for dim in draws:
            total: dict[tuple[str, str], tuple[float, float]] = {}
            for sample in picked:
                for key, (sa, sb) in sample[dim].items():
                    prev = total.get(key, (0.0, 0.0))
                    total[key] = (prev[0] + sa, prev[1] + sb)
            for arm, value in bradley_terry(total, tol=1e-7).items():
                draws[dim].setdefault(arm, []).append(value)
    out: dict[str, dict[str, Interval]] = {}
    for dim, arms in draws.items():
        out[dim] = {}
        for arm, values in arms.items():
            values.sort()
            # an arm absent from a resample had no comparison there: count it at 0
            values = [0.0] * (resamples - len(values)) + values
            lo = values[int(0.025 * resamples)]
            hi = values[min(resamples - 1, int(0.975 * resamples))]
            out[dim][arm] = (round(lo, 4), round(hi, 4))
    return out
