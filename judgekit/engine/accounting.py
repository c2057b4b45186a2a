"""What the engine did, counted as it happened: ``summary["judge"]``.

Every count is of requests the server received (``calls``), not of items: an item asked
again after an invalid answer, a request refused for its structured-output mode or its
length, and a request retried after a timeout each count once. ``failed_calls`` splits the
calls that got no answer by cause. Tokens are the server's own figures.

Example:
    >>> r = JudgeRun(model="openai:smollm2")
    >>> r.count_failure("rejected_mode"); r.calls += 1
    >>> r.calls, r.failed_calls
    (1, {'rejected_mode': 1})
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from judgekit.engine.types import ItemOutcome, NotSent, SkipReason
from judgekit.engine.urls import RedactedURL

FailureCause = Literal["rejected_mode", "context_exceeded", "timeout", "rate_limited",
                       "server_error", "connection", "refused", "bad_answer"]


class ModeStep(BaseModel):
    """A structured-output mode the server refused, and what it said."""

    mode: str
    reason: str


class StructuredOutput(BaseModel):
    """How verdicts were asked: the mode used and the modes refused on the way."""

    model_config = ConfigDict(extra="forbid")

    mode: str = Field(description="json_schema, json_object, prompt, or tool (Anthropic).")
    source: str = Field("auto", description="auto (found by asking), cache (a previous "
                                            "run found it), provider, or set by the caller.")
    confirmed: bool = Field(False, description="The server answered in this mode.")
    stepped_down: list[ModeStep] = Field(default_factory=list)


class ContextBudget(BaseModel):
    """The judge model's window and how prompts were fitted to it."""

    model_config = ConfigDict(extra="forbid")

    window_tokens: int | None = None
    source: str | None = Field(None, description="Where the window is known from: set by "
                                                 "the caller, the server, the table of "
                                                 "hosted models, or its error message.")
    answer_tokens: int = Field(0, description="Tokens kept free for the answer (sent as "
                                              "max_tokens).")
    token_count: str = Field("estimate", description="How prompt tokens were counted: the "
                                                     "server's tokenizer or an estimate.")
    n_fitted: int = Field(0, description="Requests cut (whole hunks, condensed materials) "
                                         "to fit the window.")


class RetryReport(BaseModel):
    """How calls were retried: the time spent waiting between attempts, and the waits not
    taken as asked."""

    model_config = ConfigDict(extra="forbid")

    waited_s: float = Field(0.0, description="Seconds spent waiting between attempts.")
    retry_after_max_s: float = Field(30.0, description="The longest retry-after honoured; "
                                                       "a longer one is cut to this.")
    cut_to_bound: int = Field(0, description="Waits whose retry-after was over the bound "
                                             "and was cut to it.")
    cut_by_deadline: int = Field(0, description="Calls given up because the next wait would "
                                                "pass the call's deadline (its attempts "
                                                "times the timeout, plus the backoff "
                                                "between them) or the run's deadline.")
    largest_retry_after_s: float = Field(0.0, description="The longest retry-after a server "
                                                          "asked for.")


class JudgeRun(BaseModel):
    """``summary["judge"]``: the judge model, how it was asked, and what it cost."""

    model_config = ConfigDict(extra="forbid")

    model: str
    base_url: RedactedURL | None = None
    local: bool = False
    concurrency: int = 0
    concurrency_source: str | None = None
    timeout_s: float = 0.0
    structured_output: StructuredOutput | None = None
    context: ContextBudget = Field(default_factory=ContextBudget)
    calls: int = Field(0, description="Chat requests sent (what the server received).")
    answered: int = 0
    failed_calls: dict[str, int] = Field(default_factory=dict)
    input_tokens: int = Field(0, description="Input tokens neither read from nor written "
                                             "to the prompt cache.")
    output_tokens: int = 0
    cache_read_tokens: int = Field(0, description="Input tokens read from the prompt cache "
                                                  "(the server's count).")
    cache_write_tokens: int = Field(0, description="Input tokens written to the prompt "
                                                   "cache (the server's count).")
    prompt_cache: bool = Field(True, description="Prompts were laid out and marked for "
                                                 "the provider's prompt cache.")
    cost_usd: float = Field(0.0, description="What the calls cost, cache reads and writes "
                                             "at their own prices.")
    cost_without_cache_usd: float = Field(0.0, description="What the same tokens would "
                                          "have cost without the prompt cache.")
    fields_truncated: int = Field(
        0, description="Text fields of verdicts cut to their head (over the engine's "
                       "MAX_FIELD_CHARS characters) before they were stored.")
    retries: RetryReport = Field(default_factory=RetryReport)
    skipped: dict[str, int] = Field(default_factory=dict,
                                    description="Items not sent, by reason "
                                                "(too_long_for_context, deadline).")
    from_cache: int = Field(0, description="Items answered by the verdict cache with no "
                                           "call: what this model on this server answered "
                                           "in an earlier run (the cache keys verdicts by "
                                           "provider, model and server).")
    from_cache_unscored: int = Field(0, description="Of those, items an earlier run left "
                                                    "unscored, served as they are (only "
                                                    "when unscored items are not asked "
                                                    "again).")

    def count_cached(self, outcome: ItemOutcome) -> None:
        """An item answered by the verdict cache."""
        self.from_cache += 1
        self.from_cache_unscored += outcome.state == "unscored"

    def count_failure(self, cause: FailureCause) -> None:
        self.failed_calls[cause] = self.failed_calls.get(cause, 0) + 1

    def count_skip(self, reason: NotSent) -> None:
        self.skipped[reason.value] = self.skipped.get(reason.value, 0) + 1


__all__ = ["ContextBudget", "FailureCause", "JudgeRun", "ModeStep", "RetryReport", "SkipReason",
           "StructuredOutput"]
