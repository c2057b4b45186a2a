"""The review queue: what is shown of each item before it is labelled, and what is revealed
after.

The queue's order is a uniform random permutation of every item (pairs and audited results
together) drawn from the session's seed (:func:`queue_order`): labelling it from the first
item on labels a uniform random sample of the items, whatever the labeller stops at, and
two sessions with the same seed show the same order. The seed is kept with each label.

A pairwise item is one record of ``pairwise.jsonl``: its two solutions are shown as
``left`` and ``right``, which of ``arm_a`` / ``arm_b`` goes left decided by a hash of the
seed, the task and the arms (the same on every start). Its blind view carries the task, the
two diffs with their test outcomes and F1 against the fix, and nothing that names an arm or
a verdict. An audit item is one record of ``audit.jsonl``: the texts the judge was shown
(task description, test output, the diff, the fix, the transcript, named materials); its
reveal adds the verdict and where each quote of its evidence sits in those texts (offsets in
UTF-16 units, as the page's script indexes strings).

Example:
    >>> side_flip(0, "t1", "x", "y") in (True, False)
    True
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar

import numpy as np

from judgekit.audit import AuditRecord, load_rubric
from judgekit.audit.checks import extract_quotes
from judgekit.audit.models import AuditStats
from judgekit.errors import JudgekitError
from judgekit.ingest import RunResult
from judgekit.pairwise import PairRecord
from judgekit.pairwise.verdict import DIMENSIONS
from judgekit.report.load import load_report_dir
from judgekit.review.evidence import find_quote
from judgekit.review.labels import AuditKey, PairKey
from judgekit.scoring.models import ScoredResult

Side = Literal["left", "right", "draw"]


def side_flip(seed: int, task_id: str, arm_a: str, arm_b: str) -> bool:
    """True when ``arm_b`` is shown on the left."""
    digest = hashlib.sha256(f"{seed}\0{task_id}\0{arm_a}\0{arm_b}".encode()).digest()
    return bool(digest[0] & 1)


def queue_order(n: int, seed: int) -> list[int]:
    """The queue's order of ``n`` items: a uniform random permutation drawn from ``seed``
    (numpy's PCG64), the same for the same seed on every machine.

    Example:
        >>> queue_order(5, 1) == queue_order(5, 1), sorted(queue_order(5, 1))
        (True, [0, 1, 2, 3, 4])
    """
    return [int(k) for k in np.random.default_rng(seed).permutation(n)]


def sha256_of(view: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(view, sort_keys=True).encode()).hexdigest()


def utf16_offset(text: str, index: int) -> int:
    """The offset of code point ``index`` of ``text`` in UTF-16 units: how the page's script
    indexes a string (a character outside the Basic Multilingual Plane counts twice).

    Example:
        >>> utf16_offset("🚀 zero", 2), len("🚀 zero"[:2])
        (3, 2)
    """
    return len(text[:index].encode("utf-16-le")) // 2


RunKey = tuple[str, str, int, str]


def _run_key(task_id: str, arm: str, attempt: int, run_id: str | None) -> RunKey:
    return (task_id, arm, attempt, run_id or "")


R = TypeVar("R", PairRecord, AuditRecord)


@dataclass
class _Item(Generic[R]):
    """A record, what is shown of it before it is labelled, and that view's hash.

    ``same_content``: the hashes of every view of the same content (a pair's with its sides
    either way round, so that another shuffle's labels stay fresh); a label given to a view
    of another hash was given to other content: it is stale."""

    record: R
    blind: dict[str, Any]
    shown_sha256: str = field(init=False)
    same_content: frozenset[str] = field(init=False, default=frozenset())

    def __post_init__(self) -> None:
        self.shown_sha256 = sha256_of(self.blind)
        self.same_content = frozenset({self.shown_sha256})

    def fresh(self, shown_sha256: str | None) -> bool:
        """Whether a label given to a view of hash ``shown_sha256`` is of this content (a
        label that names no hash, written by hand, is taken as it is)."""
        return shown_sha256 is None or shown_sha256 in self.same_content

    @property
    def task_id(self) -> str:
        return self.record.task_id


@dataclass
class PairItem(_Item[PairRecord]):
    flipped: bool = False

    kind = "pairwise"

    def key(self, dimension: str) -> PairKey:
        """The item's full identity on ``dimension``: with several attempts per arm, each
        attempt pair is an item of its own."""
        r = self.record
        return (r.task_id, r.arm_a, r.arm_b, dimension, r.attempt_a, r.attempt_b)

    def arm_of(self, side: str) -> str:
        left, right = self.sides()
        return left if side == "left" else right

    def sides(self) -> tuple[str, str]:
        a, b = self.record.arm_a, self.record.arm_b
        return (b, a) if self.flipped else (a, b)

    def stored_label(self, side: Side) -> Literal["A", "B", "draw"]:
        """The label of ``arm_a`` vs ``arm_b`` for a press on ``side`` (the shuffle undone)."""
        if side == "draw":
            return "draw"
        return "A" if self.arm_of(side) == self.record.arm_a else "B"

    def shown_side(self, label: str) -> Side:
        if label == "draw":
            return "draw"
        arm = self.record.arm_a if label == "A" else self.record.arm_b
        return "left" if self.sides()[0] == arm else "right"

    def statuses(self) -> list[str]:
        """The two sides' test outcomes (shown blind)."""
        return sorted({str(self.blind[s]["test_status"]) for s in ("left", "right")})

    def facets(self) -> dict[str, Any]:
        """What the queue's filters on arms and verdicts match (labelled items only)."""
        r = self.record
        dims = r.dimensions.values()
        juries = [{j.dimensions[d].winner for j in (r.judges or {}).values()
                   if d in j.dimensions and j.dimensions[d].state == "valid"}
                  for d in r.dimensions]
        # the tests anchor completeness: the side that passed should not lose it
        status = {side: self.blind[side]["test_status"] for side in ("left", "right")}
        loser = None
        if sorted(status.values()) == ["failed", "passed"]:
            loser = self.arm_of("left" if status["left"] == "failed" else "right")
        comp = r.dimensions.get("completeness")
        return {"arms": sorted([r.arm_a, r.arm_b]),
                "flagged": any(d.position_bias or d.state != "valid" for d in dims),
                "jury_split": any(len(w) > 1 for w in juries),
                "anchored_contradiction": bool(loser and comp and comp.state == "valid"
                                               and comp.winner == loser),
                "unverified_evidence": False}

    def reveal(self) -> dict[str, Any]:
        left, right = self.sides()

        arm_a, arm_b = self.record.arm_a, self.record.arm_b

        def side_of(winner: str) -> str:
            return "left" if winner == left else "right" if winner == right else "draw"

        def dims(dimensions: dict[str, Any]) -> dict[str, Any]:
            out = {}
            for dim, d in dimensions.items():
                answered = d.state == "valid"  # else no answer: neither a draw nor a side
                out[dim] = {"winner": d.winner if answered else None,
                            "winner_side": side_of(d.winner) if answered else None,
                            "state": d.state, "position_bias": d.position_bias,
                            # each order's answer as the arm it chose (not the slot
                            # letter), named by the arm shown first in it
                            "orders": [
                                {"first": arm_a, "answer": arm_answer(d.order1, arm_a, arm_b),
                                 "reasoning": d.reasoning1},
                                {"first": arm_b, "answer": arm_answer(d.order2, arm_b, arm_a),
                                 "reasoning": d.reasoning2}]}
            return out

        return {"left_arm": left, "right_arm": right, "arm_a": self.record.arm_a,
                "arm_b": self.record.arm_b, "identical": self.record.identical,
                "verdict": dims(self.record.dimensions),
                "judges": {name: dims(j.dimensions)
                           for name, j in (self.record.judges or {}).items()}}


def arm_answer(slot: str | None, first: str, second: str) -> str | None:
    """The arm a judge's slot answer chose in an order that showed ``first`` as Solution A:
    its name, ``tie``, or None (no answer).

    Example:
        >>> arm_answer("A", "x", "y"), arm_answer("B", "x", "y"), arm_answer(None, "x", "y")
        ('x', 'y', None)
    """
    return {"A": first, "B": second}.get(slot, slot) if slot is not None else None


@dataclass
class AuditItem(_Item[AuditRecord]):
    kind = "audit"

    def key(self) -> AuditKey:
        r = self.record
        return (r.task_id, r.arm, r.attempt, r.run_id or "")

    def statuses(self) -> list[str]:
        return [str(self.record.test_status)]

    def facets(self) -> dict[str, Any]:
        """What the queue's filters on arms and verdicts match (labelled items only)."""
        r = self.record
        scores = {j.score for j in (r.judges or {}).values() if j.state == "valid"}
        return {"arms": [r.arm], "flagged": r.state != "valid",
                "jury_split": len(scores) > 1,
                "anchored_contradiction": r.contradicted,
                "unverified_evidence": r.state == "valid" and not r.evidence_verified}

    def reveal(self) -> dict[str, Any]:
        r = self.record
        verdict = r.verdict.model_dump() if r.verdict else {}
        texts = {t["name"]: t["text"] for t in self.blind["texts"]}
        marks, not_found = [], []
        for quote in extract_quotes(verdict.get("evidence")):
            at = find_quote(quote, texts)
            if at is None:
                not_found.append(quote)
            else:
                name, start, end = at
                marks.append({"quote": quote, "text": name,
                              "start": utf16_offset(texts[name], start),
                              "end": utf16_offset(texts[name], end)})
        return {"arm": r.arm, "attempt": r.attempt, "state": r.state,
                "score": verdict.get("score"), "deficiency_type": r.deficiency_type,
                "verdict": verdict, "evidence_verified": r.evidence_verified,
                "quotes_not_found_by_judge": r.quotes_not_found, "marks": marks,
                "quotes_not_found": not_found,
                "judges": {n: {"score": j.score, "deficiency_type": j.deficiency_type,
                               "state": j.state} for n, j in (r.judges or {}).items()}}


Item = PairItem | AuditItem


@dataclass
class Queue:
    items: list[Item]
    #: records whose result is not in runs.jsonl (shown without its texts), counted
    missing_runs: int = 0
    #: the audited rubric's category names, offered when an audit is labelled 1 (empty when
    #: there is no audit)
    categories: list[str] = field(default_factory=list)
    #: the seed of the items' random order (:func:`queue_order`)
    seed: int = 0


def _side(run: RunResult | None, scored: ScoredResult | None) -> dict[str, Any]:
    return {"diff": (run.agent_diff if run else None) or "",
            "test_status": scored.test_status if scored else None,
            "test_reason": scored.test_reason if scored else None,
            "test_output": (run.test.output if run and run.test else None) or "",
            "f1": scored.f1 if scored else None,
            "files": list(scored.files_touched) if scored else []}


def _task(run: RunResult | None, task_id: str) -> dict[str, Any]:
    t = run.task if run else None
    return {"id": task_id, "repo": t.repo if t else None,
            "description": (t.description if t else None) or "",
            "test_command": t.test_command if t else None,
            "fix": (run.ground_truth_diff if run else None) or ""}


def audit_texts(run: RunResult | None) -> list[dict[str, str]]:
    """The texts an audit's judge was shown and its quotes are searched in, in order."""
    if run is None:
        return []
    blocks = [("task description", run.task.description),
              ("test command", run.task.test_command),
              ("harness error", run.harness_error),
              ("test output", run.test.output if run.test else None),
              ("agent diff", run.agent_diff), ("fix", run.ground_truth_diff),
              ("transcript", run.transcript),
              *sorted(run.materials.items())]
    return [{"name": name, "text": text} for name, text in blocks if text]


def load_queue(out_dir: Path, seed: int) -> Queue:
    """The queue of an output directory: its pairs and its audited results in the random
    order of ``seed`` (the same seed shuffles the pairs' sides)."""
    inputs = load_report_dir(out_dir)
    runs = {_run_key(r.task.id, r.arm, r.attempt, r.run_id): r for r in inputs.runs}
    scored = {_run_key(s.task_id, s.arm, s.attempt, s.run_id): s
              for s in inputs.summary.results}
    missing = 0

    def lookup(task_id: str, arm: str, attempt: int, run_id: str | None
               ) -> tuple[RunResult | None, ScoredResult | None]:
        nonlocal missing
        k = _run_key(task_id, arm, attempt, run_id)
        run = runs.get(k)
        if run is None:
            missing += 1
        return run, scored.get(k)

    items: list[Item] = []
    for rec in inputs.pairwise:
        ra, sa = lookup(rec.task_id, rec.arm_a, rec.attempt_a, rec.run_id_a)
        rb, sb = lookup(rec.task_id, rec.arm_b, rec.attempt_b, rec.run_id_b)
        flipped = side_flip(seed, rec.task_id, rec.arm_a, rec.arm_b)
        a, b = _side(ra, sa), _side(rb, sb)
        dims = [d for d in DIMENSIONS if d in rec.dimensions] or list(rec.dimensions)
        blind: dict[str, Any] = {
            "kind": "pairwise", "task": _task(ra or rb, rec.task_id),
            "left": b if flipped else a, "right": a if flipped else b, "dimensions": dims}
        item = PairItem(rec, blind, flipped)
        item.same_content = frozenset({item.shown_sha256, sha256_of(
            {**blind, "left": blind["right"], "right": blind["left"]})})
        items.append(item)
    for arec in inputs.audit:
        run, _ = lookup(arec.task_id, arec.arm, arec.attempt, arec.run_id)
        shown: dict[str, Any] = {
            "kind": "audit", "task": _task(run, arec.task_id),
            "test_status": arec.test_status, "texts": audit_texts(run)}
        items.append(AuditItem(arec, shown))
    items = [items[k] for k in queue_order(len(items), seed)]
    return Queue(items, missing, audit_categories(inputs.summary.audit), seed)


def audit_categories(audit: AuditStats | None) -> list[str]:
    """The categories of the rubric the audit used, in the rubric's order: as the audit
    wrote them down, else (an output of an earlier judgekit) those of the rubric of that id
    when it can be loaded here. Never derived from the verdicts, which would tell the
    labeller what the judge answered: when the rubric cannot be found, none."""
    if audit is None:
        return []
    if audit.rubric_categories is not None:
        return list(audit.rubric_categories)
    if audit.rubric:
        try:
            return [c.name for c in load_rubric(audit.rubric).categories]
        except JudgekitError:
            pass
    return []
