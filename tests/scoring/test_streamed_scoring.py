"""Scoring a run as it streams (shards scored in worker processes) gives the summary that
loading every result and scoring them gives, on a generated run and on the bundled runs, and
the same one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgekit.errors import InputError
from judgekit.evaluate import evaluate
from judgekit.jsontext import dumps
from judgekit.ingest.load import LoadResult, iter_items, load_runs, load_runs_result
from judgekit.scoring.score import score, summarise
from judgekit.scoring.stream import ScoredReading

from tests.benchmod import load_bench



def _bench():
    return load_bench("scoring_scale")


def _reference(paths) -> dict:
    report = load_runs_result(paths)
    return score(report.results, load_warnings=report.warnings).model_dump(mode="json")


def _streamed(paths, **options) -> dict:
    report = LoadResult()
    rows = list(iter_items(paths, ScoredReading(**options), report=report))
    return summarise(rows, load_warnings=report.warnings).model_dump(mode="json")


SHARDED = dict(workers=2, shard_bytes=64 * 1024, parallel_bytes=0)


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("run") / "run.jsonl"
    _bench().generate(path, tasks=40, attempts=3)
    return path


def test_generated_run_scores_the_same_in_shards(generated):
    reference = _reference(generated)
    assert len(reference["results"]) == 240
    assert _streamed(generated, **SHARDED) == reference
    assert _streamed(generated, workers=1, shard_bytes=10_000) == reference
    assert evaluate(generated, keep_runs=False).summary.model_dump(mode="json") == reference


def test_bundled_runs_score_the_same(bobbin_dir):
    reference = _reference(bobbin_dir)
    assert _streamed(bobbin_dir, **SHARDED) == reference
    assert evaluate(bobbin_dir, keep_runs=False).summary.model_dump(mode="json") == reference


def test_json_text_is_what_json_writes(generated, bobbin_dir):
    for paths in (generated, bobbin_dir):
        data = _reference(paths)
        assert dumps(data) == json.dumps(data, indent=2, default=str)


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def _error(call) -> str:
    with pytest.raises(InputError) as exc:
        call()
    return str(exc.value)


@pytest.mark.parametrize("bad", [
    b'{"task": {"id": ""}, "arm": "a"}\n',          # a field the model refuses
    b'{"task": {"id": "t"}, "arm": "a", "attempt": "1"}\n',
    b'{"task": {"id": "t"}, "arm": "a", "duration_s": 1e400}\n',
    b'{"task": {"id": "t"}, "arm": "a"\n',          # malformed
    b'[1, 2]\n',                                    # not an object
    b'{"task": {"id": "t\xff"}, "arm": "a"}\n',    # not UTF-8
    b'{"task": {"id": "t"}, "arm": "a", "metadata": {"x": "\\ud800"}}\n',
])
def test_a_bad_line_gives_the_line_by_line_error(tmp_path, generated, bad):
    lines = _lines(generated)
    lines.insert(150, bad)
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b"".join(lines))
    expected = _error(lambda: load_runs(path))
    assert "line 151" in expected
    assert _error(lambda: _streamed(path, **SHARDED)) == expected
    assert _error(lambda: _streamed(path, workers=1, shard_bytes=5_000)) == expected


def test_blank_lines_duplicates_and_big_integers_as_line_by_line(tmp_path, generated):
    lines = _lines(generated)
    row = json.loads(lines[3])
    row["metadata"] = {"huge": 10**30, "deep": [[[1]]], "wide": -(2**64)}
    lines[3] = json.dumps(row).encode() + b"\n"
    lines[10:10] = [b"\n", b"   \r\n", lines[20]]  # blank lines and a duplicate
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(b"".join(lines) + b"\n\n")
    reference = _reference(path)
    assert any("duplicate" in w for w in reference["warnings"])
    assert _streamed(path, **SHARDED) == reference


def test_other_formats_still_read_by_their_adapters(bobbin_dir, tmp_path):
    pred = tmp_path / "preds.jsonl"
    pred.write_text(json.dumps({"instance_id": "a__b-1", "model_name_or_path": "m",
                                "model_patch": "diff --git a/x b/x\n"}) + "\n")
    assert _streamed([bobbin_dir, pred], **SHARDED) == _reference([bobbin_dir, pred])


def _as_document(jsonl: Path, path: Path, change=None) -> Path:
    rows = [json.loads(line) for line in jsonl.read_text().splitlines()]
    document = {"format": "judgekit.run/v1", "results": rows}
    if change is not None:
        change(document)
    path.write_text(json.dumps(document))
    return path


def test_run_document_scored_in_workers_as_its_lines(tmp_path, generated, monkeypatch):
    import judgekit.ingest.load as load

    monkeypatch.setattr(load, "STREAM_BYTES", 0)
    document = _as_document(generated, tmp_path / "run.json")
    reference = _reference(generated)
    assert _streamed(document, **SHARDED) == reference
    assert _streamed(document, workers=1) == reference


def test_a_bad_result_of_a_large_document_named_by_the_workers(tmp_path, generated,
                                                                monkeypatch):
    import judgekit.ingest.load as load

    monkeypatch.setattr(load, "STREAM_BYTES", 0)
    monkeypatch.setattr(load, "MAX_FILE_BYTES", 1000)  # too large to be read whole
    document = _as_document(generated, tmp_path / "run.json",
                            lambda d: d["results"][150]["task"].update(id=""))
    expected = _error(lambda: _streamed(document, workers=1))
    assert expected.startswith(f"{document}: results[150].task.id: ")
    assert _error(lambda: _streamed(document, **SHARDED)) == expected
