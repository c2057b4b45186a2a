"""How each labelled item was chosen, kept with its label, and the progress of the random
sample.

The queue (:mod:`judgekit.review.items`) is a seeded random permutation of the items. A
label is ``chosen: "random"`` when its item is taken in that order: every item before it
is labelled by the same labeller (the labels then cover a prefix of a random permutation,
a uniform random sample of the items). Otherwise the item was picked out of order:
``filter`` when the page opened it from a filtered list, ``hand`` otherwise. The server
decides this from the labels it holds, not from what the page claims. Each label also
keeps ``queue_seed`` and ``queue_position``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from judgekit.audit.calibrate import ItemLabel
from judgekit.ingest.models import ResultKey
from judgekit.outputs import LABELS_DIR
from judgekit.review.items import Queue
from judgekit.review.labels import (AUDIT_FILE, AuditKey, AuditLabel, K, L, LabelStore,
                                    _read_lines)
from judgekit.review.server import ReviewState


class SampledStore(LabelStore):
    """A :class:`LabelStore` that keeps, with each label it appends, how its item was
    chosen (set by :class:`SampledState` for the label being given)."""

    pending: dict[str, Any] | None = None

    def _keep(self, name: str, label: L, table: dict[K, L], key: K) -> None:
        if self.pending is not None:
            label = label.model_copy(update=self.pending)
        super()._keep(name, label, table, key)


class SampledState(ReviewState):
    """The review state with the labels' provenance and the random sample's progress;
    ``targets``: per kind (pairwise, audit), the random labels ``judgekit calibrate``'s
    target width asked for, when it did."""

    store: SampledStore

    def __init__(self, queue: Queue, store: SampledStore,
                 targets: dict[str, dict[str, Any]] | None = None) -> None:
        super().__init__(queue, store)
        self.targets = targets or {}

    def random_prefix(self) -> int:
        """How many items from the first on are labelled: the random sample's size."""
        return next((i for i, it in enumerate(self.queue.items) if not self.labelled(it)),
                    len(self.queue.items))

    def provenance(self, i: int, via: object) -> dict[str, Any]:
        """How item ``i`` was chosen, were it labelled now."""
        chosen = ("random" if self.random_prefix() >= i
                  else "filter" if via == "filter" else "hand")
        return {"chosen": chosen, "queue_seed": self.queue.seed, "queue_position": i}

    def label(self, body: dict[str, Any]) -> dict[str, Any]:
        i = body.get("i")
        ok = isinstance(i, int) and not isinstance(i, bool) and 0 <= i < len(self.queue.items)
        self.store.pending = (self.provenance(i, body.get("via"))
                              if ok and isinstance(i, int) else None)
        try:
            return super().label(body)
        finally:
            self.store.pending = None

    def queue_view(self) -> dict[str, Any]:
        prefix = self.random_prefix()
        done: dict[str, int] = {}
        for it in self.queue.items[:prefix]:
            done[it.kind] = done.get(it.kind, 0) + 1
        return {**super().queue_view(), "queue_seed": self.queue.seed,
                "random_labelled": done,
                "targets": {kind: {**t, "random_labelled": done.get(kind, 0)}
                            for kind, t in self.targets.items()}}


def label_targets(shares: dict[str, list[Any]]) -> dict[str, dict[str, Any]]:
    """Per kind, the most random labels any of its corrected shares (``CorrectedShare``)
    needs for the target width ``judgekit calibrate`` asked for; kinds without a
    target are left out."""
    out: dict[str, dict[str, Any]] = {}
    for kind, of_kind in shares.items():
        planned = [c for c in of_kind if c.target_half_width is not None]
        if not planned:
            continue
        needs = [c.labels_needed for c in planned]
        out[kind] = {"half_width": planned[0].target_half_width,
                     "labels_needed": None if None in needs else max(needs)}
    return out


def audit_item_labels(out_dir: Path, fresh: Callable[[AuditLabel], bool] | None = None
                      ) -> dict[str, ItemLabel]:
    """The audit labels of ``out_dir/labels/audit.jsonl`` per audited result (keyed as
    ``ResultKey.with_run()``), for the corrected shares: each labeller's last label, then
    the majority of the labellers (a tie is left out), with the category most of that
    majority named. A result is random when some labeller took it in the queue's random
    order. Stale labels (``fresh`` rejects them) and a torn last line are left out."""
    path = out_dir / LABELS_DIR / AUDIT_FILE
    rows = _read_lines(out_dir, AUDIT_FILE, None)
    last: dict[tuple[str, AuditKey], AuditLabel] = {}
    for n, obj in rows:
        a = LabelStore._validate(AuditLabel, obj, path, n)
        if fresh is None or fresh(a):
            last[(a.labeller, a.key())] = a
    by_item: dict[AuditKey, list[AuditLabel]] = {}
    for (_, key), a in last.items():
        by_item.setdefault(key, []).append(a)
    out: dict[str, ItemLabel] = {}
    for (task_id, arm, attempt, run_id), given in by_item.items():
        votes = Counter(a.label for a in given)
        (top, n), *rest = votes.most_common()
        if rest and rest[0][1] == n:
            continue
        named = Counter(a.category for a in given if a.label == top and a.category)
        out[ResultKey(task_id, arm, attempt, run_id or None).with_run()] = ItemLabel(
            label=top, category=named.most_common(1)[0][0] if named else None,
            random=any(a.chosen == "random" for a in given))
    return out
