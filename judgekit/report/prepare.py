"""Render the parts of a report that no verdict changes, a step at a time, ahead of the rest.

``PreparedParts`` fills a :class:`~judgekit.report.parts_cache.PartsCache` one result at a
time from :meth:`PreparedParts.steps`, a generator the caller advances whenever it has
nothing better to do: ``judgekit judge`` hands it to the engine, which advances it between
model calls (see :meth:`judgekit.engine.Engine.between_calls`). Rendering the report then
reuses what is ready and renders the rest itself, so the files are the same whether or not
any step ran.

Example:
    >>> prepared = PreparedParts()
    >>> for _ in prepared.steps([], []):
    ...     pass
    >>> prepared.ready
    0
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from judgekit.report.content import joined_runs
from judgekit.report.html_tasks import static_details
from judgekit.report.markdown_tasks import result_details
from judgekit.report.parts_cache import PartsCache
from judgekit.ingest import RunResult
from judgekit.scoring import ScoredResult


class PreparedParts(PartsCache):
    """A :class:`PartsCache` with the steps that fill it."""

    def steps(self, runs: Sequence[RunResult], results: Sequence[ScoredResult]
              ) -> Iterator[None]:
        """Render each result's details, then each run's JSON line, then each score's;
        yields after each one."""
        for scored, run in joined_runs(runs, results):
            if run is None:
                continue
            self.keep_details(scored, run, static_details(scored, run),
                              result_details(scored, run))
            yield
        for run in runs:
            self.keep_json_line(run, run.model_dump_json())
            yield
        for scored in results:
            self.keep_scored_line(scored, scored.model_dump_json())
            yield
