"""Commit-revert runs: suites of real bug fixes, isolated workspaces, agents, verification.

Example:
    >>> from judgekit.runner import load_suite, RunPlan, AgentCommand, run_suite
    >>> suite = load_suite("suites/flask.yaml")                       # doctest: +SKIP
    >>> plan = RunPlan(agents={"*": AgentCommand("my-agent {prompt_file}")},
    ...                arms=["baseline", "context"], attempts=3)
    >>> run_suite(suite, plan, "runs/flask.jsonl")                    # doctest: +SKIP
"""

from judgekit.runner.agent import AgentCommand, AgentRun, run_agent
from judgekit.runner.context import ContextBlock, ContextProvider, GrepProvider, get_provider
from judgekit.runner.process import ProcessOutcome, run_shell
from judgekit.runner.prompt import render_prompt
from judgekit.runner.results import append_result, done_keys
from judgekit.runner.run import RunPlan, RunSummary, run_suite
from judgekit.runner.suite import RepoSource, Suite, SuiteTask, load_suite
from judgekit.runner.testfiles import is_test_path
from judgekit.runner.verify import TaskCheck, verify_suite, verify_task
from judgekit.runner.workspace import FixCommit, MirrorCache, Workspace

__all__ = [
    "AgentCommand", "AgentRun", "ContextBlock", "ContextProvider", "FixCommit", "GrepProvider",
    "MirrorCache", "ProcessOutcome", "RepoSource", "RunPlan", "RunSummary", "Suite", "SuiteTask",
    "TaskCheck", "Workspace", "append_result", "done_keys", "get_provider", "is_test_path",
    "load_suite", "render_prompt", "run_agent", "run_shell", "run_suite", "verify_suite",
    "verify_task",
]
