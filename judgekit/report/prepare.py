"""The parts of a report that no verdict changes, rendered ahead of time.

A result's diff, ground-truth diff, test output and materials take most of a report's
rendering time, and none of them depends on what the judge says; nor does a run's line of
``runs.jsonl`` or a score's line of ``results.jsonl``. ``PreparedParts`` renders them one
result at a time from :meth:`PreparedParts.steps`, a generator the caller advances
whenever it has nothing better to do: ``judgekit judge`` hands it to the engine, which
advances it between model calls (see :meth:`judgekit.engine.Engine.between_calls`).
Rendering the report then reuses what is ready and renders the rest itself, so the files
are the same whether or not any step ran.

Example:
    >>> prepared = PreparedParts()
    >>> for _ in prepared.steps([], []):
    ...     pass
    >>> prepared.ready
    0
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from judgekit.runs.models import RunResult
from judgekit.scoring.models import ScoredResult

_Key = tuple[object, ...]


def _fingerprint(scored: ScoredResult) -> _Key:
    """What the prepared parts read of a scored result."""
    return (scored.task_id, scored.arm, scored.attempt, tuple(scored.files_touched),
            tuple(scored.ground_truth_files), str(scored.test_status), scored.test_reason,
            tuple(scored.files_excluded))


class PreparedParts:
    """Per-result HTML and Markdown details and each run's JSON line, keyed by the run
    object they were made from."""

    def __init__(self) -> None:
        self._parts: dict[int, tuple[RunResult, _Key, str, list[str]]] = {}
        self._lines: dict[int, tuple[RunResult, str]] = {}
        self._scored: dict[int, tuple[ScoredResult, str]] = {}

    @property
    def ready(self) -> int:
        """Results whose parts are rendered."""
        return len(self._parts)

    def steps(self, runs: Sequence[RunResult], results: Sequence[ScoredResult]
              ) -> Iterator[None]:
        """Render each result's parts, then each run's JSON line, then each score's;
        yields after each one."""
        from judgekit.report.content import joined_runs
        from judgekit.report.html_tasks import static_details
        from judgekit.report.markdown import result_details

        for scored, run in joined_runs(runs, results):
            if run is None:
                continue
            self._parts[id(run)] = (run, _fingerprint(scored), static_details(scored, run),
                                    result_details(scored, run))
            yield
        for run in runs:
            self._lines[id(run)] = (run, run.model_dump_json())
            yield
        for scored in results:
            self._scored[id(scored)] = (scored, scored.model_dump_json())
            yield

    def _get(self, scored: ScoredResult, run: RunResult | None
             ) -> tuple[RunResult, _Key, str, list[str]] | None:
        got = self._parts.get(id(run)) if run is not None else None
        if got is None or got[0] is not run or got[1] != _fingerprint(scored):
            return None
        return got

    def json_line(self, run: RunResult) -> str | None:
        """``run``'s line of ``runs.jsonl`` (no newline), if made."""
        got = self._lines.get(id(run))
        return got[1] if got is not None and got[0] is run else None

    def scored_line(self, scored: ScoredResult) -> str | None:
        """``scored``'s line of ``results.jsonl`` (no newline), if made."""
        got = self._scored.get(id(scored))
        return got[1] if got is not None and got[0] is scored else None

    def html(self, scored: ScoredResult, run: RunResult | None) -> str | None:
        """The HTML details of ``run`` as scored by ``scored``, if rendered."""
        got = self._get(scored, run)
        return got[2] if got else None

    def markdown(self, scored: ScoredResult, run: RunResult | None) -> list[str] | None:
        """The Markdown details of ``run``, if rendered."""
        got = self._get(scored, run)
        return got[3] if got else None
