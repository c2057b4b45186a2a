"""The step contract: each step of an evaluation owns its records and its summary.

A step (scoring, pairwise judging, the audit of failed results, and any later one) owns
two pydantic models: its *Record*, one line of its JSONL file, and its *Summary*, the
top-level entries it adds to ``summary.json``. Its one function takes typed inputs and
returns a :class:`StepResult` ``[Record, Summary]``; :class:`judgekit.summary.EvalSummary`
is composed from the steps' Summary models, and ``judgekit.evaluate`` runs a list of
:class:`Step` objects.

Example:
    >>> from pydantic import BaseModel
    >>> class Line(BaseModel):
    ...     n: int
    >>> class Totals(BaseModel):
    ...     total: int
    >>> class Counted(StepResult[Line, Totals]):
    ...     name, records_file = "count", "count.jsonl"
    ...     def __init__(self, records):
    ...         self.records = records
    ...     def _summarise(self):
    ...         return Totals(total=sum(r.n for r in self.records))
    >>> done = Counted([Line(n=1), Line(n=2)])
    >>> done.summary().total, done.records_jsonl()
    (3, '{"n":1}\\n{"n":2}\\n')
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from pydantic import BaseModel

R = TypeVar("R", bound=BaseModel)
S = TypeVar("S", bound=BaseModel)
I_contra = TypeVar("I_contra", contravariant=True)


class StepResult(ABC, Generic[R, S]):
    """What one step made: its records (one line each of ``records_file``) and its summary.

    :meth:`summary` is computed once (statistics may take a moment) and then kept; treat
    the object it returns as read-only.
    """

    #: the step's name ("score", "pairwise", "audit").
    name: ClassVar[str]
    #: the JSONL file its records are written to; None when they have no file of their own.
    records_file: ClassVar[str | None] = None
    records: Sequence[R]

    @abstractmethod
    def _summarise(self) -> S:
        """The step's summary, computed."""

    def summary(self) -> S:
        """The step's summary: the top-level entries it adds to ``summary.json``."""
        kept: S | None = self.__dict__.get("_summary")
        if kept is None:
            kept = self._summarise()
            self.__dict__["_summary"] = kept
        return kept

    def keep_summary(self, summary: S) -> None:
        """Take ``summary`` as the step's summary instead of computing it (statistics read
        back from an earlier output)."""
        self.__dict__["_summary"] = summary

    def records_jsonl(self) -> str:
        """The records, one JSON object a line."""
        return "".join(r.model_dump_json() + "\n" for r in self.records)


class Step(Protocol[I_contra]):
    """One step of a pipeline: a name, and a function from the pipeline's inputs to a
    :class:`StepResult`."""

    name: str

    def run(self, inputs: I_contra) -> StepResult[Any, Any]:
        """Do the step's work on ``inputs``."""
        ...


__all__ = ["Step", "StepResult"]
