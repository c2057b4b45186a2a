"""The jury runner: several judges asked in turn, under one cost cap for the whole run.

A jury is several judges, each doing the whole of a step's work with its own engine
(pairwise judging, the audit, or new judges asked of a judged
output). :class:`JuryRunner` is the one place that makes their engines and holds their
spending to the cost cap: before a judge is asked, its engine's cap is lowered by what
every other engine of the run has spent, so the run as a whole never spends more than the
cap, whichever step or judge spends first.

Example:
    >>> juror_labels([("openai:m", "http://h1/v1"), ("openai:m", "http://h2/v1")])
    ['openai:m@http://h1/v1', 'openai:m@http://h2/v1']
    >>> capped_config(EngineConfig(model="openai:m", max_cost_usd=1.0), 0.25).max_cost_usd
    0.75
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from judgekit.engine.config import EngineConfig
from judgekit.engine.engine import Engine
from judgekit.engine.urls import redact_url
from judgekit.errors import ConfigError

T = TypeVar("T")

#: the cap an engine is given when others have spent the whole of it: it sends nothing.
SPENT_CAP_USD = 1e-9


def juror_labels(judges: Sequence[tuple[str, str | None]]) -> list[str]:
    """A name per judge ``(model, base_url)``: its model id, and ``model@url`` where two
    judges share a model id."""
    if len(set(judges)) != len(judges):
        raise ConfigError("the same judge is named twice: give each judge once")
    models = [m for m, _ in judges]
    return [m if models.count(m) == 1 else f"{m}@{redact_url(url) if url else url}"
            for m, url in judges]


def capped_config(config: EngineConfig, others_spent: float) -> EngineConfig:
    """``config`` with its cost cap lowered by what other engines of the run spent."""
    cap = config.max_cost_usd
    if cap is None or others_spent <= 0:
        return config
    return config.model_copy(update={"max_cost_usd": max(cap - others_spent, SPENT_CAP_USD)})


@dataclass
class Seat(Generic[T]):
    """One judge of a jury: its name, configuration and engine, and what it made."""

    label: str
    config: EngineConfig
    engine: Engine
    result: T


class JuryRunner:
    """The judges of one run, the engines they are asked through, and the cost cap they
    share. ``first`` is the engine the run already has for the first judge (the pipeline's);
    without one, every judge gets an engine of its own."""

    def __init__(self, configs: Sequence[EngineConfig], first: Engine | None = None, *,
                 labels: Sequence[str] | None = None) -> None:
        if not configs:
            raise ConfigError("a jury needs at least one judge")
        self.configs = list(configs)
        self.labels = (list(labels) if labels is not None
                       else juror_labels([(c.model, c.base_url) for c in self.configs]))
        self.first = first
        self._first_config = first.config if first is not None else None
        self.engines: list[Engine] = [first] if first is not None else []

    def spent_usd(self) -> float:
        """Dollars spent by every engine of the run so far."""
        return sum(e.spent_usd for e in self.engines)

    def refresh_first(self) -> Engine | None:
        """The first judge's engine, its cap lowered by what the other engines spent (for a
        step that asks the first judge alone)."""
        if self.first is not None and self._first_config is not None:
            self.first.config = capped_config(self._first_config,
                                              self.spent_usd() - self.first.spent_usd)
        return self.first

    def engine(self, k: int) -> Engine:
        """Judge ``k``'s engine: the first judge's is the run's own, the others' are new;
        each capped by what the rest of the run has spent."""
        if k == 0 and self.first is not None:
            first = self.refresh_first()
            assert first is not None
            return first
        engine = Engine(capped_config(self.configs[k], self.spent_usd()))
        self.engines.append(engine)
        return engine

    def each(self, work: Callable[[Engine], T]) -> list[Seat[T]]:
        """``work`` done by each judge in turn, through its engine."""
        seats = []
        for k, label in enumerate(self.labels):
            engine = self.engine(k)
            seats.append(Seat(label, self.configs[k], engine, work(engine)))
        self.refresh_first()  # what the first judge does next may spend only what is left
        return seats


__all__ = ["JuryRunner", "SPENT_CAP_USD", "Seat", "capped_config", "juror_labels"]
