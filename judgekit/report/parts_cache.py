"""Parts of a report rendered ahead of time, kept until the report is written.

A result's diff, ground-truth diff, test output and materials take most of a report's
rendering time, and none of them depends on what the judge says; nor does a run's line of
``runs.jsonl`` or a score's line of ``results.jsonl``. A :class:`PartsCache` holds such
parts, each looked up by the very object it was made from (and, for the details, by what
they read of the scored result), so a part made from another object is never reused. What
fills it is :class:`judgekit.report.prepare.PreparedParts`; the renderers only read it.

Example:
    >>> from judgekit.ingest import RunResult, Task
    >>> run = RunResult(task=Task(id="t"), arm="a")
    >>> cache = PartsCache()
    >>> cache.keep_json_line(run, "{}")
    >>> cache.json_line(run), cache.json_line(run.model_copy())
    ('{}', None)
"""

from __future__ import annotations

from judgekit.ingest import RunResult
from judgekit.scoring import ScoredResult

_Key = tuple[object, ...]


def _fingerprint(scored: ScoredResult) -> _Key:
    """What the details read of a scored result."""
    return (scored.task_id, scored.arm, scored.attempt, tuple(scored.files_touched),
            tuple(scored.ground_truth_files), str(scored.test_status), scored.test_reason,
            tuple(scored.files_excluded))


class PartsCache:
    """Per-result HTML and Markdown details, each run's and each score's JSON line, keyed
    by the object they were made from."""

    def __init__(self) -> None:
        self._details: dict[int, tuple[RunResult, _Key, str, list[str]]] = {}
        self._lines: dict[int, tuple[RunResult, str]] = {}
        self._scored: dict[int, tuple[ScoredResult, str]] = {}

    @property
    def ready(self) -> int:
        """Results whose details are rendered."""
        return len(self._details)

    def keep_details(self, scored: ScoredResult, run: RunResult, html: str,
                     markdown: list[str]) -> None:
        """Keep the details of ``run`` as scored by ``scored``."""
        self._details[id(run)] = (run, _fingerprint(scored), html, markdown)

    def keep_json_line(self, run: RunResult, line: str) -> None:
        """Keep ``run``'s line of ``runs.jsonl`` (no newline)."""
        self._lines[id(run)] = (run, line)

    def keep_scored_line(self, scored: ScoredResult, line: str) -> None:
        """Keep ``scored``'s line of ``results.jsonl`` (no newline)."""
        self._scored[id(scored)] = (scored, line)

    def _get(self, scored: ScoredResult, run: RunResult | None
             ) -> tuple[RunResult, _Key, str, list[str]] | None:
        got = self._details.get(id(run)) if run is not None else None
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
