"""The CLI contract of ``judgekit index`` and ``judgekit search``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from judgekit.cli import main

from ..clirun import judgekit
from .index_helpers import CORPUS, init_repo


def test_index_and_search_print_the_contract_json(
    tmp_path: Path, embedder: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    root = init_repo(tmp_path / "repo", dict(CORPUS))
    out = tmp_path / "idx"
    assert main(["index", str(root), "--out", str(out), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    contract = {"files", "chunks", "seconds", "chunks_per_s", "embed_chunks_per_s", "device", "dtype", "backend",
                "gpu_utilisation", "model"}
    assert contract <= stats.keys()
    assert stats["files"] == len(CORPUS) and stats["chunks"] > 0 and stats["device"] == "cpu"
    assert (stats["backend"], stats["dtype"]) == (embedder.backend, embedder.dtype)
    assert stats["gpu_utilisation"] is None and stats["chunk_tokens"] == 128
    # the whole command's rate counts every stage, so it is below the embedding stage's
    assert 0 < stats["chunks_per_s"] <= stats["embed_chunks_per_s"]
    assert stats["seconds"] >= stats["embed_seconds"] + stats["scan_seconds"]

    assert main(["search", str(out), "area of a circle", "-k", "2", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert len(hits) == 2
    assert {"path", "start_line", "end_line", "score"} <= hits[0].keys()
    assert hits[0]["path"] == "geometry/circle.py" and hits[0]["score"] >= hits[1]["score"]

    assert main(["search", str(out), "area of a circle", "-k", "1"]) == 0
    assert "geometry/circle.py:5-7" in capsys.readouterr().out
    assert main(["index", str(root), "--out", str(out)]) == 0
    assert "0 embedded" in capsys.readouterr().out


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    missing = judgekit("index", tmp_path / "nope", "--out", tmp_path / "idx", "--json")
    assert missing.returncode == 2 and missing.stdout == ""
    assert missing.stderr.strip().count("\n") == 0 and "does not exist" in missing.stderr
    not_index = judgekit("search", tmp_path, "query", "-k", "3", "--json")
    assert not_index.returncode == 2 and "not a judgekit index" in not_index.stderr


def test_unknown_device_is_a_config_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = init_repo(tmp_path / "repo", {"a.py": "x = 1\n"})
    assert main(["index", str(root), "--out", str(tmp_path / "idx"), "--device", "tpu9"]) == 2
    assert "unknown device 'tpu9'" in capsys.readouterr().err


def test_unknown_model_fails_offline_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = init_repo(tmp_path / "repo", {"a.py": "x = 1\n"})
    assert main(["index", str(root), "--out", str(tmp_path / "idx"), "--model", "nobody/no-such-model"]) == 2
    err = capsys.readouterr().err
    assert "cannot load embedding model 'nobody/no-such-model'" in err and err.count("\n") == 1


def test_backend_torch_reports_the_dtype_it_runs(
    tmp_path: Path, torch_embedder: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    root = init_repo(tmp_path / "repo", {"a.py": "def f():\n    return 1\n"})
    assert main(["index", str(root), "--out", str(tmp_path / "idx"), "--backend", "torch", "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert (stats["backend"], stats["dtype"], stats["fallback"]) == ("torch", torch_embedder.dtype, None)
    assert stats["probe_min_cosine"] == torch_embedder.probe_min_cosine


def test_int8_with_the_torch_backend_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = init_repo(tmp_path / "repo", {"a.py": "x = 1\n"})
    assert main(["index", str(root), "--out", str(tmp_path / "idx"), "--backend", "torch", "--dtype", "int8"]) == 2
    assert "dtype int8 needs the onnx backend" in capsys.readouterr().err
