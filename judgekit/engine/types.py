"""The data judgekit's engine takes in and gives back.

A caller builds :class:`JudgeRequest` objects, hands them to
:class:`judgekit.engine.Engine`, and gets one :class:`ItemOutcome` per request, in order.

Example:
    >>> req = JudgeRequest(
    ...     key="pairwise/flask-001/a|b/order1",
    ...     system="You compare two patches.",
    ...     prompt="Patch A: ...\\nPatch B: ...",
    ...     schema={"type": "object", "required": ["winner"],
    ...             "properties": {"winner": {"enum": ["A", "B", "draw"]}}},
    ... )
    >>> req.name
    'submit_verdict'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field

#: The three states every item ends in. ``unscored`` and ``error`` never count as a score.
#: Declared here once; pairwise and audit records use this very type.
State = Literal["valid", "unscored", "error"]
STATES: tuple[State, ...] = ("valid", "unscored", "error")


@dataclass(frozen=True)
class JudgeRequest:
    """One question to the judge model.

    Attributes:
        key: unique id of the item within a run (reported back in the outcome).
        system: static prefix (instructions, rubric); sent first and marked cacheable.
        prompt: the per-item content.
        shared: how many characters at the start of ``prompt`` are the same in every
            request of its group (the two orders of a pair, the samples of an audit item:
            task, reference, code context, materials); the rest varies (the solutions in
            their order, the sample's note). ``system`` plus that part is the prompt's
            stable prefix, marked cacheable and sent first of its group (see
            :mod:`judgekit.engine.prompt_cache`); 0: only ``system`` is shared.
        schema: JSON Schema the verdict object must satisfy.
        name: name of the tool / function / response format the verdict is asked through.
        check: semantic checks beyond the schema; a non-empty list of problems makes the
            engine re-ask in the same conversation, bounded by ``max_tries``, then the item
            is ``unscored``.
        soft_check: like ``check`` but re-asked at most once; if the problems persist the
            verdict is accepted and the problems are kept in ``soft_failures``.
        repeat: 0 for the question itself; ``k`` asks the very same question again as its
            ``k``-th repetition (its own cache entry), to measure how stable answers are.
        fit: the caller's rule for a smaller version of this request: given the most
            characters ``system`` and ``prompt`` may take together, a request that keeps
            within them (diffs cut by whole hunks, materials condensed, each cut marked),
            or ``None`` when no useful version is that small. The engine uses it to fit
            the judge model's context window; without it, an over-long request is skipped.
        decoding_schema: a stricter schema for servers that constrain decoding with the
            schema they are sent (JSON mode of llama.cpp, llama-cpp-python and vLLM's
            guided JSON), where it can spell out rules ``check`` enforces (``anyOf``
            branches, ``const`` values, closed lists, bounded strings), so that even a
            small model can only write a verdict that passes them; ``None``: ``schema``.
            Answers are validated against ``schema`` and ``check`` all the same.
    """

    key: str
    system: str
    prompt: str
    schema: dict[str, Any]
    name: str = "submit_verdict"
    check: Callable[[dict[str, Any]], list[str]] | None = None
    soft_check: Callable[[dict[str, Any]], list[str]] | None = None
    repeat: int = 0
    fit: Callable[[int], JudgeRequest | None] | None = None
    shared: int = 0
    decoding_schema: dict[str, Any] | None = None

    @property
    def prefix(self) -> str:
        """The part of ``prompt`` shared by every request of its group."""
        return self.prompt[:max(0, self.shared)]


class Usage(BaseModel):
    """Tokens of one or more calls.

    ``input_tokens`` counts only uncached input; cache reads and writes are counted apart
    because they are priced apart.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def uncached(self) -> Usage:
        """The same tokens as if no prompt cache had been used: every input token at the
        input price."""
        return Usage(input_tokens=self.input_tokens + self.cache_read_tokens
                     + self.cache_write_tokens, output_tokens=self.output_tokens)

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
        )


#: reason of an item not asked because the cost cap would not admit its call.
MAX_COST_REASON = "max cost reached"


class NotSent(str, Enum):
    """Why the engine sent no call for an item, or no further call.

    A value is what files store where they name the reason (``"too_long_for_context"`` in
    a record's ``skipped``, the keys of ``summary["judge"]["skipped"]``).
    """

    #: the cost cap would not admit the call.
    COST_CAP = "cost_cap"
    #: even cut by the caller's rule, the request would not fit the judge model's window.
    TOO_LONG_FOR_CONTEXT = "too_long_for_context"
    #: an authentication or permission failure stopped every later call of the engine.
    STOPPED = "stopped"
    #: a dry run: nothing is sent.
    DRY_RUN = "dry_run"
    #: the run's deadline had passed.
    DEADLINE = "deadline"


#: The reasons records store in their ``skipped`` field (the cost cap has its own field, ``skipped_cost``).
SkipReason = Literal["too_long_for_context"]


class Skip(BaseModel):
    """Why an item's call was not sent: the reason, what it says, and how far the item got.

    Example:
        >>> Skip(reason=NotSent.COST_CAP, answers=2).describe()
        'max cost reached before a valid verdict (2 answers)'
        >>> Skip(reason=NotSent.STOPPED, detail="authentication failed (HTTP 401)").describe()
        'not sent: authentication failed (HTTP 401)'
    """

    model_config = ConfigDict(frozen=True)

    reason: NotSent
    #: the particulars: the failure that stopped the engine, the sizes that did not fit.
    detail: str = ""
    #: model answers the item had got before (0: it was not asked at all).
    answers: int = 0

    def describe(self) -> str:
        """The outcome's ``reason`` text for this skip."""
        if self.reason is NotSent.COST_CAP:
            return (MAX_COST_REASON if self.answers == 0 else
                    f"{MAX_COST_REASON} before a valid verdict ({self.answers} answers)")
        if self.reason is NotSent.STOPPED:
            return f"not sent: {self.detail}"
        if self.reason is NotSent.DRY_RUN:
            return "dry run"
        if self.reason is NotSent.DEADLINE:
            return "not sent: the run's deadline had passed"
        return self.detail


class Failed(str, Enum):
    """Why an item that was sent has no verdict: the ``error`` or ``unscored`` outcome's
    kind (its ``reason`` says the particulars)."""

    #: every answer, re-asks included, failed the schema or the checks (``unscored``).
    NO_VALID_VERDICT = "no_valid_verdict"
    #: the provider refused the request (authentication, permission, a bad request).
    REFUSED = "refused"
    #: transient failures (429, 5xx, timeouts, garbled answers) outlasted the retries.
    UNAVAILABLE = "unavailable"
    #: the server accepted none of the structured-output modes.
    NO_STRUCTURED_OUTPUT = "no_structured_output"
    #: the request still did not fit the judge model's window after cutting it again.
    TOO_LONG = "too_long"
    #: a batch ended without an answer for the item.
    BATCH_FAILED = "batch_failed"
    #: an unexpected exception (a check that raised, an answer of an odd shape).
    UNEXPECTED = "unexpected"


class ItemOutcome(BaseModel):
    """What became of one request. Exactly one per request.

    Attributes:
        state: ``valid`` (``verdict`` set), ``unscored`` (no usable verdict; ``reason`` says
            why) or ``error`` (the provider refused, e.g. authentication; ``reason``).
        tries: model answers asked for this item (1 + re-asks); for a cached outcome, the
            count of the run that produced it.
        cached: served from the verdict cache without any call.
        usage, cost_usd: spent by *this* run on the item (zero when cached).
        retries: transient failures (429, 5xx, timeouts) retried on the way.
        not_sent: why no call (or no further call) was sent for the item, typed; ``reason``
            says it in words.
        fitted: the request was cut to fit the judge model's window.
        failure: why an item that was sent has no verdict, typed; ``reason`` says it in
            words.
    """

    key: str
    state: State
    verdict: dict[str, Any] | None = None
    reason: str | None = None
    tries: int = 0
    cached: bool = False
    soft_failures: list[str] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    cost_usd: float = 0.0
    model: str = ""
    retries: int = 0
    not_sent: Skip | None = None
    fitted: bool = False
    failure: Failed | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def skipped_cost(self) -> bool:
        """Not asked at all, because the cost cap would not admit its call (``state`` is
        ``unscored``)."""
        skip = self.not_sent
        return skip is not None and skip.reason is NotSent.COST_CAP and skip.answers == 0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def skipped(self) -> SkipReason | None:
        """Not asked at all for another reason, as records store it: ``too_long_for_context``."""
        skip = self.not_sent
        if skip is not None and skip.reason is NotSent.TOO_LONG_FOR_CONTEXT:
            return "too_long_for_context"
        return None


def stop_of(outcomes: Iterable[ItemOutcome]) -> Skip | None:
    """Why the engine stopped sending calls (an authentication or permission failure), as
    the first item it did not send for that says; ``None`` when it did not stop.

    Example:
        >>> skip = Skip(reason=NotSent.STOPPED, detail="permission denied (HTTP 403)")
        >>> stop_of([ItemOutcome(key="a", state="valid"),
        ...          ItemOutcome(key="b", state="error", not_sent=skip)]).detail
        'permission denied (HTTP 403)'
    """
    return next((o.not_sent for o in outcomes
                 if o.not_sent is not None and o.not_sent.reason is NotSent.STOPPED), None)


class Estimate(BaseModel):
    """What a run would cost: calls to make, items already cached, estimated dollars
    (with prompt caching where it is on, and without it)."""

    calls: int
    cached: int
    est_cost_usd: float
    est_cost_without_cache_usd: float | None = None

    def __str__(self) -> str:
        text = f"{self.calls} calls, ~${self.est_cost_usd:.2f} estimated"
        plain = self.est_cost_without_cache_usd
        if plain is not None and round(plain, 2) != round(self.est_cost_usd, 2):
            text += f" (~${plain:.2f} without prompt caching)"
        return text


#: ``on_outcome(i, outcome)``: told of request ``i``'s outcome as soon as it is known.
OnOutcome = Callable[[int, ItemOutcome], object]
