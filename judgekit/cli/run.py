"""``judgekit run SUITE --agent CMD --arms A,B``: run agents on a suite's tasks."""

from __future__ import annotations

import argparse
from pathlib import Path

from judgekit.cli._common import say
from judgekit.errors import ConfigError


def _csv(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run", help="run agents on a suite's commit-revert tasks, write a run file",
        description="Run an agent command on every task x arm x attempt of a suite, each in "
                    "a fresh checkout of the fix's parent, and append the results to a .jsonl "
                    "run file that 'judgekit score' reads. In COMMAND, {prompt_file}, "
                    "{workspace}, {task_id}, {arm}, {transcript_file} and {model} are "
                    "replaced (shell-quoted); the agent runs in the workspace.")
    p.add_argument("suite", type=Path, metavar="SUITE_FILE")
    p.add_argument("--agent", metavar="COMMAND", help="agent command template for every arm")
    p.add_argument("--agent-for", action="append", default=[], metavar="ARM=COMMAND",
                   help="agent command for one arm (repeatable; overrides --agent)")
    p.add_argument("--arms", type=_csv, default=["baseline"], metavar="A,B",
                   help="arm names (default: baseline); the 'context' arm gets retrieved code")
    p.add_argument("--attempts", type=int, default=1, metavar="N")
    p.add_argument("--out", type=Path, required=True, metavar="RUN_FILE",
                   help=".jsonl run file, one result a line")
    p.add_argument("--jobs", type=int, default=1, metavar="N", help="attempts run in parallel")
    p.add_argument("--resume", action="store_true",
                   help="skip (task, arm, attempt) already in RUN_FILE and append the rest")
    p.add_argument("--timeout", type=float, default=1800.0, metavar="S",
                   help="agent time limit in seconds (default 1800); 0 for none")
    p.add_argument("--model", metavar="LABEL", help="model label recorded with each result")
    p.add_argument("--tasks", type=_csv, default=None, metavar="ID,...", help="only these tasks")
    p.add_argument("--mirror-dir", metavar="DIR",
                   help="cache of repository mirrors (default $JUDGEKIT_MIRROR_DIR or "
                        "~/.cache/judgekit/mirrors)")
    p.add_argument("--context-arms", type=_csv, default=["context"], metavar="A,B",
                   help="arms that get retrieved code context (default: context)")
    p.add_argument("--context-provider", choices=("index", "grep"), default="index",
                   help="retrieval for context arms (default: the semantic index)")
    p.add_argument("--context-tokens", type=int, default=4000, metavar="N",
                   help="budget of the context block")
    p.add_argument("--depth", type=int, default=None, metavar="N",
                   help="fetch only N commits of history into workspaces (default: all)")
    p.add_argument("--tmp-dir", metavar="DIR", help="where workspaces are created")
    p.add_argument("--keep-workspaces", action="store_true",
                   help="leave workspaces on disk (their path is in each result's metadata)")
    p.add_argument("--run-id", metavar="ID", help="run id recorded with each result")
    p.set_defaults(func=run)


def agents_from(args: argparse.Namespace) -> dict[str, object]:
    from judgekit.runner import AgentCommand

    agents: dict[str, object] = {}
    if args.agent:
        agents["*"] = AgentCommand(args.agent)
    for item in args.agent_for:
        arm, sep, command = item.partition("=")
        if not sep or not arm.strip():
            raise ConfigError(f"--agent-for expects ARM=COMMAND, got {item!r}")
        agents[arm.strip()] = AgentCommand(command)
    if not agents:
        raise ConfigError("give an agent command with --agent or --agent-for ARM=COMMAND")
    return agents


def run(args: argparse.Namespace) -> int:
    from judgekit.runner import RunPlan, load_suite, run_suite

    suite = load_suite(args.suite)
    plan = RunPlan(
        agents=agents_from(args),  # type: ignore[arg-type]
        arms=args.arms, attempts=args.attempts, jobs=args.jobs, resume=args.resume,
        agent_timeout_s=args.timeout or None, model=args.model, task_ids=args.tasks,
        mirror_dir=args.mirror_dir, context_arms=tuple(args.context_arms),
        context_provider=args.context_provider, context_max_tokens=args.context_tokens,
        tmp_dir=args.tmp_dir, depth=args.depth, keep_workspaces=args.keep_workspaces,
        run_id=args.run_id, metadata={"suite": suite.name},
    )

    def progress(result: object) -> None:
        r = result  # RunResult
        status = r.harness_status if r.harness_failed else "done"  # type: ignore[attr-defined]
        say(f"{r.task.id} {r.arm} #{r.attempt}: {status}")  # type: ignore[attr-defined]

    summary = run_suite(suite, plan, args.out, progress=progress)
    say(f"run {summary.run_id}: wrote {summary.written} result(s) to {args.out}, "
        f"skipped {summary.skipped} already present, "
        f"{summary.harness_failures} harness failure(s)")
    return 0
