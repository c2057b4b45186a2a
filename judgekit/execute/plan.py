"""The plan of a suite run, and carrying it out: every task x arm x attempt, on an
executor, written to a run file.

The run file is ``.jsonl`` (one result a line) or ``.json`` (one run document), chosen by
its name (:class:`~judgekit.execute.results.RunWriter`). With ``resume`` the units already
in it are skipped. Setting ``cancel`` (the CLI does on SIGINT/SIGTERM) stops queued units,
ends running ones and keeps every finished result.

Example:
    >>> plan = RunPlan(agents={"baseline": AgentCommand("my-agent {prompt_file}")},
    ...                arms=["baseline"], attempts=1)
    >>> suite = load_suite("suites/flask.yaml")             # doctest: +SKIP
    >>> summary = run_suite(suite, plan, "runs/flask.jsonl")  # doctest: +SKIP
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from judgekit.errors import ConfigError
from judgekit.execute.agent import AgentCommand
from judgekit.execute.attempt import AttemptSettings
from judgekit.execute.context import ContextSource, get_context_source
from judgekit.execute.environment import CommandEnv
from judgekit.execute.executors import Executor, get_executor
from judgekit.execute.outcome import all_failed_notice
from judgekit.execute.results import RunWriter
from judgekit.execute.sandbox import Limits, NoSandbox, Sandbox, closed_files
from judgekit.execute.secrets import redact_result, redactor_for, total_redactions
from judgekit.execute.units import Unit, UnitRunner
from judgekit.ingest.models import RunResult
from judgekit.ingest.suites import Suite, SuiteTask


def task_commands(tasks: list[SuiteTask]) -> list[tuple[str, str]]:
    """``(whose, command)`` of each task's setup and test commands."""
    return [(f"the {kind} command of task {t.id}", command) for t in tasks
            for kind, command in (("setup", t.setup_command), ("test", t.test_command))
            if command]


@dataclass
class RunPlan:
    """How to run a suite.

    ``agents`` maps each arm to its command; the key ``"*"`` is the default for arms not
    listed. Arms in ``context_arms`` get code retrieved by ``context_source`` (``index``,
    ``grep`` or a :class:`~judgekit.execute.context.ContextSource`) in their prompt.
    ``sandbox`` is the sandbox every command runs in (no sandbox unless given; the CLI uses
    ``bwrap`` unless told otherwise). ``env`` holds the variables given to the agent and to setup and test
    commands (secret-looking ones are redacted from the results); ``agent_binds`` are
    ``(source, destination)`` paths the agent sees read-only; ``agent_home`` is copied into
    the private HOME of each attempt before the agent starts.
    """

    agents: dict[str, AgentCommand]
    arms: list[str]
    attempts: int = 1
    jobs: int = 1
    resume: bool = False
    agent_timeout_s: float | None = 1800.0
    model: str | None = None
    task_ids: list[str] | None = None
    mirror_dir: str | None = None
    context_arms: tuple[str, ...] = ("context",)
    context_source: str | ContextSource = "index"
    context_max_tokens: int = 4000
    index_dir: str | None = None
    tmp_dir: str | None = None
    depth: int | None = None
    keep_workspaces: bool = False
    run_id: str | None = None
    metadata: dict[str, object] = field(default_factory=dict)
    sandbox: Sandbox = field(default_factory=NoSandbox)
    limits: Limits = field(default_factory=Limits)
    agent_network: bool = False
    executor: str = "local"
    ray_address: str | None = None
    cpus_per_attempt: float = 1.0
    env: CommandEnv = field(default_factory=CommandEnv)
    agent_binds: tuple[tuple[str, str], ...] = ()
    agent_home: str | None = None

    def agent_for(self, arm: str) -> AgentCommand:
        agent = self.agents.get(arm) or self.agents.get("*")
        if agent is None:
            raise ConfigError(f"no agent command for arm {arm!r}: give {{option:agent}} or "
                              "{option:agent_for}")
        return agent


@dataclass(frozen=True)
class RunOutcome:
    """What a run did.

    ``written``: results written now; ``skipped``: already present; ``harness_failures``:
    written results whose harness failed; ``cancelled``: stopped by a signal before the
    end; ``not_run``: units neither finished nor skipped; ``failure``: one line when every
    result written failed for a harness reason.
    """

    written: int
    skipped: int
    harness_failures: int
    run_id: str
    cancelled: bool = False
    not_run: int = 0
    failure: str | None = None
    sandbox: str = "none"
    executor: str = "local"
    redactions: dict[str, int] = field(default_factory=dict)
    """Secret values replaced in the results written now, per variable name."""


def _validate(plan: RunPlan) -> None:
    if not plan.arms:
        raise ConfigError("no arms given")
    if len(set(plan.arms)) != len(plan.arms):
        raise ConfigError("an arm is listed twice")
    if plan.attempts < 1 or plan.jobs < 1:
        raise ConfigError("{option:attempts} and {option:jobs} must be at least 1")
    unknown = [a for a in plan.agents if a != "*" and a not in plan.arms]
    if unknown:
        raise ConfigError("{option:agent_for} names arm(s) not in {option:arms}: "
                          + ", ".join(unknown))
    for arm in plan.arms:
        plan.agent_for(arm)
    if plan.tmp_dir is not None and not Path(plan.tmp_dir).is_dir():
        raise ConfigError(f"{{option:tmp_dir}} {plan.tmp_dir} is not an existing directory")
    if plan.agent_home is not None and not Path(plan.agent_home).is_dir():
        raise ConfigError(f"the agent's home {plan.agent_home} is not an existing directory")
    for source, dest in plan.agent_binds:
        _check_bind(source, dest, sandboxed=plan.sandbox.name != "none")
    agents = [(f"the agent of arm {arm}", plan.agent_for(arm).template) for arm in plan.arms]
    closed = closed_files(plan.sandbox, agents)
    if closed:
        raise ConfigError(closed)


def _check_commands(suite: Suite, plan: RunPlan) -> None:
    """The files the tasks' setup and test commands name can be read in the sandbox."""
    closed = closed_files(plan.sandbox, task_commands(suite.select(plan.task_ids)))
    if closed:
        raise ConfigError(closed)


def _check_bind(source: str, dest: str, *, sandboxed: bool) -> None:
    """A bind the sandbox can make: the source exists, the destination can be mounted."""
    if not Path(source).exists():
        raise ConfigError(f"the agent bind {source} does not exist")
    if not sandboxed:
        if Path(source).resolve() != Path(dest).resolve():
            raise ConfigError(f"binding {source} at {dest} needs a sandbox: without one the "
                              "agent sees the host as it is")
        return
    from judgekit.execute.hostview import home_dirs

    target = Path(dest)
    roomy = (Path("/tmp"), *home_dirs())  # empty file systems in the sandbox
    if not target.exists() and not any(r == target or r in target.parents for r in roomy):
        raise ConfigError(f"the agent bind's destination {dest} must exist on the host or lie "
                          "under /tmp or the home directory: elsewhere the sandbox's "
                          "read-only file system cannot make a place for it")


def plan_units(suite: Suite, plan: RunPlan) -> list[Unit]:
    """Every unit of the plan, in a stable order (task, attempt, arm)."""
    return [Unit(t, arm, n) for t in suite.select(plan.task_ids) for n in range(plan.attempts)
            for arm in plan.arms]


def unit_runner(plan: RunPlan, run_id: str) -> UnitRunner:
    """The picklable runner every executor calls on each unit."""
    source: ContextSource | None = None
    if any(a in plan.context_arms for a in plan.arms):
        source = (get_context_source(plan.context_source, index_dir=plan.index_dir)
                  if isinstance(plan.context_source, str) else plan.context_source)
    settings = AttemptSettings(
        agent=AgentCommand("true"), agent_timeout_s=plan.agent_timeout_s, model=plan.model,
        run_id=run_id, tmp_dir=plan.tmp_dir, depth=plan.depth,
        keep_workspace=plan.keep_workspaces, context_max_tokens=plan.context_max_tokens,
        metadata=dict(plan.metadata), sandbox=plan.sandbox, limits=plan.limits,
        agent_network=plan.agent_network, env=plan.env, agent_binds=plan.agent_binds,
        agent_home=plan.agent_home)
    agents = {arm: plan.agent_for(arm) for arm in plan.arms}
    return UnitRunner(settings=settings, agents=agents, context_arms=tuple(plan.context_arms),
                      context=source, mirror_dir=plan.mirror_dir)


def run_suite(
    suite: Suite,
    plan: RunPlan,
    out: str | Path,
    *,
    progress: Callable[[RunResult], None] | None = None,
    cancel: threading.Event | None = None,
    executor: Executor | None = None,
    notice: Callable[[str], None] | None = None,
) -> RunOutcome:
    """Run ``plan`` over ``suite``, writing each result to ``out`` as soon as it ends."""
    _validate(plan)
    _check_commands(suite, plan)
    units = plan_units(suite, plan)
    run_id = plan.run_id or uuid.uuid4().hex[:12]
    writer = RunWriter(out, resume=plan.resume, run_id=run_id,
                       metadata={**plan.metadata, "sandbox": plan.sandbox.name})
    if writer.repaired and notice:
        notice(f"cut a partial last line from {out}")
    done = writer.done()
    todo = [u for u in units if u.key not in done]
    runner = unit_runner(plan, run_id)
    executor = executor or get_executor(plan.executor, jobs=plan.jobs,
                                        address=plan.ray_address,
                                        cpus_per_attempt=plan.cpus_per_attempt)
    cancel = cancel or threading.Event()
    written: list[RunResult] = []
    try:
        for result in executor.run(todo, runner, cancel):
            result = redact_result(result, redactor_for(plan.env))  # this host's keys too
            writer.add(result)
            written.append(result)
            if progress:
                progress(result)
    finally:
        writer.close()
    skipped = len(units) - len(todo)
    return RunOutcome(
        written=len(written), skipped=skipped,
        harness_failures=sum(r.harness_failed for r in written), run_id=run_id,
        cancelled=cancel.is_set(), not_run=len(todo) - len(written),
        failure=all_failed_notice(written), sandbox=plan.sandbox.name,
        executor=executor.name, redactions=total_redactions(written))
