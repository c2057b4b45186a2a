"""A result too long to read whole is read with its long strings cut to their head and tail,
marked in its ``truncated`` and counted in the scoring warnings: it never makes the other
results of its file unreadable. Only a result still too long once cut is refused, in one
line naming the file and the result."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import orjson
import pytest

import judgekit.ingest.cuts as cuts
import judgekit.ingest.load as load
import judgekit.scoring.stream as stream
from judgekit.errors import InputError
from judgekit.ingest.cuts import compact_value, mark_read_cuts
from judgekit.ingest.load import load_runs
from judgekit.scoring.stream import iter_scored

from tests.clirun import judgekit

FIX = "diff --git a/src/x.py b/src/x.py\n--- a/src/x.py\n+++ b/src/x.py\n@@ -1 +1 @@\n-a\n+b\n"


def _random_file_diff(n_bytes: int) -> str:
    """The diff of an agent that wrote ``n_bytes`` random bytes as a base64 text file."""
    text = base64.b64encode(os.urandom(n_bytes)).decode()
    body = "".join(f"+{text[i:i + 76]}\n" for i in range(0, len(text), 76))
    return ("diff --git a/big.txt b/big.txt\nnew file mode 100644\n--- /dev/null\n"
            f"+++ b/big.txt\n@@ -0,0 +1 @@\n{body}{FIX}")


def _rows(big_diff: str, n: int = 3, big: int = 1) -> list[dict]:
    return [{"task": {"id": f"t{i}"}, "arm": "a", "agent_diff": big_diff if i == big else FIX,
             "ground_truth_diff": FIX, "test": {"exit_code": 0, "output": "1 passed in 0.1s"}}
            for i in range(n)]


def _write_jsonl(path: Path, rows: list[dict]) -> Path:
    with open(path, "wb") as fh:
        for row in rows:
            fh.write(orjson.dumps(row) + b"\n")
    return path


def test_a_result_line_of_a_60mb_random_file_is_scored_and_marked(tmp_path: Path) -> None:
    run = _write_jsonl(tmp_path / "run.jsonl", _rows(_random_file_diff(60_000_000)))
    assert run.stat().st_size > 80_000_000  # the line is over the 64 MiB a line is read whole
    out = tmp_path / "out"
    proc = judgekit("score", str(run), "--out", str(out), "--no-similarity")
    assert proc.returncode == 0, proc.stderr
    scored = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert [(r["task_id"], r["truncated"]) for r in scored] == [
        ("t0", []), ("t1", ["agent_diff"]), ("t2", [])]
    assert scored[1]["files_touched"] == ["big.txt", "src/x.py"]  # head and tail kept
    summary = json.loads((out / "summary.json").read_text())
    assert summary["arms"]["a"]["n"] == 3 and summary["arms"]["a"]["n_passed"] == 3
    assert any(w.startswith("1 of 3 results have text fields cut") and "t1 / a" in w
               for w in summary["warnings"])
    assert (out / "results.jsonl").stat().st_size < 10_000


@pytest.fixture
def small_caps(monkeypatch: pytest.MonkeyPatch) -> None:
    """A result is 'too long to read whole' over 20 kB, a string cut over 2 kB."""
    monkeypatch.setattr(load, "MAX_LINE_BYTES", 20_000)
    monkeypatch.setattr(stream, "MAX_LINE_BYTES", 20_000)
    monkeypatch.setattr(cuts, "READ_FIELD_BYTES", 2_000)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_long_line_is_cut_the_same_read_alone_or_in_shards(
        tmp_path: Path, small_caps: None, workers: int) -> None:
    rows = _rows(_random_file_diff(40_000), n=40, big=17)
    run = _write_jsonl(tmp_path / "run.jsonl", rows)
    results = load_runs(run)
    assert [r.task_id for r in results] == [f"t{i}" for i in range(40)]
    assert [i for i, r in enumerate(results) if r.truncated] == [17]
    cut = results[17].truncated["agent_diff"]
    assert cut.kept < 2_100 and cut.bytes > 50_000 and cut.sha256 is None
    assert "bytes cut by judgekit on reading" in results[17].agent_diff
    reading = stream.ScoredReading(workers=workers, shard_bytes=5_000, parallel_bytes=0)
    scored = list(load.iter_items(run, reading))
    assert [s.task_id for s in scored] == [r.task_id for r in results]
    assert [s.truncated for s in scored][16:19] == [[], ["agent_diff"], []]


@pytest.mark.parametrize("workers", [1, 2])
def test_a_long_result_of_a_json_document_is_read_cut(
        tmp_path: Path, small_caps: None, monkeypatch: pytest.MonkeyPatch, workers: int
        ) -> None:
    monkeypatch.setattr(load, "STREAM_BYTES", 0)
    rows = _rows(_random_file_diff(40_000), n=12, big=5)
    doc = tmp_path / "run.json"
    doc.write_bytes(orjson.dumps({"run_id": "r1", "results": rows}))
    results = load_runs(doc)
    assert [r.task_id for r in results] == [f"t{i}" for i in range(12)]
    assert [bool(r.truncated) for r in results] == [i == 5 for i in range(12)]
    assert all(r.run_id == "r1" for r in results)
    scored = list(iter_scored(doc, workers=workers))
    assert [s.truncated for s in scored][4:7] == [[], ["agent_diff"], []]


def test_a_result_still_too_long_once_cut_is_refused_in_one_line(
        tmp_path: Path, small_caps: None) -> None:
    rows = _rows(FIX, n=2)
    rows[1]["agent_files"] = [f"f{i}.py" for i in range(5_000)]  # many short strings
    run = _write_jsonl(tmp_path / "run.jsonl", rows)
    with pytest.raises(InputError) as exc:
        load_runs(run)
    assert str(exc.value) == (f"{run}: line 2: longer than 20000 bytes even with its long "
                              "strings cut: refused")


@pytest.mark.parametrize("cap", [7, 8, 9, 10, 11, 13, 50])
def test_strings_cut_anywhere_stay_valid_json(tmp_path: Path, cap: int) -> None:
    text = 'a\\"b\n\té€😀\u0001' * 20
    value = {"s": text, "n": [1, {"k": text}], "short": "é"}
    path = tmp_path / "v.json"
    path.write_bytes(orjson.dumps(value))
    raw, consumed = compact_value(path, 0, "x", limit=1 << 20, line=False, field_bytes=cap)
    assert consumed == path.stat().st_size
    read = orjson.loads(raw)
    assert read["short"] == "é" and read["n"][0] == 1
    head = read["s"].split("\n[... ")[0]
    assert text.startswith(head)
    assert mark_read_cuts(read) == 2 and sorted(read["truncated"]) == ["n[1].k", "s"]


def test_a_diff_cut_on_reading_still_names_every_file_it_touched(
        tmp_path: Path, small_caps: None) -> None:
    middle = FIX.replace("src/x.py", "src/middle.py")
    diff = _random_file_diff(30_000) + middle + _random_file_diff(30_000).replace(
        "big.txt", "other.txt")
    rows = _rows(diff, n=2, big=1)
    rows[1]["ground_truth_diff"] = middle
    run = _write_jsonl(tmp_path / "run.jsonl", rows)
    result = load_runs(run)[1]
    assert "src/middle.py" not in result.agent_diff  # in the part cut out
    assert result.agent_files == ["big.txt", "other.txt", "src/middle.py", "src/x.py"]
    (scored,) = [s for s in iter_scored(run, workers=1) if s.task_id == "t1"]
    assert scored.files_touched == ["big.txt", "other.txt", "src/middle.py", "src/x.py"]
    assert scored.recall == 1.0 and scored.truncated == ["agent_diff"]
