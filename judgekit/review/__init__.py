"""``judgekit review``: a local app to read a verdict beside its evidence and label it blind.

The queue (:mod:`judgekit.review.items`) holds one item per compared pair of
``pairwise.jsonl`` and one per audited result of ``audit.jsonl``. Until the labeller has
labelled an item, what the app sends of it names neither its arms nor the judge's verdicts
(the two solutions of a pair are shown on seeded, shuffled sides); once the label is stored
(:mod:`judgekit.review.labels`, appended and synced one label at a time), the verdicts are
revealed beside it. The server (:mod:`judgekit.review.server`) listens on 127.0.0.1 only and
answers data requests only with the session's token, from its own origin.
"""

from __future__ import annotations

from judgekit.review.items import Queue, load_queue
from judgekit.review.labels import AuditLabel, LabelStore
from judgekit.review.server import ReviewServer, ReviewState

__all__ = ["AuditLabel", "LabelStore", "Queue", "ReviewServer", "ReviewState", "load_queue"]
