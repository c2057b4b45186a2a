"""The reports of an evaluation: ``report.html``, ``report.md`` and the terminal summary.

``write_reports(result, DIR)`` writes an evaluation's whole set of files:

- ``summary.json``: the typed summary (:class:`~judgekit.summary.EvalSummary`: scores, arms,
  comparisons, warnings, and ``pairwise`` / ``audit`` when those steps ran);
- ``results.jsonl``: one scored result a line;
- ``runs.jsonl``: one loaded run result a line (diffs, test output), so the reports can be
  rebuilt from DIR alone;
- ``pairwise.jsonl`` and ``audit.jsonl`` when those steps ran;
- ``report.md`` and ``report.html``.

The set is written into a staging directory and then put in place so that ``DIR`` holds one
evaluation's files, never a mix of two, whenever the process is killed; the user's own files
in ``DIR`` are never moved (:mod:`judgekit.report.outdir`).

``render_reports(DIR)`` rebuilds the two reports from those files, without any model call.

The package is layered; a module imports only modules of the layers below its own:

1. building blocks, which know nothing of an evaluation: numbers (:mod:`~.format`), HTML
   (:mod:`~.markup`), Markdown (:mod:`~.markdown_blocks`), plots (:mod:`~.svg`), the
   output directory (:mod:`~.outdir`), ``calibration.json`` (:mod:`~.calibration`) and the
   parts rendered ahead (:mod:`~.parts_cache`);
2. what a report is rendered from, :class:`~.load.ReportInputs`, and its loaders
   (:mod:`~.load`);
3. what the reports say, the same words and rows for every rendering: scores and
   comparisons (:mod:`~.content`, :mod:`~.clustering`), the judged parts
   (:mod:`~.judged`, then :mod:`~.size_and_jury`), calibration (:mod:`~.calibration_view`);
4. the renderings: HTML (:mod:`~.html_judged` with :mod:`~.html_jury`, :mod:`~.html_tasks`),
   Markdown (:mod:`~.markdown_judged`, :mod:`~.markdown_tasks`), each step's part of the
   reports given to its descriptor (:mod:`~.step_parts`), then the pages, which render the
   registered steps' parts in order (:mod:`~.html`, :mod:`~.markdown`), and the terminal
   (:mod:`~.terminal`, :mod:`~.pairwise_terminal`, :mod:`~.audit_text`);
5. what runs them: rendering ahead (:mod:`~.prepare`) and writing the files (this module).

Example:
    >>> from judgekit import evaluate                       # doctest: +SKIP
    >>> write_reports(evaluate(["examples/bobbin"]), "out")  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from judgekit.errors import InputError
from judgekit.ingest import RunResult
from judgekit.io import atomic_write_text
from judgekit.report.content import shown_results
from judgekit.scoring import ScoredResult
from judgekit.outputs import REPORT_HTML, REPORT_MD, RESULTS_FILE, RUNS_FILE, SUMMARY_FILE
from judgekit.report.html import html_parts, render_html
from judgekit.report.load import ReportInputs, load_report_dir
from judgekit.report.markdown import render_markdown
from judgekit.report.outdir import OUTPUT_FILES, replace_dir, writing
from judgekit.report.prepare import PreparedParts
from judgekit.step_registry import STEPS

if TYPE_CHECKING:
    from judgekit.evaluate import EvalResult
    from judgekit.summary import EvalSummary

REPORT_FILES: tuple[str, ...] = (REPORT_HTML, REPORT_MD)


def write_report_files(inputs: ReportInputs, out_dir: str | Path) -> list[Path]:
    """Write ``report.html`` and ``report.md`` for ``inputs``; return their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out / REPORT_MD, render_markdown(inputs))
    atomic_write_text(out / REPORT_HTML, render_html(inputs))
    return [out / name for name in REPORT_FILES]


def _write_parts(path: Path, parts: Iterable[str]) -> None:
    """Write ``parts`` one after another (a large file is never joined into one string)."""
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(parts)


def _json_lines(models: Iterable[BaseModel], made: Callable[[Any], str | None] | None
                ) -> Iterator[str]:
    """Each model's JSON line: the one ``made`` ahead when there is one."""
    for m in models:
        line = made(m) if made is not None else None
        yield (line if line is not None else m.model_dump_json()) + "\n"


def _runs_again(reread: Callable[[], Iterator[RunResult]], results: Sequence[ScoredResult],
                path: Path) -> list[RunResult]:
    """Write ``runs.jsonl`` from the results read again, one at a time; return the ones the
    reports show one by one. Each must be the result scored at its place."""
    keep = len(shown_results(results))
    kept: list[RunResult] = []
    n = 0
    with open(path, "w", encoding="utf-8") as f:
        for run in reread():
            scored = results[n] if n < len(results) else None
            if scored is None or (run.run_id, run.task_id, run.arm, run.attempt) != (
                    scored.run_id, scored.task_id, scored.arm, scored.attempt):
                raise InputError("(run files)", None, "changed while judgekit read them "
                                 f"(result {n + 1} differs between two readings): nothing "
                                 "written; run again")
            f.write(run.model_dump_json() + "\n")
            if n < keep:
                kept.append(run)
            n += 1
    if n != len(results):
        raise InputError("(run files)", None, f"changed while judgekit read them ({n} results "
                         f"on the second reading, {len(results)} on the first): nothing "
                         "written; run again")
    return kept


def _write_set(inputs: ReportInputs, out: Path,
               reread: Callable[[], Iterator[RunResult]] | None = None) -> None:
    # Parts a step did not produce stay out of the file, as they are absent from the result.
    # Every file is written a piece at a time: none is ever held whole.
    _write_parts(out / SUMMARY_FILE, inputs.summary.text_chunks())
    prepared = inputs.prepared
    _write_parts(out / RESULTS_FILE, _json_lines(
        inputs.summary.results, prepared.scored_line if prepared is not None else None))
    if reread is None:
        _write_parts(out / RUNS_FILE, _json_lines(
            inputs.runs, prepared.json_line if prepared is not None else None))
    else:
        inputs = replace(inputs, runs=_runs_again(reread, inputs.summary.results,
                                                  out / RUNS_FILE))
    for kind in STEPS:
        records = inputs.records_of(kind)
        if records and kind.records_file is not None:
            _write_parts(out / kind.records_file, _json_lines(records, None))
    (out / REPORT_MD).write_text(render_markdown(inputs), encoding="utf-8")
    _write_parts(out / REPORT_HTML, html_parts(inputs))


def write_reports(result: EvalResult, out_dir: str | Path, *,
                  prepared: PreparedParts | None = None,
                  summary: EvalSummary | None = None) -> Path:
    """Write every file of ``result`` into ``out_dir`` as one set; return ``report.html``'s path.

    Whatever ``out_dir`` held before is replaced as a whole (see
    :func:`judgekit.report.outdir.replace_dir`); the command line refuses to replace another
    evaluation's output unless told to. ``prepared`` holds parts of the reports rendered
    ahead (:class:`~judgekit.report.prepare.PreparedParts`); ``summary`` is
    ``summary_of(result)`` when the caller has it already.
    """
    out = Path(out_dir)
    inputs = ReportInputs.from_result(result, prepared, summary)
    reread = result.reread if not result.runs else None  # scored as read, not kept
    replace_dir(out, lambda staging: _write_set(inputs, staging, reread))
    return out / REPORT_HTML


def render_reports(out_dir: str | Path) -> list[Path]:
    """Rebuild ``report.html`` and ``report.md`` from the files in ``out_dir``: after
    finishing a write of the set that a killed process left, and with no other judgekit
    process writing ``out_dir`` meanwhile."""
    with writing(out_dir):
        return write_report_files(load_report_dir(out_dir), out_dir)


__all__ = ["OUTPUT_FILES", "REPORT_FILES", "PreparedParts", "ReportInputs", "load_report_dir",
           "render_reports", "write_report_files", "write_reports"]
