"""Check that a suite's tasks can tell a fix from no fix, before any agent runs.

For each task: the fix commit and its parent resolve, the parent checks out, the setup
command succeeds, and the test command (with the fix's test files added) runs at least
one test, fails at the parent, and passes once the whole fix is applied. Outcomes are
judged with :func:`judgekit.scoring.outcomes.classify`, so zero executed tests never
count as a pass.

Example:
    >>> checks = verify_suite(load_suite("suites/flask.yaml"))  # doctest: +SKIP
    >>> [c.task_id for c in checks if not c.ok]                  # doctest: +SKIP
    []
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, RootModel

from judgekit.errors import ConfigError, RunnerError
from judgekit.execute.agent import AgentCommand
from judgekit.execute.attempt import AttemptSettings, prepare, run_tests
from judgekit.execute.plan import task_commands
from judgekit.execute.sandbox import NoSandbox, Sandbox, closed_files
from judgekit.ingest.suites import Suite, SuiteTask
from judgekit.execute.environment import CommandEnv
from judgekit.execute.workspace import FixCommit, MirrorCache
from judgekit.scoring.outcomes import classify


class TaskCheck(BaseModel):
    """The verdict on one task; ``problems`` says why it is not ok. Verifying a suite gives
    a list of them (:data:`TaskChecks`), which the audit reads as evidence of fixes that
    pass their tests."""

    model_config = ConfigDict(extra="forbid")

    task_id: str
    ok: bool
    problems: list[str] = Field(default_factory=list)
    at_parent: str | None = None
    with_fix: str | None = None
    tests_at_parent: int | None = None
    tests_with_fix: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump()

    def fix_passes(self) -> str | None:
        """How this check records the fix passing its tests, or ``None`` when it did not."""
        if self.with_fix != "passed":
            return None
        ran = f", {self.tests_with_fix} tests ran" if self.tests_with_fix is not None else ""
        return f"{self.task_id}: the fix passes its tests (suite verify{ran})"


#: what verifying a suite writes as JSON: one check per task.
TaskChecks = RootModel[list[TaskCheck]]


def verify_task(task: SuiteTask, cache: MirrorCache, *, tmp_dir: str | None = None,
                sandbox: Sandbox | None = None, cancel: threading.Event | None = None,
                env: CommandEnv | None = None) -> TaskCheck:
    """Verify one task; never raises for a broken task, reports it instead.

    Setup and tests run in ``sandbox`` (none by default), the tests without network, with
    the variables ``env.test``; secret values among them never reach ``problems``.
    When ``cancel`` is set, the running command is ended and
    :class:`~judgekit.execute.process.Cancelled` is raised.
    """
    check = TaskCheck(task_id=task.id, ok=False)
    problems = check.problems
    try:
        fix = cache.resolve(task.repo_source(), task.commit)
    except RunnerError as exc:
        problems.append(f"checkout: {exc}")
        return check
    source_files, _ = fix.split_files(task.test_files)
    if not source_files:
        problems.append("the fix commit changes only test files: there is nothing to fix")
    settings = AttemptSettings(agent=AgentCommand("true"), tmp_dir=tmp_dir,
                               sandbox=sandbox or NoSandbox(), hidden=(str(cache.root),),
                               cancel=cancel, env=env or CommandEnv())
    check = _verify(task, fix, settings, check)
    redactor = settings.redactor()
    check.problems[:] = [redactor.text(p) for p in check.problems]
    return check


def _verify(task: SuiteTask, fix: FixCommit, settings: AttemptSettings,
            check: TaskCheck) -> TaskCheck:
    problems = check.problems
    try:
        ws = prepare(task, fix, settings)
    except RunnerError as exc:
        problems.append(f"setup: {exc}")
        return check
    try:
        before = classify(run_tests(task, ws, fix, settings), test_command=task.test_command)
        check.at_parent, check.tests_at_parent = before.status, before.tests_run
        if before.status == "passed":
            problems.append(f"the tests pass at the parent ({before.reason}): "
                            "they cannot detect the bug")
        elif before.status == "vacuous" or before.tests_run == 0:
            problems.append(f"the test command runs zero tests at the parent ({before.reason})")
        elif before.status != "failed":
            problems.append(f"at the parent the test run is {before.status}: {before.reason}")
        elif not before.tests_run:
            problems.append("at the parent the test command failed without a test summary "
                            f"({before.reason}): no sign that any test ran")
        after = classify(run_tests(task, ws, fix, settings, with_fix=True),
                         test_command=task.test_command)
        check.with_fix, check.tests_with_fix = after.status, after.tests_run
        if after.status == "vacuous" or after.tests_run == 0:
            problems.append("the test command runs zero tests with the fix applied "
                            f"({after.reason})")
        elif after.status != "passed":
            problems.append(f"with the fix applied the test run is {after.status}: "
                            f"{after.reason}")
    except RunnerError as exc:
        problems.append(str(exc))
    finally:
        ws.cleanup()
    check.ok = not problems
    return check


def verify_suite(
    suite: Suite,
    *,
    task_ids: list[str] | None = None,
    mirror_dir: str | None = None,
    jobs: int = 1,
    tmp_dir: str | None = None,
    progress: Callable[[TaskCheck], None] | None = None,
    sandbox: Sandbox | None = None,
    cancel: threading.Event | None = None,
    env: CommandEnv | None = None,
) -> list[TaskCheck]:
    """Verify the selected tasks of ``suite`` (``jobs`` at a time), in suite order.

    Setting ``cancel`` ends the running commands; the call then raises
    :class:`~judgekit.execute.process.Cancelled`. A file a setup or test command names
    that the sandbox's unprivileged user could not read is a :class:`ConfigError` before
    anything runs.
    """
    tasks = suite.select(task_ids)
    closed = closed_files(sandbox or NoSandbox(), task_commands(tasks))
    if closed:
        raise ConfigError(closed)
    cache = MirrorCache(mirror_dir, cancel=cancel)

    def one(task: SuiteTask) -> TaskCheck:
        check = verify_task(task, cache, tmp_dir=tmp_dir, sandbox=sandbox, cancel=cancel,
                            env=env)
        if progress:
            progress(check)
        return check

    with ThreadPoolExecutor(max_workers=max(jobs, 1)) as pool:
        return list(pool.map(one, tasks))
