"""Pairwise gold labels: a person's verdict on one dimension of two arms' solutions.

A label file is a CSV with the columns ``task_id,arm_a,arm_b,dimension,label`` (more
columns, such as a ``note``, are kept out of the way), or JSON lines with the same keys.
Optional ``attempt_a`` and ``attempt_b`` name the attempts compared when each arm has several
(every attempt judged); a label naming none covers every attempt pair of the two arms.
``label`` is ``A`` (arm_a's solution is better), ``B`` (arm_b's) or ``draw``, in any case;
a blank label is a row not labelled yet: skipped and counted. The same comparison
labelled twice must agree (the arms may be given in either order; ``A`` and ``B`` then
swap), unless both rows name the same ``labeller``: the later row then supersedes (how
``judgekit review`` records a changed mind). Rows of different labellers never contradict
each other: each labeller's labels are kept apart (rows naming no labeller count as one
labeller), and the labels measured are pooled, one per comparison: the label most of its
labellers gave; a comparison whose labellers tie is left out and counted. ``judgekit schema pairwise-label`` prints the JSON Schema of one label.

Example:
    >>> g = GoldLabel(task_id="flask-001", arm_a="x", arm_b="y", dimension="minimality",
    ...               label="B")
    >>> g.key(), g.label_for("y", "x")
    (('flask-001', 'x', 'y', 'minimality', None, None), 'A')
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judgekit.errors import InputError
from judgekit.io import read_csv, read_json_lines
from judgekit.pairwise.verdict import DIMENSIONS

Label = Literal["A", "B", "draw"]
Chosen = Literal["random", "filter", "hand"]
"""How a labelled item was chosen: ``random``, the next item of the review queue's seeded
random order (every item before it labelled); ``filter``, opened from a filtered list;
``hand``, opened out of that order otherwise. A label that does not say is not random."""
COLUMNS: tuple[str, ...] = ("task_id", "arm_a", "arm_b", "dimension", "label")
Key = tuple[str, str, str, str, int | None, int | None]
"""(task id, arm a, arm b, dimension, attempt of arm a, attempt of arm b), arms in sorted
order, attempts with their arms; attempts None for a label that names none (it covers every
attempt pair of the two arms)."""

_SWAP: dict[str, Label] = {"A": "B", "B": "A", "draw": "draw"}


class GoldLabel(BaseModel):
    """One gold label: which of two arms' solutions of a task is better on one dimension."""

    model_config = ConfigDict(extra="ignore", title="PairwiseGoldLabel")

    task_id: str = Field(min_length=1)
    arm_a: str = Field(min_length=1)
    arm_b: str = Field(min_length=1)
    dimension: Literal["consistency", "completeness", "minimality"]
    label: Label = Field(description="A: arm_a's solution is better; B: arm_b's; draw: "
                                     "neither is clearly better.")
    attempt_a: int | None = Field(None, description="The attempt of arm_a's run compared "
                                                    "(several attempts per arm, each "
                                                    "judged); absent: the label "
                                                    "covers every attempt pair of the arms.")
    attempt_b: int | None = Field(None, description="The attempt of arm_b's run compared.")
    note: str | None = Field(None, description="Why, for the next reader (not used).")
    labeller: str | None = Field(None, description="Who gave the label; a later label of "
                                                   "the same comparison by the same labeller "
                                                   "supersedes an earlier one.")
    time: str | None = Field(None, description="When the label was given (ISO 8601, UTC).")
    shown_sha256: str | None = Field(None, description="SHA-256 of what the labeller was "
                                                       "shown (judgekit review).")
    chosen: Chosen | None = Field(
        None, description="How the item was chosen for labelling: random (the review "
                          "queue's seeded random order, taken in order), filter or hand. "
                          "Absent: not recorded, taken as not random.")
    queue_seed: int | None = Field(None, description="The seed of the random queue order "
                                                     "the item was taken from.")
    queue_position: int | None = Field(None, description="The item's place in that order "
                                                         "(0: first).")

    def key(self) -> Key:
        """The comparison labelled, arms in sorted order (their attempts with them)."""
        return comparison_key(self.task_id, self.arm_a, self.arm_b, self.dimension,
                              self.attempt_a, self.attempt_b)

    def label_for(self, arm_a: str, arm_b: str) -> Label:
        """The label with ``arm_a`` as A: swapped when the file names the arms the other way."""
        return self.label if (arm_a, arm_b) == (self.arm_a, self.arm_b) else _SWAP[self.label]


def comparison_key(task_id: str, arm_a: str, arm_b: str, dimension: str,
                   attempt_a: int | None = None, attempt_b: int | None = None) -> Key:
    """The key of a comparison whichever way its arms are named: arms sorted, each attempt
    with its arm.

    Example:
        >>> comparison_key("t", "y", "x", "minimality", 1, 0)
        ('t', 'x', 'y', 'minimality', 0, 1)
    """
    if arm_b < arm_a:
        arm_a, arm_b, attempt_a, attempt_b = arm_b, arm_a, attempt_b, attempt_a
    return (task_id, arm_a, arm_b, dimension, attempt_a, attempt_b)


@dataclass
class GoldSet:
    """The labels of one file, one per comparison; rows read, and rows left blank."""

    labels: dict[Key, GoldLabel]
    rows: int
    blank: int = 0
    #: each labeller's labels ("" for rows naming none), when two or more labelled
    by_labeller: dict[str, dict[Key, GoldLabel]] = field(default_factory=dict)
    #: comparisons left out of ``labels`` because their labellers' labels tied
    pooled_ties: int = 0
    #: those comparisons (labelled, so not counted as without a label)
    tied: set[Key] = field(default_factory=set)
    #: labels left out as stale (given to content that has changed since)
    stale: int = 0

    def random_keys(self) -> set[Key]:
        """The comparisons whose item some labeller took in the queue's random order."""
        every = [self.labels, *self.by_labeller.values()]
        return {k for labels in every for k, g in labels.items() if g.chosen == "random"}


def pool(by_labeller: dict[str, dict[Key, GoldLabel]]) -> tuple[dict[Key, GoldLabel], int]:
    """One label per comparison: the label most labellers gave it (a tie is left out), and
    how many ties were left out. A labeller's label stands as it is when only they gave one.

    Example:
        >>> def g(who, label):
        ...     return GoldLabel(task_id="t", arm_a="x", arm_b="y", dimension="minimality",
        ...                      label=label, labeller=who)
        >>> k = ("t", "x", "y", "minimality", None, None)
        >>> pool({"a": {k: g("a", "A")}, "b": {k: g("b", "A")}, "c": {k: g("c", "B")}}
        ...      )[0][k].label, pool({"a": {k: g("a", "A")}, "b": {k: g("b", "B")}})[1]
        ('A', 1)
    """
    keys = dict.fromkeys(k for labels in by_labeller.values() for k in labels)
    pooled: dict[Key, GoldLabel] = {}
    ties = 0
    for key in keys:
        given = [labels[key] for labels in by_labeller.values() if key in labels]
        votes = Counter(g.label_for(key[1], key[2]) for g in given)
        (top, n), *rest = votes.most_common()
        if rest and rest[0][1] == n:
            ties += 1
            continue
        pooled[key] = next(g for g in given if g.label_for(key[1], key[2]) == top)
    return pooled, ties


def _is_jsonl(path: Path) -> bool:
    return path.suffix.casefold() in (".jsonl", ".ndjson")


def is_pairwise_labels(path: str | Path) -> bool:
    """True when ``path`` is a pairwise label file: JSON lines, or a CSV whose header has
    any of the ``arm_a``, ``arm_b`` and ``dimension`` columns (a missing one is then
    reported by :func:`read_gold`). A CSV that cannot be read (not UTF-8, say) is an
    :class:`InputError`."""
    p = Path(path)
    if _is_jsonl(p):
        return True
    header, _ = read_csv(p)
    return bool({"arm_a", "arm_b", "dimension"} & set(header))


def _normalise(row: dict[str, object]) -> dict[str, object]:
    out = {k.strip(): v.strip() if isinstance(v, str) else v for k, v in row.items() if k}
    for att in ("attempt_a", "attempt_b", "chosen", "queue_seed",
                "queue_position"):  # a CSV's blank cell: none named
        if out.get(att) == "":
            out[att] = None
    label = out.get("label")
    if isinstance(label, str) and label.casefold() in ("a", "b", "draw"):
        out["label"] = label.upper() if label.casefold() != "draw" else "draw"
    return out


def _label(row: dict[str, object], path: Path, where: str) -> GoldLabel:
    try:
        return GoldLabel.model_validate(row)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(x) for x in err["loc"]) or None
        value = row.get(field) if field else None
        reason = (f"{value!r} is not A, B or draw" if field == "label" and value is not None
                  else f"{value!r} is not one of {', '.join(DIMENSIONS)}"
                  if field == "dimension" and value is not None
                  else "missing" if err["type"] == "missing" else err["msg"])
        raise InputError(path, f"{where}: {field}" if field else where, reason) from None


def _rows(path: Path) -> list[tuple[int, dict[str, object]]]:
    """(line number, row) of a CSV or JSON-lines label file."""
    if _is_jsonl(path):
        rows = []
        for n, obj in read_json_lines(path):
            if not isinstance(obj, dict):
                raise InputError(path, f"line {n}", "expected a JSON object")
            rows.append((n, obj))
        return rows
    header, csv_rows = read_csv(path)
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise InputError(path, "header", f"missing column(s) {', '.join(missing)}")
    return [(n, dict(row)) for n, row in csv_rows]


def read_gold(path: str | Path, fresh: Callable[[GoldLabel], bool] | None = None) -> GoldSet:
    """Read a pairwise label file; any fault is an :class:`InputError` naming the line and
    the field. A labeller's effective label that ``fresh`` rejects is stale: left out and
    counted."""
    p = Path(path)
    if not p.is_file():
        raise InputError(p, None, "labels file not found")
    return gold_set(p, _rows(p), fresh)


def gold_set(p: Path, read: list[tuple[int, dict[str, object]]],
             fresh: Callable[[GoldLabel], bool] | None = None) -> GoldSet:
    """The labels of the rows ``read`` from ``p`` (line number, row), as :func:`read_gold`
    gives them."""
    groups: dict[str, dict[Key, tuple[int, GoldLabel]]] = {}
    rows = blank = stale = 0
    for n, raw in read:
        rows += 1
        row = _normalise(raw)
        if row.get("label") in ("", None) and "label" in row:
            blank += 1
            continue
        label = _label(row, p, f"line {n}")
        if label.arm_a == label.arm_b:
            raise InputError(p, f"line {n}: arm_b", "names the same arm as arm_a")
        labels = groups.setdefault(label.labeller or "", {})
        seen = labels.get(label.key())
        if seen is not None and label.labeller is not None:
            labels[label.key()] = (n, label)  # the same labeller changed their mind
            continue
        if seen is not None:
            first_line, first = seen
            if first.label_for(label.arm_a, label.arm_b) != label.label:
                raise InputError(p, f"line {n}: label", f"contradicts line {first_line} "
                                 "(the same comparison labelled differently)")
            continue
        labels[label.key()] = (n, label)
    by_labeller = {who: {k: v for k, (_, v) in labels.items()}
                   for who, labels in groups.items()}
    if fresh is not None:  # each labeller's effective label, when stale, is left out
        stale = sum(not fresh(g) for labels in by_labeller.values() for g in labels.values())
        by_labeller = {who: kept for who, labels in by_labeller.items()
                       if (kept := {k: g for k, g in labels.items() if fresh(g)})}
    if len(by_labeller) < 2:
        only = next(iter(by_labeller.values()), {})
        return GoldSet(labels=only, rows=rows, blank=blank, stale=stale)
    pooled, ties = pool(by_labeller)
    tied = {k for labels in by_labeller.values() for k in labels} - set(pooled)
    return GoldSet(labels=pooled, rows=rows, blank=blank, by_labeller=by_labeller,
                   pooled_ties=ties, tied=tied, stale=stale)
