"""``solution-in-item`` on benchmark items: the share of each item's fix (its added source
lines) found word for word in its issue text, flagged over
:data:`~judgekit.integrity.checks.SOLUTION_SHARE` (:func:`solution_in_items`), and the
records of the flagged items for an audit of items (:func:`item_records`: ``arm``
``item``, ``test_status`` ``not run``, as the item audit's records); the step's result on
items is :func:`judgekit.integrity.kind.check_items`.

Example:
    >>> from judgekit.ingest.items import BenchmarkItem
    >>> fix = "--- a/m.py\\n+++ b/m.py\\n@@ -1 +1,2 @@\\n x\\n+    return value.strip().lower()\\n"
    >>> leaked = BenchmarkItem(instance_id="a__b-1", patch=fix,
    ...                        problem_statement="Use `return value.strip().lower()`.")
    >>> [(i, f.share) for i, f in solution_in_items([leaked])]
    [('a__b-1', 1.0)]
    >>> [r.test_status for r in item_records([leaked])]
    ['not run']
"""

from __future__ import annotations

from collections.abc import Sequence

from judgekit.ingest.items import BenchmarkItem
from judgekit.integrity.changes import patch_changes
from judgekit.integrity.checks import TaskFacts, solution_in_item
from judgekit.integrity.models import Finding, IntegrityRecord

#: the arm and test status of an item's record (an item has no run).
ITEM = "item"
NOT_RUN = "not run"


def solution_in_items(items: Sequence[BenchmarkItem]) -> list[tuple[str, Finding]]:
    """Each item whose fix's added source lines are in its issue text over the threshold,
    with its finding (its ``share``)."""
    out = []
    for item in items:
        for finding in solution_in_item(patch_changes(item.patch), item.problem_statement,
                                        TaskFacts()):
            out.append((item.instance_id, finding))
    return out


def item_records(items: Sequence[BenchmarkItem]) -> list[IntegrityRecord]:
    """A record for each flagged item (``arm`` ``item``, ``test_status`` ``not run``)."""
    return [IntegrityRecord(task_id=instance_id, arm=ITEM, attempt=0, test_status=NOT_RUN,
                            passed=False, findings=[finding])
            for instance_id, finding in solution_in_items(items)]


__all__ = ["ITEM", "NOT_RUN", "item_records", "solution_in_items"]
