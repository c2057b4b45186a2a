"""Retried Inspect AI evals: the logs of one task run (one Inspect ``task_id``) hold the same
samples again, the retry's log its finished ones and the samples it ran anew. The latest log's
sample stands for each sample and epoch; the earlier ones are left out and counted.

Example:
    >>> from judgekit.ingest.models import RunResult, Task
    >>> def result(eval_id):
    ...     return RunResult(task=Task(id="t/s1"), arm="m", metadata={
    ...         "eval_id": eval_id, "sample_id": "s1", "epoch": 1})
    >>> evals = {e: EvalFacts(e, "t", "m", c, {}, task_id="T") for e, c in (("a", "1"), ("b", "2"))}
    >>> kept, notes = latest_of_retries([result("a"), result("b")], evals)
    >>> [r.metadata["eval_id"] for r in kept], len(notes)
    (['b'], 1)
"""

from __future__ import annotations

from collections import defaultdict

from judgekit.ingest.adapters.inspect_arms import EvalFacts
from judgekit.ingest.models import RunResult


def latest_of_retries(results: list[RunResult], evals: dict[str, EvalFacts]
                      ) -> tuple[list[RunResult], list[str]]:
    """``results`` without the samples a later log of the same task run holds again, and a
    warning per task run whose logs were retried."""
    runs: dict[str, list[EvalFacts]] = defaultdict(list)
    for facts in evals.values():
        if facts.task_id:
            runs[facts.task_id].append(facts)
    rank: dict[str, int] = {}
    for group in runs.values():
        for i, facts in enumerate(sorted(group, key=lambda e: (e.created, e.eval_id))):
            rank[facts.eval_id] = i
    latest: dict[tuple[str, str, object], int] = {}
    for r in results:
        key = _key(r, evals)
        if key is not None:
            latest[key] = max(latest.get(key, -1), rank.get(str(r.metadata["eval_id"]), 0))
    kept: list[RunResult] = []
    superseded: dict[str, int] = defaultdict(int)
    for r in results:
        key = _key(r, evals)
        if key is not None and rank.get(str(r.metadata["eval_id"]), 0) < latest[key]:
            superseded[key[0]] += 1
            continue
        kept.append(r)
    notes = []
    for task_id, n in sorted(superseded.items()):
        group = runs[task_id]
        notes.append(f"Inspect task {group[0].task!r}: {len(group)} logs of one task run "
                     f"(task id {task_id}, retried): {n} sample{'s' if n != 1 else ''} of "
                     "the earlier logs left out for the same sample in a later log")
    return kept, notes


def _key(result: RunResult, evals: dict[str, EvalFacts]) -> tuple[str, str, object] | None:
    facts = evals.get(str(result.metadata.get("eval_id")))
    if facts is None or not facts.task_id:
        return None
    return facts.task_id, str(result.metadata.get("sample_id")), result.metadata.get("epoch")


__all__ = ["latest_of_retries"]
