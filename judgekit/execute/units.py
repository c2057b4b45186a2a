"""The unit of work of a run: one (task, arm, attempt), executed the same way everywhere.

Both executors (local threads, Ray tasks) call :class:`UnitRunner` on a :class:`Unit`, so
results never depend on the executor. A runner resolves each task's fix commit once per
process through its node's mirror cache, prepares the workspace where it runs, and returns
the result with its secret values redacted; it never writes the run file (the driver alone
does).

Example:
    >>> from judgekit.ingest.suites import SuiteTask
    >>> t = SuiteTask(id="t1", repo="a/b", commit="abcdef1", description="d", test_command="x")
    >>> Unit(t, "baseline", 2).key
    ('t1', 'baseline', 2)
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace

from judgekit.errors import RunnerError
from judgekit.execute.agent import AgentCommand
from judgekit.execute.attempt import AttemptSettings, run_attempt
from judgekit.execute.context import ContextSource
from judgekit.execute.process import Cancelled
from judgekit.execute.secrets import redact_result
from judgekit.execute.workspace import FixCommit, MirrorCache
from judgekit.ingest.models import RunResult
from judgekit.ingest.suites import SuiteTask


@dataclass(frozen=True)
class Unit:
    """One attempt of one arm on one task."""

    task: SuiteTask
    arm: str
    attempt: int

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.task.id, self.arm, self.attempt)


_fixes: dict[tuple[str, str, str], tuple[FixCommit | None, str | None]] = {}
_key_locks: dict[tuple[str, str, str], threading.Lock] = {}
_guard = threading.Lock()


def resolve_fix(cache: MirrorCache, task: SuiteTask) -> tuple[FixCommit | None, str | None]:
    """The task's fix commit (or why it cannot be had), resolved once per process.

    A cancelled clone is not remembered: a later run tries again.
    """
    source = task.repo_source()
    key = (str(cache.root), source.url, task.commit)
    with _guard:
        lock = _key_locks.setdefault(key, threading.Lock())
    with lock:
        if key not in _fixes:
            try:
                _fixes[key] = (cache.resolve(source, task.commit), None)
            except RunnerError as exc:
                _fixes[key] = (None, str(exc))
        return _fixes[key]


@dataclass
class UnitRunner:
    """Everything needed to run any unit of a plan; picklable, so it can travel to workers."""

    settings: AttemptSettings
    agents: dict[str, AgentCommand]
    context_arms: tuple[str, ...] = ()
    context: ContextSource | None = None
    mirror_dir: str | None = None

    def __call__(self, unit: Unit, cancel: threading.Event | None = None) -> RunResult:
        """Run ``unit``; a harness problem becomes a result, cancellation raises."""
        cache = MirrorCache(self.mirror_dir, cancel=cancel)
        settings = replace(self.settings, cancel=cancel,
                           agent=self.agents.get(unit.arm) or self.agents["*"],
                           context=self.context if unit.arm in self.context_arms else None,
                           hidden=(*self.settings.hidden, str(cache.root)))
        try:
            fix, error = resolve_fix(cache, unit.task)
            result = run_attempt(unit.task, fix, unit.arm, unit.attempt, settings,
                                 resolve_error=error)
        except Cancelled:
            raise
        except Exception as exc:  # noqa: BLE001 - one broken attempt must not stop the run
            result = RunResult(task=unit.task.to_task(), arm=unit.arm, attempt=unit.attempt,
                               run_id=settings.run_id, model=settings.model,
                               sandbox=settings.sandbox.name, harness_status="runner_error",
                               harness_error=f"{type(exc).__name__}: {exc}")
        return redact_result(result, settings.redactor())
