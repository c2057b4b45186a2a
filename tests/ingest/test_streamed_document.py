"""A .json run document read a result at a time gives what reading it whole gives: the same
results, the same decisions on what the document is, the same errors; a document too large
to read whole is read, and a pathological one is refused with one line naming the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import judgekit.ingest.cuts as cuts
import judgekit.ingest.load as load
from judgekit.errors import InputError
from judgekit.ingest.jsondoc import stream_document
from judgekit.ingest.load import load_runs, load_runs_result

from tests.benchmod import load_bench



def _bench():
    return load_bench("scoring_scale")


@pytest.fixture(scope="module")
def results() -> list[dict]:
    return list(_bench().results(tasks=6, attempts=2))


def _write(path: Path, document) -> Path:
    path.write_text(json.dumps(document, indent=1))
    return path


def _read(path: Path, streamed: bool, monkeypatch) -> tuple[str, object]:
    monkeypatch.setattr(load, "STREAM_BYTES", 0 if streamed else 1 << 60)
    try:
        report = load_runs_result(path)
    except InputError as exc:
        return "error", str(exc)
    return "ok", ([r.model_dump() for r in report.results], report.warnings)


def _same(path: Path, monkeypatch) -> tuple[str, object]:
    whole = _read(path, False, monkeypatch)
    assert _read(path, True, monkeypatch) == whole
    return whole


def test_run_file_and_list_read_the_same(tmp_path, results, monkeypatch):
    kind, _ = _same(_write(tmp_path / "a.json", {"format": "judgekit.run/v1",
                                                 "results": results}), monkeypatch)
    assert kind == "ok"
    assert _same(_write(tmp_path / "b.json", results), monkeypatch)[0] == "ok"


def test_members_after_the_list_and_run_id_from_the_document(tmp_path, results, monkeypatch):
    rows = [{k: v for k, v in r.items() if k != "run_id"} for r in results]
    rows[0]["run_id"] = "own"
    kind, (loaded, _) = _same(_write(tmp_path / "a.json", {"results": rows, "run_id": "doc",
                                                          "metadata": {"n": [1, {"x": 2}]}}),
                              monkeypatch)
    assert kind == "ok"
    assert [r["run_id"] for r in loaded[:2]] == ["own", "doc"]


@pytest.mark.parametrize("change", [
    lambda d: d["results"][7]["task"].update(id=""),
    lambda d: d["results"][3].update(attempt="x"),
    lambda d: d.update(run_id=5),
    lambda d: d.update(unknown=1),
    lambda d: d.update(arms={}, comparisons=[]),           # a judgekit summary
    lambda d: d["results"].insert(2, [1]),
    lambda d: d["results"][4].update(metadata={"deep": json.loads("[" * 70 + "]" * 70)}),
    lambda d: d["results"][5].update(metadata={"big": 10**40, "neg": -(2**64)}),
    lambda d: d.update(results=[]),
    lambda d: d.update(results=[{"x": 1}] + d["results"]),  # not results: another format
])
def test_bad_or_unusual_documents_decided_the_same(tmp_path, results, monkeypatch, change):
    document = {"format": "judgekit.run/v1", "results": json.loads(json.dumps(results))}
    change(document)
    _same(_write(tmp_path / "run.json", document), monkeypatch)


@pytest.mark.parametrize("text", [
    '{"results": [{"task": {"id": "a"}, "arm": "x"}, ',
    '{"results": [{"task": {"id": "a"}, "arm": "x"}]',
    '{"results": [{"task": {"id": "a"}, "arm": "x"}]} x',
    '{"results": [{"task": {"id": "a"}, "arm": "x"},]}',
    '{"results": [{"task": {"id": "a\\u00e9 }, {"}, "arm": "x"},'
    ' {"task": {"id": "b"}, "arm": "y"}]}',
    '{"results": [{"task": {"id": "a"}, "arm": "x", "duration_s": NaN}]}',
    '{"results": [{"task": {"id": "a"}, "arm": "x"}], "results": []}',
    '[{"task": {"id": "a"}, "arm": "x"}, {"task": {"id": "b"}, "arm": "x"}]',
])
def test_hand_written_documents_decided_the_same(tmp_path, monkeypatch, text):
    path = tmp_path / "run.json"
    path.write_text(text)
    _same(path, monkeypatch)


def test_braces_in_strings_do_not_end_a_result(tmp_path):
    rows = [{"task": {"id": f"t{i}"}, "arm": "a", "agent_diff": "x}, {\"arm\": 1}]} " * i}
            for i in range(30)]
    path = _write(tmp_path / "r.json", {"results": rows})
    doc = stream_document(path)
    assert [v for _, v, _ in doc.items] == rows


def test_large_document_is_read_and_a_huge_result_refused(tmp_path, results, monkeypatch):
    path = _write(tmp_path / "big.json", {"results": results})
    monkeypatch.setattr(load, "STREAM_BYTES", 0)
    monkeypatch.setattr(load, "MAX_FILE_BYTES", 1000)  # this file is "too large to read whole"
    assert len(load_runs(path)) == len(results)
    monkeypatch.setattr(load, "MAX_LINE_BYTES", 5000)  # and each result "too long"
    monkeypatch.setattr(cuts, "READ_FIELD_BYTES", 1 << 30)  # with no string worth cutting
    with pytest.raises(InputError) as exc:
        load_runs(path)
    assert str(exc.value) == (f"{path}: results[0]: longer than 5000 bytes even with its long "
                              "strings cut: refused")
    other = _write(tmp_path / "other.json", {"config": {"x": "y" * 2000}, "results": {"a": 1}})
    with pytest.raises(InputError, match="over the limit of 1000"):
        load_runs(other)
