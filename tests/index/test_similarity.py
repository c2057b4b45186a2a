"""Diff similarity: cosine of the embeddings of two unified diffs."""

from __future__ import annotations

from typing import Any

import pytest

from judgekit.index import diff_similarity
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


def test_identical_diffs_score_one(embedder: Any) -> None:
    assert diff_similarity(FIX, FIX) == 1.0


def test_equivalent_fix_scores_higher_than_unrelated_change(embedder: Any) -> None:
    close = diff_similarity(FIX, SAME_FIX_RESTYLED)
    far = diff_similarity(FIX, UNRELATED)
    assert -1.0 <= far < close - 0.3 and close < 1.0


def test_empty_diff_against_a_change_scores_zero() -> None:
    assert diff_similarity("", FIX) == 0.0
    assert diff_similarity("", "") == 1.0


def test_changed_lines_ignore_headers_and_context() -> None:
    assert changed_lines(FIX) == ["-    return items[start:start + size - 1]", "+    return items[start:start + size]"]


def test_batched_similarities_equal_one_by_one(embedder: Any) -> None:
    from judgekit.index import diff_similarities

    pairs = [(FIX, SAME_FIX_RESTYLED), (FIX, UNRELATED), (FIX, FIX), ("", UNRELATED)]
    batched = diff_similarities(pairs)
    single = [diff_similarity(a, b) for a, b in pairs]
    # bf16 batches of other sizes round slightly differently
    assert batched == pytest.approx(single, abs=0.01)


def test_score_reports_diff_similarity_beside_f1(embedder: Any) -> None:
    from judgekit.index import diff_similarities
    from judgekit.ingest.models import RunResult, Task
    from judgekit.scoring import score

    def result(arm: str, diff: str) -> RunResult:
        return RunResult(task=Task(id="t"), arm=arm, agent_diff=diff, ground_truth_diff=FIX)

    runs = [result("close", SAME_FIX_RESTYLED), result("far", UNRELATED),
            RunResult(task=Task(id="t"), arm="none", agent_diff=None, ground_truth_diff=FIX)]
    summary = score(runs, similarity=diff_similarities)
    close, far, none = summary.results
    assert close.diff_similarity > far.diff_similarity
    assert none.diff_similarity is None
    assert close.f1 == 1.0 and far.f1 == 0.0  # similarity never feeds F1
    assert summary.arms["close"].diff_similarity == close.diff_similarity
