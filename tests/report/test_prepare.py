"""Parts of a report rendered ahead (while the judge's calls wait) change no byte of it."""

from __future__ import annotations

from itertools import islice
from pathlib import Path

from judgekit.report import PreparedParts, write_reports
from tests.report.conftest import judged_result


def _files(out: Path) -> dict[str, bytes]:
    return {name: (out / name).read_bytes()
            for name in ("report.html", "report.md", "runs.jsonl", "results.jsonl")}


def test_reports_from_parts_prepared_ahead_are_byte_for_byte_the_same(tmp_path: Path) -> None:
    result = judged_result()  # hostile text in a diff, audit and pairwise verdicts
    prepared = PreparedParts()
    for _ in prepared.steps(result.runs, result.summary.results):
        pass
    assert prepared.ready == len(result.runs)
    assert prepared.scored_line(result.summary.results[-1]) is not None
    half = PreparedParts()
    for _ in islice(half.steps(result.runs, result.summary.results), len(result.runs) // 2):
        pass
    assert 0 < half.ready < len(result.runs)
    lines = PreparedParts()  # every result's details and some runs' JSON lines
    for _ in islice(lines.steps(result.runs, result.summary.results), len(result.runs) + 1):
        pass
    assert lines.json_line(result.runs[0]) is not None
    assert lines.json_line(result.runs[-1]) is None

    write_reports(result, tmp_path / "plain")
    write_reports(result, tmp_path / "ahead", prepared=prepared)
    write_reports(result, tmp_path / "half", prepared=half)
    write_reports(result, tmp_path / "lines", prepared=lines)
    plain = _files(tmp_path / "plain")
    assert _files(tmp_path / "ahead") == plain
    assert _files(tmp_path / "half") == plain
    assert _files(tmp_path / "lines") == plain


def test_a_part_prepared_from_other_scores_is_not_used(tmp_path: Path) -> None:
    result = judged_result()
    prepared = PreparedParts()
    for _ in prepared.steps(result.runs, result.summary.results):
        pass
    first = result.summary.results[0]
    rescored = first.model_copy(update={"files_touched": [*first.files_touched, "elsewhere.py"]})
    assert prepared.html(first, result.runs[0]) is not None
    assert prepared.html(rescored, result.runs[0]) is None
    assert prepared.html(first, result.runs[0].model_copy()) is None  # another run object
