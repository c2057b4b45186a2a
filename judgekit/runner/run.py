"""Run a suite: every task x arm x attempt, in parallel, appended to a ``.jsonl`` run file.

Example:
    >>> plan = RunPlan(agents={"baseline": AgentCommand("my-agent {prompt_file}")},
    ...                arms=["baseline"], attempts=1)
    >>> summary = run_suite(load_suite("suites/flask.yaml"), plan, "runs/flask.jsonl")  # doctest: +SKIP
"""

from __future__ import annotations

import sys
import threading
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path

from judgekit.errors import ConfigError, RunnerError
from judgekit.runner.agent import AgentCommand
from judgekit.runner.attempt import AttemptSettings, run_attempt
from judgekit.runner.context import ContextProvider, get_provider
from judgekit.runner.results import append_result, done_keys, repair_tail
from judgekit.runner.suite import Suite, SuiteTask
from judgekit.runner.workspace import FixCommit, MirrorCache
from judgekit.runs.models import RunResult


@dataclass
class RunPlan:
    """How to run a suite.

    ``agents`` maps each arm to its command; the key ``"*"`` is the default for arms not
    listed. Arms in ``context_arms`` get retrieved code in their prompt.
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
    context_provider: str = "index"
    context_max_tokens: int = 4000
    tmp_dir: str | None = None
    depth: int | None = None
    keep_workspaces: bool = False
    run_id: str | None = None
    metadata: dict[str, object] = field(default_factory=dict)

    def agent_for(self, arm: str) -> AgentCommand:
        agent = self.agents.get(arm) or self.agents.get("*")
        if agent is None:
            raise ConfigError(f"no agent command for arm {arm!r}: give --agent or --agent-for")
        return agent


@dataclass(frozen=True)
class RunSummary:
    """What a run did: results written now, and ones skipped because already present."""

    written: int
    skipped: int
    harness_failures: int
    run_id: str


def _validate(plan: RunPlan) -> None:
    if not plan.arms:
        raise ConfigError("no arms given")
    if len(set(plan.arms)) != len(plan.arms):
        raise ConfigError("an arm is listed twice")
    if plan.attempts < 1 or plan.jobs < 1:
        raise ConfigError("--attempts and --jobs must be at least 1")
    unknown = [a for a in plan.agents if a != "*" and a not in plan.arms]
    if unknown:
        raise ConfigError(f"--agent-for names arm(s) not in --arms: {', '.join(unknown)}")
    for arm in plan.arms:
        plan.agent_for(arm)


def run_suite(
    suite: Suite,
    plan: RunPlan,
    out: str | Path,
    *,
    progress: Callable[[RunResult], None] | None = None,
) -> RunSummary:
    """Run ``plan`` over ``suite``, appending each result to ``out`` as soon as it ends."""
    _validate(plan)
    tasks = suite.select(plan.task_ids)
    out = Path(out)
    if out.exists() and not plan.resume and out.stat().st_size > 0:
        raise ConfigError(f"{out} already has results: pass --resume to continue it, "
                          "or choose another --out")
    if plan.resume and repair_tail(out):
        print(f"judgekit: cut a partial last line from {out}", file=sys.stderr)
    done = done_keys(out) if plan.resume else set()
    provider: ContextProvider | None = None
    if any(a in plan.context_arms for a in plan.arms):
        provider = get_provider(plan.context_provider)
    run_id = plan.run_id or uuid.uuid4().hex[:12]
    cache = MirrorCache(plan.mirror_dir)
    fixes: dict[str, tuple[FixCommit | None, str | None]] = {}
    fix_lock = threading.Lock()

    def resolve(task: SuiteTask) -> tuple[FixCommit | None, str | None]:
        with fix_lock:
            if task.id not in fixes:
                try:
                    fixes[task.id] = (cache.resolve(task.repo_source(), task.commit), None)
                except RunnerError as exc:
                    fixes[task.id] = (None, str(exc))
            return fixes[task.id]

    base = AttemptSettings(agent=AgentCommand("true"), agent_timeout_s=plan.agent_timeout_s,
                           model=plan.model, run_id=run_id, tmp_dir=plan.tmp_dir,
                           depth=plan.depth, keep_workspace=plan.keep_workspaces,
                           context_max_tokens=plan.context_max_tokens,
                           metadata=dict(plan.metadata))
    jobs = [(t, arm, n) for t in tasks for n in range(plan.attempts) for arm in plan.arms
            if (t.id, arm, n) not in done]

    def one(task: SuiteTask, arm: str, attempt: int) -> RunResult:
        fix, error = resolve(task)
        settings = replace(base, agent=plan.agent_for(arm),
                           context=provider if arm in plan.context_arms else None)
        try:
            result = run_attempt(task, fix, arm, attempt, settings, resolve_error=error)
        except Exception as exc:  # noqa: BLE001 - one broken attempt must not stop the run
            result = RunResult(task=task.to_task(), arm=arm, attempt=attempt, run_id=run_id,
                               model=plan.model, harness_status="runner_error",
                               harness_error=f"{type(exc).__name__}: {exc}")
        append_result(out, result)
        return result

    failures = 0
    with ThreadPoolExecutor(max_workers=plan.jobs) as pool:
        futures = [pool.submit(one, *job) for job in jobs]
        for future in as_completed(futures):
            result = future.result()
            failures += result.harness_failed
            if progress:
                progress(result)
    return RunSummary(written=len(jobs), skipped=len(done), harness_failures=failures,
                      run_id=run_id)
