"""``score --out`` and ``score --json`` write what they write a piece at a time, from scores
kept and results read again one by one (never every loaded result at once); the files and the
printed JSON are byte for byte those of the same evaluation with every result kept, the
reports' one-by-one part cut to the first results with the cut said."""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

import judgekit.report as report_pkg
from judgekit.cli import main as cli
from judgekit.cli._common import print_json
from judgekit.errors import InputError
from judgekit.evaluate import PipelineOptions, run_pipeline
from judgekit.ingest import RunResult
from judgekit.report import content, svg, write_reports
from judgekit.summary import summary_of
from tests.conftest import EXAMPLE_BOBBIN

SHOWN = 7


@pytest.fixture
def small_report(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reports show 7 results one by one and 5 dots a plot row."""
    monkeypatch.setattr(content, "MAX_REPORT_RESULTS", SHOWN)
    monkeypatch.setattr(svg, "MAX_DOTS", 5)


def _files(out: Path) -> dict[str, bytes]:
    return {name: (out / name).read_bytes() for name in sorted(os.listdir(out))}


def _kept() -> object:
    return run_pipeline([str(EXAMPLE_BOBBIN)], [], options=PipelineOptions(keep_runs=True))


def test_score_out_streamed_writes_the_files_of_every_result_kept(
        tmp_path: Path, small_report: None, monkeypatch: pytest.MonkeyPatch) -> None:
    reread: list[int] = []
    again = report_pkg._runs_again

    def spy(*args: object) -> list[RunResult]:
        kept = again(*args)  # type: ignore[arg-type]
        reread.append(len(kept))
        return kept

    monkeypatch.setattr(report_pkg, "_runs_again", spy)
    assert cli(["score", str(EXAMPLE_BOBBIN), "--out", str(tmp_path / "streamed"),
                "--no-similarity"]) == 0
    assert reread == [SHOWN]  # results read again, the shown ones kept

    result = _kept()
    assert result.runs and result.reread is None  # type: ignore[attr-defined]
    write_reports(result, tmp_path / "kept")  # type: ignore[arg-type]
    streamed, kept = _files(tmp_path / "streamed"), _files(tmp_path / "kept")
    assert streamed.keys() == kept.keys() and streamed == kept
    n = len(kept["results.jsonl"].splitlines())
    assert n == len(kept["runs.jsonl"].splitlines()) > SHOWN
    cut = f"The first {SHOWN:,} of {n:,} results are shown one by one".encode()
    assert cut in streamed["report.md"] and cut in streamed["report.html"]
    assert b"(5 dots, evenly spaced by rank)" in streamed["report.html"]


def test_score_json_streamed_prints_the_json_of_every_result_kept() -> None:
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert cli(["score", str(EXAMPLE_BOBBIN), "--json", "--no-similarity"]) == 0
    whole = io.StringIO()
    with contextlib.redirect_stdout(whole):
        print_json(summary_of(_kept()).as_json())  # type: ignore[arg-type]
    assert printed.getvalue() == whole.getvalue() and '"results": [\n' in whole.getvalue()


def test_results_that_change_between_the_two_readings_write_nothing(tmp_path: Path) -> None:
    result = run_pipeline([str(EXAMPLE_BOBBIN)], [], options=PipelineOptions(keep_runs=False))
    assert result.runs == [] and result.reread is not None
    first = result.reread

    def fewer() -> Iterator[RunResult]:
        runs = list(first())
        yield from runs[:-1]

    result.reread = fewer
    with pytest.raises(InputError, match="changed while judgekit read them"):
        write_reports(result, tmp_path / "out")
    assert not (tmp_path / "out").exists() or os.listdir(tmp_path / "out") == []
