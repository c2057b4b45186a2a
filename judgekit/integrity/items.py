"""``solution-in-item`` on benchmark items: the share of each item's fix (its added source
lines) found word for word in its issue text, flagged over
:data:`~judgekit.integrity.checks.SOLUTION_SHARE` (:func:`solution_in_items`), and the
integrity step's result for an audit of items (:func:`check_items`): one record per
flagged item (``arm`` ``item``, ``test_status`` ``not run``, as the item audit's records)
and ``summary.json``'s ``integrity_items``.

Example:
    >>> from judgekit.ingest.items import BenchmarkItem
    >>> fix = "--- a/m.py\\n+++ b/m.py\\n@@ -1 +1,2 @@\\n x\\n+    return value.strip().lower()\\n"
    >>> leaked = BenchmarkItem(instance_id="a__b-1", patch=fix,
    ...                        problem_statement="Use `return value.strip().lower()`.")
    >>> [(i, f.share) for i, f in solution_in_items([leaked])]
    [('a__b-1', 1.0)]
    >>> check_items([leaked]).summary().integrity_items.n_flagged
    1
"""

from __future__ import annotations

from collections.abc import Sequence

from judgekit.ingest.items import BenchmarkItem
from judgekit.integrity.changes import patch_changes
from judgekit.integrity.checks import SOLUTION_SHARE, TaskFacts, solution_in_item
from judgekit.integrity.kind import INTEGRITY
from judgekit.integrity.models import (Finding, IntegrityRecord, IntegrityStepSummary,
                                       ItemFlag, ItemIntegrity)
from judgekit.steps import StepResult

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


class ItemIntegrityResult(StepResult[IntegrityRecord, IntegrityStepSummary]):
    """``solution-in-item`` on benchmark items: the flagged items' records and their count
    among all items."""

    kind = INTEGRITY

    def __init__(self, n_items: int, records: Sequence[IntegrityRecord]) -> None:
        self.n_items = n_items
        self.records = list(records)

    def _summarise(self) -> IntegrityStepSummary:
        flags = [ItemFlag(instance_id=r.task_id, share=f.share or 0.0)
                 for r in self.records for f in r.findings]
        return IntegrityStepSummary(integrity_items=ItemIntegrity(
            threshold=SOLUTION_SHARE, n_items=self.n_items, n_flagged=len(self.records),
            flagged=flags))


def check_items(items: Sequence[BenchmarkItem]) -> ItemIntegrityResult:
    """``solution-in-item`` on every item: a record for each flagged one."""
    records = [IntegrityRecord(task_id=instance_id, arm=ITEM, attempt=0, test_status=NOT_RUN,
                               passed=False, findings=[finding])
               for instance_id, finding in solution_in_items(items)]
    return ItemIntegrityResult(len(items), records)


__all__ = ["ITEM", "ItemIntegrityResult", "NOT_RUN", "check_items", "solution_in_items"]
