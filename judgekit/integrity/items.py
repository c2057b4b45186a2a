"""``solution-in-item`` on benchmark items: the share of each item's fix (its added source
lines) found word for word in its issue text, flagged over
:data:`~judgekit.integrity.checks.SOLUTION_SHARE`.

Example:
    >>> from judgekit.ingest.items import BenchmarkItem
    >>> fix = "--- a/m.py\\n+++ b/m.py\\n@@ -1 +1,2 @@\\n x\\n+    return value.strip().lower()\\n"
    >>> leaked = BenchmarkItem(instance_id="a__b-1", patch=fix,
    ...                        problem_statement="Use `return value.strip().lower()`.")
    >>> [(i, f.share) for i, f in solution_in_items([leaked])]
    [('a__b-1', 1.0)]
"""

from __future__ import annotations

from collections.abc import Sequence

from judgekit.ingest.items import BenchmarkItem
from judgekit.integrity.changes import patch_changes
from judgekit.integrity.checks import TaskFacts, solution_in_item
from judgekit.integrity.models import Finding


def solution_in_items(items: Sequence[BenchmarkItem]) -> list[tuple[str, Finding]]:
    """Each item whose fix's added source lines are in its issue text over the threshold,
    with its finding (its ``share``)."""
    out = []
    for item in items:
        for finding in solution_in_item(patch_changes(item.patch), item.problem_statement,
                                        TaskFacts()):
            out.append((item.instance_id, finding))
    return out


__all__ = ["solution_in_items"]
