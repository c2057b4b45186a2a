"""Pick the CPU thread count for inference by measuring it, batch after batch.

On a busy machine, running torch with one thread per core can be several times slower
than with fewer threads: every operator ends in a barrier, and a thread the scheduler has
preempted holds all the others up. With fast (bf16/AMX) kernels the operators are short
and the barriers dominate. Since the load of a shared machine changes while an index is
built, the choice is not made once: :class:`ThreadTuner` tries each candidate count on
real batches, keeps the one with the best throughput (tokens per second, smoothed), and
re-tries the others every few batches.

Example:
    >>> tuner = ThreadTuner(2)
    >>> tuner.candidates
    (2, 1)
    >>> n = tuner.choose(); tuner.record(n, tokens=4000, seconds=2.0)
    >>> n = tuner.choose(); tuner.record(n, tokens=4000, seconds=1.0)
    >>> tuner.best(), tuner.choose()
    (1, 1)
"""

from __future__ import annotations

#: Batches between two re-tries of the counts that are not the current best.
RECHECK_EVERY = 12
#: Weight of a new measurement in the smoothed rate.
SMOOTHING = 0.5


class ThreadTuner:
    """An explore-then-exploit choice among thread counts (all cores, half of them)."""

    def __init__(self, max_threads: int) -> None:
        counts = [max_threads]
        if max_threads > 1:
            counts.append(max(1, max_threads // 2))
        self.candidates: tuple[int, ...] = tuple(counts)
        self.rates: dict[int, float] = {}
        self._step = 0

    def choose(self) -> int:
        """The thread count for the next batch."""
        step, self._step = self._step, self._step + 1
        untried = [n for n in self.candidates if n not in self.rates]
        if untried:
            return untried[0]
        best = self.best()
        if len(self.candidates) > 1 and step % RECHECK_EVERY == 0:
            others = [n for n in self.candidates if n != best]
            return others[(step // RECHECK_EVERY) % len(others)]
        return best

    def record(self, threads: int, tokens: int, seconds: float) -> None:
        """Feed back the throughput of a batch run with ``threads`` threads."""
        if seconds <= 0:
            return
        rate = tokens / seconds
        old = self.rates.get(threads)
        self.rates[threads] = rate if old is None else SMOOTHING * rate + (1 - SMOOTHING) * old

    def best(self) -> int:
        """The count with the best smoothed throughput so far (all cores before any data)."""
        if not self.rates:
            return self.candidates[0]
        return max(self.rates, key=lambda n: self.rates[n])
