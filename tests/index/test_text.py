"""Chunks and queries are embedded as code read as words; an index says which form it holds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from judgekit.index import CodeIndex
from judgekit.index.chunking import embedding_text
from judgekit.index.models import Chunk
from judgekit.index.text import SOURCE, WORDS, WORDS_WITH_SELF, code_words


def test_punctuation_and_underscores_become_spaces_and_lines_stay() -> None:
    src = "def get_embedder(name: str) -> 'Embedder':\n    return _CACHE[name]  # größe\n"
    words = code_words(src)
    assert words.split() == ["def", "get", "embedder", "name", "str", "Embedder",
                             "return", "CACHE", "name", "größe"]
    assert len(words.splitlines()) == len(src.splitlines())


def test_the_embedding_text_of_a_chunk_is_its_header_and_code_as_words() -> None:
    chunk = Chunk(path="pkg/io_utils.py", start_line=1, end_line=1, kind="function",
                  text="def read_json(p): ...", name="read_json")
    assert embedding_text(chunk) == "pkg io utils read json\ndef read json p   "
    assert embedding_text(chunk, SOURCE) == "pkg/io_utils read_json\ndef read_json(p): ..."


def test_self_is_left_out_but_words_that_contain_it_stay() -> None:
    words = code_words("self.size = itself(self_check, selfish)  # the self-test")
    assert words.split() == ["size", "itself", "check", "selfish", "the", "test"]


def test_an_index_records_its_text_form_and_queries_take_it(corpus_index: Path,
                                                             embedder: Any) -> None:
    index = CodeIndex.open(corpus_index)
    assert index.manifest.text == WORDS
    query = "circle_area(self.radius)"
    assert np.allclose(index.embed_query(query), embedder.encode(["circle area  radius "])[0],
                       atol=1e-5)


def test_an_index_embedded_with_self_keeps_it_in_its_queries_and_is_embedded_again(
        corpus_index: Path, embedder: Any, tmp_path: Path) -> None:
    from judgekit.index import build_index

    old = tmp_path / "old"
    manifest = _source_text_copy(corpus_index, old)
    manifest["text"] = WORDS_WITH_SELF
    (old / "manifest.json").write_text(json.dumps(manifest))
    query = "circle_area(self.radius)"
    assert np.allclose(CodeIndex.open(old).embed_query(query),
                       embedder.encode(["circle area self radius "])[0], atol=1e-5)
    again = build_index(manifest["root"], old)
    assert again.embedded == again.chunks > 0
    assert CodeIndex.open(old).manifest.text == WORDS


def _source_text_copy(index: Path, dest: Path) -> dict[str, Any]:
    """A copy of ``index`` as written before text forms existed (no ``text``); its manifest."""
    dest.mkdir()
    for f in index.iterdir():
        (dest / f.name).write_bytes(f.read_bytes())
    manifest = json.loads((dest / "manifest.json").read_text())
    manifest.pop("text", None)
    (dest / "manifest.json").write_text(json.dumps(manifest))
    return manifest


def test_an_index_embedded_from_source_text_is_queried_as_source_text(
        corpus_index: Path, embedder: Any, tmp_path: Path) -> None:
    old = tmp_path / "old"
    _source_text_copy(corpus_index, old)
    index = CodeIndex.open(old)
    assert index.manifest.text is None
    query = "circle_area(radius)"
    assert np.allclose(index.embed_query(query), embedder.encode([query])[0], atol=1e-5)


def test_an_index_of_source_text_is_embedded_again_whole_when_refreshed(
        corpus_index: Path, embedder: Any, tmp_path: Path) -> None:
    from judgekit.index import build_index

    old = tmp_path / "old"
    manifest = _source_text_copy(corpus_index, old)
    again = build_index(manifest["root"], old)
    assert again.embedded == again.chunks > 0  # nothing reused from the source-text vectors
    assert CodeIndex.open(old).manifest.text == WORDS
    unchanged = build_index(manifest["root"], old)
    assert unchanged.embedded == 0  # a words index is refreshed incrementally as before
