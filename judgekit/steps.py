"""The step contract: a step is known in one place, its descriptor.

A step (scoring, pairwise judging, the audit of failed results, and any later one) is
described once, by a :class:`StepKind` declared in its own package: its name, its *Record*
model (one line of its JSONL file), its *Summary* model (the top-level entries it adds to
``summary.json``), its records file, its part of the closing lines the commands print and
(given by the report package, :class:`ReportPart`) its part of the reports.
Its one function takes typed inputs and returns a :class:`StepResult` ``[Record, Summary]``
whose ``kind`` is that descriptor. Everything downstream (``summary.json``, the output
writer, the report loader, re-judging and the command line) iterates over the registered
descriptors (:mod:`judgekit.step_registry`) and reads a step's result through typed methods,
never by its name.

Example:
    >>> from pydantic import BaseModel
    >>> class Line(BaseModel):
    ...     n: int
    >>> class Totals(BaseModel):
    ...     total: int
    >>> COUNT = StepKind("count", Line, Totals, "count.jsonl")
    >>> class Counted(StepResult[Line, Totals]):
    ...     kind = COUNT
    ...     def __init__(self, records):
    ...         self.records = records
    ...     def _summarise(self):
    ...         return Totals(total=sum(r.n for r in self.records))
    >>> done = Counted([Line(n=1), Line(n=2)])
    >>> done.summary().total, done.records_jsonl(), done.name
    (3, '{"n":1}\\n{"n":2}\\n', 'count')
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Protocol, TypeVar, cast

from pydantic import BaseModel

R = TypeVar("R", bound=BaseModel)
S = TypeVar("S", bound=BaseModel)
R_co = TypeVar("R_co", bound=BaseModel, covariant=True)
S_co = TypeVar("S_co", bound=BaseModel, covariant=True)
I_contra = TypeVar("I_contra", contravariant=True)


@dataclass
class Failures:
    """What a step's failed calls come to: one line each to tell, and whether every call
    of the step failed (the command then exits 1)."""

    lines: list[str] = field(default_factory=list)
    all_failed: bool = False


@dataclass(frozen=True)
class ReportPart(Generic[I_contra]):
    """How a step's part of ``report.md`` and ``report.html`` is made from the reports'
    inputs (``I_contra``: :class:`judgekit.report.load.ReportInputs`).

    Rendering sits above the steps, so the report package gives each step's descriptor its
    part (:meth:`StepKind.set_report`, in :mod:`judgekit.report.step_parts`) and renders the
    registered steps' parts in their order; it names no step itself.
    """

    #: the ``id`` of its HTML section and the page navigation's words for it.
    anchor: str
    title: str
    #: its Markdown section(s), lines.
    markdown: Callable[[I_contra], list[str]]
    #: its HTML section.
    html: Callable[[I_contra], str]
    #: what it puts at the top of the report, before the scores (a warning about its judge).
    top_markdown: Callable[[I_contra], list[str]] | None = None
    top_html: Callable[[I_contra], str] | None = None


@dataclass(frozen=True)
class Switch:
    """An on/off option a step declares for every command that scores results: the
    command line adds ``--FLAG`` from it and hands the pipeline the steps switched off
    (``PipelineOptions.off``), so a step's options are spelled in its descriptor, not in
    ``cli/``."""

    #: the flag's words, without the dashes (``no-integrity``).
    flag: str
    help: str

    @property
    def dest(self) -> str:
        """argparse's destination of the flag."""
        return self.flag.replace("-", "_")


class StepKind(Generic[R, S]):
    """A step as the rest of judgekit knows it: declared once, in the step's package.

    The closing-line methods read the step's own Summary model; they are given the whole
    ``summary.json`` model, of which the step's Summary is a base. A step without lines of
    its own keeps the defaults (no line, nothing spent, nothing left out).
    """

    def __init__(self, name: str, record: type[R], summary: type[S],
                 records_file: str | None = None) -> None:
        #: the step's name: its entries' prefix in the closing lines.
        self.name = name
        #: one line of its records file.
        self.record = record
        #: the top-level entries it adds to ``summary.json``.
        self.summary = summary
        #: the JSONL file its records are written to and read back from; None: no file.
        self.records_file = records_file
        #: its part of the reports, given by the report package (None: it has none).
        self.report: ReportPart[Any] | None = None
        #: the option that switches it off in the commands that score (None: it has none).
        self.switch: Switch | None = None

    def __repr__(self) -> str:
        return f"StepKind({self.name!r})"

    def set_report(self, part: ReportPart[Any]) -> None:
        """Give the step its part of the reports (rendering code lives above the steps)."""
        self.report = part

    def read_record(self, value: object) -> R:
        """One record, validated (from memory or from a line read back)."""
        return self.record.model_validate(value)

    def ran(self, summary: S) -> bool:
        """Whether ``summary`` holds this step's entries (it ran, now or in the output):
        by default, whether one of its Summary model's entries is given there."""
        given = summary.model_fields_set
        return any(name in given and getattr(summary, name) is not None
                   for name in self.summary.model_fields)

    def part_of(self, summary: BaseModel) -> S:
        """The step's own entries of ``summary`` (``summary.json`` read back, of which
        the step's Summary model is a base): those given there, as they are."""
        given = summary.model_fields_set
        return self.summary.model_validate({name: getattr(summary, name)
                                            for name in self.summary.model_fields
                                            if name in given})

    def kept(self, records: Sequence[R], summary: S) -> StepResult[R, S]:
        """The step's result as an earlier output holds it (its records and its summary),
        carried over unchanged: nothing is computed again."""
        return Kept(self, records, summary)

    def closing_lines(self, summary: S, part: StepResult[R, S] | None) -> list[str]:
        """Its lines of the commands' closing summary; ``part`` is the result of this run
        (None when the step's entries come from elsewhere)."""
        return []

    def headline_lines(self, summary: S) -> list[str]:
        """What it adds to the scores the terminal shows (after the arms and comparisons),
        e.g. a pass rate adjusted by its findings; plain text."""
        return []

    def spend_usd(self, summary: S) -> float:
        """Dollars it spent (its part of the closing ``spend:`` line)."""
        return 0.0

    def on_transcript(self, transcript: Any) -> list[BaseModel] | None:
        """What it finds in one agent session alone (a
        :class:`~judgekit.ingest.transcripts.model.Transcript`; the transcript command
        lists it under the step's name beside the transcript), without a judge; None: it
        has nothing to say of a transcript (the default)."""
        return None

    def on_items(self, items: Sequence[Any]) -> StepResult[R, S] | None:
        """Its result on benchmark items alone (each a
        :class:`~judgekit.ingest.items.BenchmarkItem`; an audit of items, which has no
        results to score), without a judge; None: it has nothing to say of items (the
        default)."""
        return None

    def left_out_for_cost(self, summary: S) -> tuple[str, list[str]]:
        """What the cost cap left out: the words for it ("not judged") and the items."""
        return "", []

    def n_left_out_for_cost(self, summary: S) -> int:
        """How many items the cost cap left out (the run is then incomplete)."""
        return 0


class StepResult(ABC, Generic[R_co, S_co]):
    """What one step made: its records (one line each of its records file) and its summary.

    :meth:`summary` is computed once (statistics may take a moment) and then kept; treat
    the object it returns as read-only.
    """

    #: the step's descriptor.
    kind: ClassVar[StepKind[Any, Any]]
    #: carried over unchanged from an earlier output, not run now: its failures were told
    #: when it ran.
    carried_over: ClassVar[bool] = False
    records: Sequence[R_co]

    @property
    def name(self) -> str:
        """The step's name (its descriptor's)."""
        return self.kind.name

    @property
    def records_file(self) -> str | None:
        """The file its records are written to (its descriptor's)."""
        return self.kind.records_file

    @abstractmethod
    def _summarise(self) -> S_co:
        """The step's summary, computed."""

    def summary(self) -> S_co:
        """The step's summary: the top-level entries it adds to ``summary.json``."""
        kept = self.__dict__.get("_summary")
        if kept is None:
            kept = self._summarise()
            self.__dict__["_summary"] = kept
        return cast(S_co, kept)

    def keep_summary(self, summary: BaseModel) -> None:
        """Take ``summary`` (the step's Summary model) as the step's summary instead of
        computing it (statistics read back from an earlier output)."""
        if not isinstance(summary, self.kind.summary):
            raise TypeError(f"{type(summary).__name__} is not the {self.kind.name} step's "
                            "summary")
        self.__dict__["_summary"] = summary

    def records_jsonl(self) -> str:
        """The records, one JSON object a line."""
        return "".join(r.model_dump_json() + "\n" for r in self.records)

    def stop_detail(self) -> str | None:
        """Why its engine stopped sending calls (an authentication failure), if it did."""
        return None

    def dry_run_text(self) -> str | None:
        """On a dry run, what it would have asked and cost (None: nothing to say)."""
        return None

    def failures(self) -> Failures:
        """Its failed calls, told in lines."""
        return Failures()


class Kept(StepResult[R, S]):
    """A step's result carried over unchanged from an earlier output (re-judging keeps
    every step it does not redo): its records and its summary as the output has them."""

    #: not run now: its failures were told when it ran, and are not this run's.
    carried_over: ClassVar[bool] = True

    def __init__(self, kind: StepKind[R, S], records: Sequence[R], summary: S) -> None:
        # the descriptor of the step carried over: this one result's, not its class's
        self.__dict__["kind"] = kind
        self.records = list(records)
        self.keep_summary(summary)

    def _summarise(self) -> S:
        raise AssertionError("a result carried over keeps its summary")  # pragma: no cover


#: A step's result whatever its models: what a list of several steps' results holds.
AnyResult = StepResult[BaseModel, BaseModel]


class Step(Protocol[I_contra]):
    """One step of a pipeline: a function from the pipeline's inputs to a
    :class:`StepResult`, and the descriptor of what it makes."""

    @property
    def kind(self) -> StepKind[Any, Any]:
        """The descriptor of the step's result."""
        ...

    def run(self, inputs: I_contra) -> AnyResult:
        """Do the step's work on ``inputs``."""
        ...


def closing_counts(valid: int, unscored: int, error: int, skipped: int,
                   too_long: int = 0) -> str:
    """The counts every judging step's closing line gives, in one wording."""
    why = f" ({too_long} too long for the judge's context window)" if too_long else ""
    return f"{valid} valid, {unscored} unscored, {error} error, {skipped} skipped{why}"


def cached_text(n: int | None) -> str:
    """``; N verdicts from the cache`` (nothing when not known)."""
    if n is None:
        return ""
    return f"; {n} verdict{'s' if n != 1 else ''} from the cache"


__all__ = ["AnyResult", "Failures", "Kept", "ReportPart", "Step", "StepKind", "StepResult",
           "Switch", "cached_text", "closing_counts"]
