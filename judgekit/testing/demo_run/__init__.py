"""Judge N numbered items against whatever API the environment points at.

Used by tests that kill a run midway and start it again; writes one JSON line per outcome.
``python -m judgekit.testing.demo_run`` runs it from a shell (its options:
:mod:`judgekit.testing.cli`).

Example:
    >>> [r.key for r in requests(2)]
    ['item-0000', 'item-0001']
"""

from __future__ import annotations

from pathlib import Path

from judgekit.engine import Engine, EngineConfig, JudgeRequest

SCHEMA = {
    "type": "object",
    "required": ["item", "winner"],
    "properties": {"item": {"type": "string"}, "winner": {"enum": ["A", "B", "draw"]}},
}


def requests(n: int) -> list[JudgeRequest]:
    """``n`` numbered requests, each asking for a winner."""
    return [JudgeRequest(key=f"item-{i:04d}", system="Decide which answer is better.",
                         prompt=f"item-{i:04d}", schema=SCHEMA) for i in range(n)]


def run_demo(*, items: int, model: str, cache: Path, out: Path, concurrency: int) -> None:
    """Judge ``items`` requests with ``model``, verdicts cached in ``cache``; write each
    outcome as one JSON line of ``out``."""
    config = EngineConfig(model=model, cache_path=cache, concurrency=concurrency,
                          progress=False, backoff_base=0.01)
    outcomes = Engine(config).run(requests(items))
    with out.open("w", encoding="utf-8") as fh:
        for outcome in outcomes:
            fh.write(outcome.model_dump_json() + "\n")
