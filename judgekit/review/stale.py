"""Which labels are stale: given to a view of an item whose content has changed since (the
output re-judged with other patches, say). Each label keeps the hash of what was shown
(``shown_sha256``); a label whose hash is not one of its item's views now was given to other
content, and ``judgekit calibrate`` leaves it out and counts it. A label that names no hash
(written by hand) or matches no item is taken as it is.

Example:
    >>> check = LabelCheck(pair={("t", "x", "y", "minimality", None, None): {"aa"}})
    >>> from judgekit.pairwise.gold import GoldLabel
    >>> g = GoldLabel(task_id="t", arm_a="y", arm_b="x", dimension="minimality", label="A",
    ...               shown_sha256="bb")
    >>> check.pair_fresh(g), check.pair_fresh(g.model_copy(update={"shown_sha256": "aa"}))
    (False, True)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from judgekit import stats
from judgekit.pairwise.gold import GoldLabel, Key, comparison_key
from judgekit.review.items import AuditItem, PairItem, load_queue
from judgekit.review.labels import AuditKey, AuditLabel


@dataclass
class LabelCheck:
    """The hashes of the views of each item of an output directory."""

    #: comparison key (attempts None: any attempt pair of the arms) -> hashes
    pair: dict[Key, set[str]] = field(default_factory=dict)
    audit: dict[AuditKey, set[str]] = field(default_factory=dict)

    def pair_fresh(self, label: GoldLabel) -> bool:
        hashes = self.pair.get(label.key())
        return label.shown_sha256 is None or hashes is None or label.shown_sha256 in hashes

    def audit_fresh(self, label: AuditLabel) -> bool:
        hashes = self.audit.get(label.key())
        return hashes is None or label.shown_sha256 in hashes


def label_check(out_dir: Path) -> LabelCheck:
    """The :class:`LabelCheck` of the items ``judgekit review`` shows of ``out_dir``."""
    check = LabelCheck()
    for item in load_queue(out_dir, stats.DEFAULT_SEED).items:
        if isinstance(item, PairItem):
            r = item.record
            for dim in item.blind["dimensions"]:
                for attempts in ((r.attempt_a, r.attempt_b), (None, None)):
                    key = comparison_key(r.task_id, r.arm_a, r.arm_b, dim, *attempts)
                    check.pair.setdefault(key, set()).update(item.same_content)
        else:
            assert isinstance(item, AuditItem)
            check.audit.setdefault(item.key(), set()).update(item.same_content)
    return check
