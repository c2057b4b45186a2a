"""A run document cut short, read a result at a time: one whole sentence naming the file and
the result where it ends (the streamed reading of files too large to read whole)."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgekit.errors import InputError
from judgekit.ingest.jsondoc import stream_document


@pytest.mark.parametrize(("text", "says"), [
    (b'{"results": [{"a": 1}', "results[0]: malformed JSON: the file ends inside the list "
                              "(is it cut short?)"),
    (b'{"results": [{"a": 1},', "results[1]: malformed JSON: the file ends inside the list "
                               "(is it cut short?)"),
    (b'{"results": [{"a": 1}], "x": 1', "malformed JSON: the file ends inside the document "
                                       "(is it cut short?)"),
    (b'[{"a": 1}] x', "malformed JSON: more text follows the document"),
    (b'{"results": [{"a": "cut', "results[0]: malformed JSON at column 7: a string starts "
                                "there and is never closed: the file ends first (is it cut "
                                "short?)"),
])
def test_a_cut_document_is_named_in_a_whole_sentence(tmp_path: Path, text: bytes,
                                                     says: str) -> None:
    path = tmp_path / "run.json"
    path.write_bytes(text)
    with pytest.raises(InputError) as caught:
        list(stream_document(path).items)
    assert str(caught.value) == f"{path}: {says}"
