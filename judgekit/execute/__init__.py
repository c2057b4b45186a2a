"""Commit-revert runs: suites of real bug fixes, isolated workspaces, agents, verification.

Example:
    >>> from judgekit.execute import load_suite, RunPlan, AgentCommand, run_suite
    >>> suite = load_suite("suites/flask.yaml")                       # doctest: +SKIP
    >>> plan = RunPlan(agents={"*": AgentCommand("my-agent {prompt_file}")},
    ...                arms=["baseline", "context"], attempts=3)
    >>> run_suite(suite, plan, "runs/flask.jsonl")                    # doctest: +SKIP
"""

from judgekit.execute.agent import AgentCommand, AgentRun, run_agent
from judgekit.execute.context import ContextBlock, ContextSource, GrepSource, get_context_source
from judgekit.execute.executors import Executor, LocalExecutor, get_executor
from judgekit.execute.outcome import describe
from judgekit.execute.process import Cancelled, ProcessOutcome, run_shell
from judgekit.execute.prompt import render_prompt
from judgekit.execute.results import RunWriter, append_result, done_keys
from judgekit.execute.plan import RunOutcome, RunPlan, plan_units, run_suite
from judgekit.execute.sandbox import (Bwrap, Limits, NoSandbox, Sandbox, SandboxSpec,
                                     choose_sandbox)
from judgekit.execute.testfiles import is_test_path
from judgekit.execute.units import Unit, UnitRunner
from judgekit.execute.verify import TaskCheck, verify_suite, verify_task
from judgekit.execute.workspace import FixCommit, MirrorCache, Workspace
from judgekit.ingest.suites import RepoSource, Suite, SuiteTask, load_suite

__all__ = [
    "AgentCommand", "AgentRun", "Bwrap", "Cancelled", "ContextBlock", "ContextSource",
    "Executor", "FixCommit", "GrepSource", "Limits", "LocalExecutor", "MirrorCache",
    "NoSandbox", "ProcessOutcome", "RepoSource", "RunOutcome", "RunPlan", "RunWriter",
    "Sandbox", "SandboxSpec", "Suite", "SuiteTask", "TaskCheck", "Unit", "UnitRunner",
    "Workspace", "append_result", "choose_sandbox", "describe", "done_keys", "get_executor",
    "get_context_source", "is_test_path", "load_suite", "plan_units", "render_prompt", "run_agent",
    "run_shell", "run_suite", "verify_suite", "verify_task",
]
