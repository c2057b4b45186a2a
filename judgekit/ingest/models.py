"""The judgekit run format: one evaluation result per agent attempt.

A run file is either ``.json`` (a :class:`RunFile` object, or a bare list of results) or
``.jsonl`` (one :class:`RunResult` a line). These models are the single source of truth
for the format; ``judgekit schema run`` prints their JSON Schema.

Example:
    >>> r = RunResult(task=Task(id="flask-001"), arm="baseline", agent_diff="")
    >>> r.task_id, r.attempt
    ('flask-001', 0)
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal, NamedTuple, Protocol

from pydantic import BaseModel, ConfigDict, Field

from judgekit.ingest.transcripts.model import Transcript

TestStatus = Literal["passed", "failed", "vacuous", "timeout", "error", "unknown"]
"""Honest outcome of a result's test run, decided from evidence.

``vacuous`` means the test output (or a structured count) shows that zero tests executed,
whatever the exit code (pytest's exit 5, unittest's ``NO TESTS RAN``); it never counts as passed
and stays in paired comparisons as a non-pass. ``unknown`` means nothing can verify the outcome,
e.g. a pass the harness claims with no test output kept. ``error`` is reserved for the harness:
runs it marked as failed before the agent could be judged (checkout or set-up failed, the agent
never started). A test command that fails without any test summary ran after the agent and is
``failed``.
"""

TEST_STATUSES: tuple[str, ...] = ("passed", "failed", "vacuous", "timeout", "error", "unknown")


class _Keyed(Protocol):
    """Anything that names one result: a result, its score, an audit record."""

    @property
    def task_id(self) -> str: ...
    @property
    def arm(self) -> str: ...
    @property
    def attempt(self) -> int: ...
    @property
    def run_id(self) -> str | None: ...


class ResultKey(NamedTuple):
    """The identity of one result, the same everywhere: its task, arm and attempt, and the
    run it came from when the run is named.

    ``str(key)`` is how files and messages name it.

    Example:
        >>> key = ResultKey("flask-001", "baseline", 2)
        >>> str(key), key.with_run()
        ('flask-001 / baseline / attempt 2', 'flask-001 / baseline / attempt 2')
        >>> ResultKey("t", "a", 0, "r1").with_run()
        't / a / attempt 0 (run r1)'
    """

    task_id: str
    arm: str
    attempt: int
    run_id: str | None = None

    def __str__(self) -> str:
        return f"{self.task_id} / {self.arm} / attempt {self.attempt}"

    def with_run(self) -> str:
        """``str(key)``, and the run it came from when it is named."""
        return f"{self} (run {self.run_id})" if self.run_id else str(self)

    @classmethod
    def of(cls, item: _Keyed) -> ResultKey:
        """The key of a result, of its score, or of any record that names one."""
        return cls(item.task_id, item.arm, item.attempt, item.run_id or None)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, allow_inf_nan=False)
    strict_input: ClassVar[bool] = True
    """Input files are validated strictly: no string is taken for a number, nor the reverse."""


class Task(_Model):
    """The benchmark item: a bug-fix commit whose parent the agent starts from."""

    id: str = Field(min_length=1, description="Task id, unique within a suite.")
    repo: str | None = Field(None, description="owner/name, git URL or local path.")
    commit: str | None = Field(None, description="The ground-truth fix commit.")
    description: str | None = Field(None, description="Bug description given to the agent.")
    test_command: str | None = None
    language: str | None = None
    difficulty: str | None = None
    tags: list[str] = Field(default_factory=list)
    test_files: list[str] | None = Field(
        None, description="Glob patterns of the fix's test files (the suite's rule); when "
                          "omitted, judgekit's default rule for test paths decides.")


class TestCounts(_Model):
    """Test counts, for producers that kept counts but not the raw output."""

    __test__ = False

    passed: int = Field(0, ge=0)
    failed: int = Field(0, ge=0)
    skipped: int = Field(0, ge=0)
    errors: int = Field(0, ge=0)
    total: int | None = Field(None, ge=0, description="Executed tests; derived when omitted.")


class TestResult(_Model):
    """What the task's test command did after the agent finished."""

    __test__ = False

    exit_code: int | None = None
    output: str | None = Field(None, description="Combined stdout and stderr.")
    timed_out: bool = False
    framework: str | None = Field(
        None, description="pytest, cargo, go, jest, vitest or unittest; detected when omitted."
    )
    counts: TestCounts | None = Field(None, description="Counts, when no output was kept.")


class Usage(_Model):
    """Tokens and cost the agent spent on the attempt."""

    input_tokens: int | None = Field(None, ge=0)
    output_tokens: int | None = Field(None, ge=0)
    cache_read_tokens: int | None = Field(None, ge=0)
    cache_write_tokens: int | None = Field(None, ge=0)
    cost_usd: float | None = Field(None, ge=0)


class Cut(_Model):
    """A text field stored cut to its head and tail (``RunResult.truncated``)."""

    bytes: int = Field(ge=0, description="The whole field's size in UTF-8 bytes.")
    kept: int = Field(ge=0, description="Bytes of it kept: its head and tail.")
    sha256: str | None = Field(
        None, description="SHA-256 of the whole field, when judgekit saw it whole "
                          "(a run's output and diffs); None when it was cut on reading.")


class RunResult(_Model):
    """One attempt of one arm on one task."""

    run_id: str | None = None
    task: Task
    arm: str = Field(min_length=1, description="The arm (approach) name.")
    attempt: int = Field(0, ge=0, lt=2**63)
    agent_diff: str | None = Field(None, description="Unified diff of the agent's change.")
    ground_truth_diff: str | None = Field(None, description="Unified diff of the fix commit.")
    agent_files: list[str] | None = Field(
        None, description="Files the agent changed, when no diff was kept."
    )
    ground_truth_files: list[str] | None = Field(
        None, description="Files the fix changed, when no diff was kept."
    )
    files_excluded: list[str] | None = Field(
        None, description="Paths the producer left out of agent_diff as agent-CLI or harness "
                          "bookkeeping (judgekit run lists what it strips here).")
    test: TestResult | None = None
    duration_s: float | None = Field(None, ge=0)
    usage: Usage | None = None
    model: str | None = Field(None, description="The model serving the agent.")
    transcript: str | None = None
    session: Transcript | None = Field(
        None, description="The agent's session file as judgekit read it (tool calls, tokens, "
                          "cost, exit status, final message); judgekit schema transcript.")
    harness_status: str = Field(
        "completed", description="'completed', or the harness's own failure label."
    )
    harness_error: str | None = None
    injected_files: list[str] | None = Field(
        None, description="Files injected as context (context arms)."
    )
    success: bool | None = Field(
        None, description="The benchmark's own verdict, for tasks that are not judged by a "
                          "test run (HAL, Inspect scores); a test run, when present, decides.")
    materials: dict[str, str] = Field(
        default_factory=dict,
        description="Named documents an audit shows the judge and searches for evidence: "
                    "gold program, grader output, evaluation log, dataset preview.")
    sandbox: str | None = Field(
        None, description="The isolation the agent and tests ran in ('bwrap', 'none').")
    timestamp: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    truncated: dict[str, Cut] | None = Field(
        None, description="Text fields stored cut to their head and tail, by field "
                          "('agent_diff', 'test.output', 'metadata.agent_stdout'): judgekit "
                          "run caps what it stores, and reading caps a result too long to read "
                          "whole.")

    @property
    def task_id(self) -> str:
        return self.task.id

    @property
    def harness_failed(self) -> bool:
        return self.harness_status != "completed"


class RunFile(_Model):
    """A ``.json`` run file: results plus optional run-level facts."""

    format: Literal["judgekit.run/v1"] = "judgekit.run/v1"
    run_id: str | None = None
    created_at: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    results: list[RunResult]
