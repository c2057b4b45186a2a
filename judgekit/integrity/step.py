"""The integrity step's deterministic part: every result checked, the flagged ones
recorded, per arm counted (:func:`check_results` for loaded results; :func:`record_of` and
:class:`~judgekit.integrity.result.Tally` as scores stream by).

Example:
    >>> from judgekit.ingest.models import RunResult, Task, TestResult
    >>> from judgekit.scoring.score import score_result
    >>> r = RunResult(task=Task(id="t"), arm="a", test=TestResult(exit_code=0,
    ...     output="1 passed in 0.1s"), agent_diff=("--- a/tests/test_a.py\\n"
    ...     "+++ b/tests/test_a.py\\n@@ -1,2 +1,2 @@\\n def test_a():\\n"
    ...     "-    assert f() == 2\\n+    assert True\\n"))
    >>> done = check_results([r], [score_result(r)])
    >>> done.summary().integrity.arms["a"].pass_rate_adjusted
    0.0
"""

from __future__ import annotations

from collections.abc import Sequence

from judgekit.ingest.models import ResultKey, RunResult
from judgekit.integrity.inspect import Seen, inspect_result
from judgekit.integrity.models import IntegrityRecord
from judgekit.integrity.result import IntegrityResult, Tally
from judgekit.scoring.models import ScoredResult


def has_transcript(row: ScoredResult) -> bool:
    """Whether the result had a transcript its tool-call checks could read."""
    return row.transcript_format is not None and row.transcript_format != "raw"


def record_of(row: ScoredResult, seen: Seen) -> IntegrityRecord | None:
    """The record of a result with findings (None: it has none)."""
    if not seen.findings:
        return None
    return IntegrityRecord(task_id=row.task_id, arm=row.arm, attempt=row.attempt,
                           run_id=row.run_id, test_status=row.test_status,
                           passed=row.test_status == "passed", findings=seen.findings,
                           unknown=seen.unknown)


def tally_row(tally: Tally, row: ScoredResult) -> None:
    """Count one scored result in its arm."""
    tally.count(row.arm, passed=row.test_status == "passed", has_transcript=has_transcript(row))


def check_results(runs: Sequence[RunResult], rows: Sequence[ScoredResult]) -> IntegrityResult:
    """Every check on every result (``rows``: their scores, in any order)."""
    tally = Tally()
    by_key = {ResultKey.of(row): row for row in rows}
    for row in rows:
        tally_row(tally, row)
    for result in runs:
        seen = inspect_result(result)
        scored = by_key.get(ResultKey.of(result))
        if seen is None or scored is None:
            continue
        record = record_of(scored, seen)
        if record is not None:
            tally.flag(record)
    return IntegrityResult(tally)


__all__ = ["check_results", "has_transcript", "record_of", "tally_row"]
