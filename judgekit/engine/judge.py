"""What the steps need of a judge: :class:`Judge`, a protocol.

:class:`judgekit.engine.Engine` is one; a test double or another backend can be. Pairwise
judging (:func:`judgekit.pairwise.run_pairwise`) and the audit
(:func:`judgekit.audit.run_audit`) take any object of this shape; :func:`judgekit.evaluate`
and juries make :class:`~judgekit.engine.Engine` objects from judge configurations.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from judgekit.engine.config import EngineConfig
from judgekit.engine.types import Estimate, ItemOutcome, JudgeRequest, OnOutcome, Skip


class Judge(Protocol):
    """What pairwise judging and the audit need of a judge."""

    config: EngineConfig

    def run(self, requests: Iterable[JudgeRequest], *, total: int | None = None,
            on_outcome: OnOutcome | None = None) -> list[ItemOutcome]:
        """One outcome per request, in order; ``requests`` may be a lazy iterable of
        ``total`` requests, read while the first calls are in flight. ``on_outcome(i,
        outcome)``, when given, may hear of outcomes before the list is returned."""
        ...

    def estimate(self, requests: Sequence[JudgeRequest]) -> Estimate:
        """What running ``requests`` would cost; no call is made."""
        ...

    @property
    def stopped(self) -> Skip | None:
        """Why the judge stopped sending calls (an authentication or permission failure),
        if it did."""
        ...

    @property
    def spent_usd(self) -> float:
        """Dollars spent so far (every run of the judge)."""
        ...
