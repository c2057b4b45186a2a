"""Search ranking on a tiny corpus with the real packaged model."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgekit.errors import ConfigError
from judgekit.index import CodeIndex


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("compute the area of a circle from its radius", "geometry/circle.py"),
        ("download a web page over HTTP", "net/http_client.py"),
        ("find a user by email address in the database", "db/users.py"),
        ("sum of prices in the shopping cart", "web/app.js"),
    ],
)
def test_best_hit_is_the_file_that_does_it(corpus_index: Path, query: str, expected: str) -> None:
    hits = CodeIndex.open(corpus_index).search(query, k=3)
    assert hits[0].path == expected
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_hits_carry_line_ranges_kind_and_text(corpus_index: Path) -> None:
    hit = CodeIndex.open(corpus_index).search("circle area", k=1)[0]
    assert (hit.start_line, hit.end_line, hit.kind) == (5, 7, "function")
    assert hit.text.startswith("def circle_area")


def test_k_bounds(corpus_index: Path) -> None:
    index = CodeIndex.open(corpus_index)
    assert len(index.search("anything", k=100)) == len(index.chunks)
    with pytest.raises(ConfigError):
        index.search("anything", k=0)
