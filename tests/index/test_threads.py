"""The CPU thread-count tuner: try each candidate, keep the fastest, re-check now and then."""

from __future__ import annotations

from judgekit.index.threads import RECHECK_EVERY, ThreadTuner


def run(tuner: ThreadTuner, rates: dict[int, float], batches: int) -> list[int]:
    chosen = []
    for _ in range(batches):
        n = tuner.choose()
        chosen.append(n)
        tuner.record(n, tokens=4096, seconds=4096 / rates[n])
    return chosen


def test_tries_every_candidate_then_keeps_the_fastest() -> None:
    tuner = ThreadTuner(8)
    assert tuner.candidates == (8, 4)
    chosen = run(tuner, {8: 1000.0, 4: 3000.0}, 30)
    assert chosen[:2] == [8, 4]
    assert tuner.best() == 4
    assert chosen[2:].count(4) > 0.85 * len(chosen[2:])


def test_rechecks_and_follows_a_change_of_load() -> None:
    tuner = ThreadTuner(2)
    run(tuner, {2: 900.0, 1: 400.0}, 2 * RECHECK_EVERY)
    assert tuner.best() == 2
    chosen = run(tuner, {2: 150.0, 1: 400.0}, 3 * RECHECK_EVERY)  # the machine got busy
    assert tuner.best() == 1 and chosen[-1] == 1


def test_single_thread_has_nothing_to_tune() -> None:
    tuner = ThreadTuner(1)
    assert tuner.candidates == (1,)
    assert run(tuner, {1: 100.0}, 5) == [1] * 5
