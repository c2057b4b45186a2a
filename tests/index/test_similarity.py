"""Diff similarity: cosine of the embeddings of two unified diffs."""

from __future__ import annotations

from judgekit.index import diff_similarity
from judgekit.index.embed import Embedder
from judgekit.index.similarity import changed_lines

FIX = """--- a/src/pager.py
+++ b/src/pager.py
@@ -10,7 +10,7 @@ def page(items, size):
-    return items[start:start + size - 1]
+    return items[start:start + size]
"""
SAME_FIX_RESTYLED = """--- a/src/pager.py
+++ b/src/pager.py
@@ -10,7 +10,8 @@ def page(items, size):
-    return items[start:start + size - 1]
+    end = start + size  # the end index is exclusive
+    return items[start:end]
"""
UNRELATED = """--- a/README.md
+++ b/README.md
@@ -1,2 +1,4 @@
+## Installation
+Install the package with pip and set the LOG_LEVEL environment variable.
"""


def test_identical_diffs_score_one(embedder: Embedder) -> None:
    assert diff_similarity(FIX, FIX) == 1.0


def test_equivalent_fix_scores_higher_than_unrelated_change(embedder: Embedder) -> None:
    close = diff_similarity(FIX, SAME_FIX_RESTYLED)
    far = diff_similarity(FIX, UNRELATED)
    assert -1.0 <= far < close - 0.3 and close < 1.0


def test_empty_diff_against_a_change_scores_zero() -> None:
    assert diff_similarity("", FIX) == 0.0
    assert diff_similarity("", "") == 1.0


def test_changed_lines_ignore_headers_and_context() -> None:
    assert changed_lines(FIX) == ["-    return items[start:start + size - 1]", "+    return items[start:start + size]"]
