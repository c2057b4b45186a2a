"""``judgekit run SUITE --agent CMD --arms A,B``: run agents on a suite's tasks."""

from __future__ import annotations

import argparse
import os
import re
import signal
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from judgekit.cli._common import say
from judgekit.errors import ConfigError

if TYPE_CHECKING:
    from judgekit.ingest.models import RunResult


def _csv(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "run", help="run agents on a suite's commit-revert tasks, write a run file",
        description="Run an agent command on every task x arm x attempt of a suite, each in "
                    "a fresh checkout of the fix's parent, and write the results to a run "
                    "file that 'judgekit score' reads. In COMMAND, {prompt_file}, "
                    "{workspace}, {task_id}, {arm}, {transcript_file} and {model} are "
                    "replaced (shell-quoted); the agent runs in the workspace, inside the "
                    "sandbox. SIGINT/SIGTERM stop the run, keeping finished results.")
    p.add_argument("suite", type=Path, metavar="SUITE_FILE")
    _add_attempt_arguments(p)
    _add_workspace_arguments(p)
    _add_isolation_arguments(p)
    _add_executor_arguments(p)
    p.set_defaults(func=run)


def _add_attempt_arguments(p: argparse.ArgumentParser) -> None:
    """The agents, arms and attempts, the run file, and how many run at once."""
    p.add_argument("--agent", metavar="COMMAND", help="agent command template for every arm")
    p.add_argument("--agent-for", action="append", default=[], metavar="ARM=COMMAND",
                   help="agent command for one arm (repeatable; overrides --agent)")
    p.add_argument("--arms", type=_csv, default=["baseline"], metavar="A,B",
                   help="arm names (default: baseline); the 'context' arm gets retrieved code")
    p.add_argument("--attempts", type=int, default=1, metavar="N")
    p.add_argument("--out", type=Path, required=True, metavar="RUN_FILE",
                   help="run file: NAME.json is one JSON run document, NAME.jsonl one result "
                        "a line")
    p.add_argument("--jobs", type=int, default=1, metavar="N", help="attempts run in parallel")
    p.add_argument("--resume", action="store_true",
                   help="skip (task, arm, attempt) already in RUN_FILE and append the rest")
    p.add_argument("--timeout", type=float, default=1800.0, metavar="S",
                   help="agent time limit in seconds (default 1800); 0 for none")
    p.add_argument("--model", metavar="LABEL", help="model label recorded with each result")
    p.add_argument("--tasks", type=_csv, default=None, metavar="ID,...", help="only these tasks")


def _add_workspace_arguments(p: argparse.ArgumentParser) -> None:
    """Where workspaces come from and go, and the code context of context arms."""
    p.add_argument("--mirror-dir", metavar="DIR",
                   help="cache of repository mirrors (default $JUDGEKIT_MIRROR_DIR or "
                        "~/.cache/judgekit/mirrors)")
    p.add_argument("--context-arms", type=_csv, default=["context"], metavar="A,B",
                   help="arms that get retrieved code context (default: context)")
    p.add_argument("--context-provider", dest="context_source", choices=("index", "grep"),
                   default="index", help="retrieval for context arms (default: the semantic index)")
    p.add_argument("--context-tokens", type=int, default=4000, metavar="N",
                   help="budget of the context block")
    p.add_argument("--depth", type=int, default=None, metavar="N",
                   help="fetch only N commits of history into workspaces (default: all)")
    p.add_argument("--tmp-dir", metavar="DIR", help="where workspaces are created")
    p.add_argument("--keep-workspaces", action="store_true",
                   help="leave workspaces on disk (their path is in each result's metadata)")
    p.add_argument("--run-id", metavar="ID", help="run id recorded with each result")


def _add_isolation_arguments(p: argparse.ArgumentParser) -> None:
    """The sandbox, what the agent sees of the host, and the limits of every command."""
    add_sandbox_argument(p, "setup, agent and test commands")
    p.add_argument("--agent-network", action="store_true",
                   help="let the agent reach the network (its model API); tests never can")
    p.add_argument("--agent-env", action="append", default=[], metavar="NAME[=VALUE]",
                   help="a variable for the agent only (repeatable): NAME passes judgekit's "
                        "own value, NAME=VALUE this one. Commands start from a clean "
                        "environment, so nothing else of judgekit's reaches them; values of "
                        "names containing KEY, TOKEN, SECRET, PASSWORD or CREDENTIAL are "
                        "replaced by [REDACTED:NAME] in everything judgekit stores or prints")
    add_test_env_argument(p)
    p.add_argument("--agent-bind", action="append", default=[], metavar="SRC[:DST]",
                   help="show the file or directory SRC to the agent, read-only, at DST "
                        "(default: the same path); repeatable. The home directory is hidden "
                        "in the sandbox: bind what the agent needs (its CLI, its config)")
    p.add_argument("--agent-home", metavar="DIR",
                   help="seed the agent's private HOME with a copy of DIR, made fresh for "
                        "each attempt (agent settings such as ~/.config/...)")
    p.add_argument("--memory-mb", type=_nonneg_int, default=None, metavar="MB",
                   help="address-space limit of every command, in MiB (default 32768; 0: none)")
    p.add_argument("--max-procs", type=_nonneg_int, default=None, metavar="N",
                   help="process limit of every command (default 4096; 0: none); the "
                        "commands run as an unprivileged user, so it holds whoever runs "
                        "judgekit")
    p.add_argument("--max-file-mb", type=_nonneg_int, default=None, metavar="MB",
                   help="largest file a command may write, in MiB (default 2048; 0: none); "
                        "a larger write fails")


def _add_executor_arguments(p: argparse.ArgumentParser) -> None:
    """Where attempts run, and the cache of semantic indexes."""
    p.add_argument("--executor", choices=("local", "ray"), default="local",
                   help="where attempts run: local threads (default) or Ray tasks")
    p.add_argument("--ray-address", metavar="ADDR",
                   help="Ray cluster to join (default: start a local one for the run)")
    p.add_argument("--cpus-per-attempt", type=float, default=1.0, metavar="N",
                   help="CPUs a Ray task reserves for one attempt (default 1)")
    p.add_argument("--index-dir", metavar="DIR",
                   help="cache of semantic indexes, one per commit (default "
                        "$JUDGEKIT_INDEX_DIR or ~/.cache/judgekit/indexes)")


def _nonneg_int(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {value!r}") from None
    if number < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, got {number}")
    return number


def limits_from(args: argparse.Namespace) -> object:
    from judgekit.execute.sandbox import (
        DEFAULT_FILE_MB,
        DEFAULT_MAX_PROCS,
        DEFAULT_MEMORY_MB,
        Limits,
    )

    memory = DEFAULT_MEMORY_MB if args.memory_mb is None else (args.memory_mb or None)
    procs = DEFAULT_MAX_PROCS if args.max_procs is None else (args.max_procs or None)
    file_mb = DEFAULT_FILE_MB if args.max_file_mb is None else (args.max_file_mb or None)
    return Limits(memory_mb=memory, max_procs=procs, file_mb=file_mb)


def add_sandbox_argument(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--sandbox", choices=("none", "bwrap"), default=None,
                   help=f"isolation of {what} (default: bwrap; where bubblewrap cannot be "
                        "used, judgekit refuses to run unless given --sandbox none)")


def add_test_env_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--test-env", action="append", default=[], metavar="NAME[=VALUE]",
                   help="a variable for setup and test commands (repeatable), as --agent-env "
                        "is for the agent; secret-looking values are redacted the same way")


def sandbox_from(args: argparse.Namespace) -> object:
    """The sandbox the options ask for; refuses (exit 2) when bubblewrap cannot be used."""
    from judgekit.execute.sandbox import SandboxUnavailable, choose_sandbox

    try:
        sandbox = choose_sandbox(args.sandbox)
    except SandboxUnavailable as exc:
        raise ConfigError(f"no sandbox for the commands: {exc.problem}; or pass --sandbox "
                          "none to run them without isolation") from None
    if sandbox.name == "none":
        say("judgekit: warning: --sandbox none: setup, agent and test commands run without "
            "isolation, as this user, seeing everything this user can; results record "
            "sandbox: none")
    return sandbox


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def env_from(items: list[str], flag: str, host: Mapping[str, str] | None = None
             ) -> dict[str, str]:
    """``NAME`` / ``NAME=VALUE`` options as variables; an error never shows a value."""
    host = os.environ if host is None else host
    out: dict[str, str] = {}
    for number, item in enumerate(items, start=1):
        name, sep, value = item.partition("=")
        if not _NAME.fullmatch(name):
            raise ConfigError(f"{flag} (occurrence {number}) expects NAME or NAME=VALUE, "
                              "NAME made of letters, digits and _ and not starting with a "
                              "digit (the value is not shown)")
        if not sep:
            if name not in host:
                raise ConfigError(f"{flag} {name}: {name} is not set in judgekit's "
                                  f"environment; give {flag} {name}=VALUE")
            value = host[name]
        out[name] = value
    return out


def binds_from(items: list[str]) -> tuple[tuple[str, str], ...]:
    """``SRC[:DST]`` options as ``(source, destination)`` absolute paths."""
    out = []
    for item in items:
        source, sep, dest = item.partition(":")
        if not source:
            raise ConfigError(f"--agent-bind {item!r}: expected SRC or SRC:DST")
        src = os.path.abspath(os.path.expanduser(source))
        if not os.path.exists(src):
            raise ConfigError(f"--agent-bind {source}: no such file or directory")
        dst = os.path.expanduser(dest) if sep else src
        if not os.path.isabs(dst):
            raise ConfigError(f"--agent-bind {item!r}: the destination must be an absolute "
                              "path")
        out.append((src, os.path.normpath(dst)))
    return tuple(out)


def agent_home_from(value: str | None) -> str | None:
    if value is None:
        return None
    path = os.path.abspath(os.path.expanduser(value))
    if not os.path.isdir(path):
        raise ConfigError(f"--agent-home {value}: not an existing directory")
    return path


def say_unredacted(env: object) -> None:
    """Name the secret variables whose values are too short to be redacted."""
    from judgekit.execute.secrets import MIN_SECRET_CHARS, too_short

    names = too_short(env)  # type: ignore[arg-type]
    if names:
        say(f"judgekit: warning: not redacted, their values having fewer than "
            f"{MIN_SECRET_CHARS} characters (redacting them would rewrite ordinary text): "
            f"{', '.join(names)}")


def say_hidden_tools(sandbox: object, binds: tuple[tuple[str, str], ...],
                     agents: Iterable[str] = ()) -> None:
    """Name the user's tools on PATH that the agent will not see (under /tmp or a hidden
    home), unless an agent command names them (``agents``) or they are bound."""
    if getattr(sandbox, "name", "none") == "none":
        return
    from judgekit.execute.hostview import current_view
    from judgekit.execute.named import shown_for

    path_var = os.environ.get("PATH", "")
    bound = [Path(src) for src, _ in binds]
    bound += [dest for command in agents for _, dest in shown_for(command, path_var)]
    hidden = [str(p) for p in current_view().user_tools
              if not any(p == b or b in p.parents for b in bound)]
    if hidden:
        say("judgekit: not visible to the agent unless its command names a program there "
            f"or --agent-bind shows them (under /tmp or the hidden home directory): "
            f"{', '.join(hidden)}")


SIGNAL_EXIT: dict[int, int] = {signal.SIGINT: 130, signal.SIGTERM: 143}


@contextmanager
def stop_on_signals(cancel: threading.Event) -> Iterator[list[int]]:
    """Set ``cancel`` on SIGINT/SIGTERM (main thread only); yields the signals received."""
    received: list[int] = []

    def handler(signum: int, _frame: object) -> None:
        if not received:
            say(f"judgekit: {signal.Signals(signum).name} received: stopping queued and "
                "running attempts, keeping finished results")
        received.append(signum)
        cancel.set()

    previous = {}
    if threading.current_thread() is threading.main_thread():
        for sig in SIGNAL_EXIT:
            previous[sig] = signal.signal(sig, handler)
    try:
        yield received
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def agents_from(args: argparse.Namespace) -> dict[str, object]:
    from judgekit.execute import AgentCommand

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
    from judgekit.execute import RunPlan, describe, load_suite, run_suite

    from judgekit.execute.environment import CommandEnv

    suite = load_suite(args.suite)
    if args.tasks:
        suite.select(args.tasks)  # unknown ids fail before anything starts
    env = CommandEnv(agent=env_from(args.agent_env, "--agent-env"),
                     test=env_from(args.test_env, "--test-env"))
    binds = binds_from(args.agent_bind)
    sandbox = sandbox_from(args)
    agents = agents_from(args)
    say_hidden_tools(sandbox, binds, [getattr(a, "template", "") for a in agents.values()])
    say_unredacted(env)
    plan = RunPlan(
        agents=agents,  # type: ignore[arg-type]
        arms=args.arms, attempts=args.attempts, jobs=args.jobs, resume=args.resume,
        agent_timeout_s=args.timeout or None, model=args.model, task_ids=args.tasks,
        mirror_dir=args.mirror_dir, context_arms=tuple(args.context_arms),
        context_source=args.context_source, context_max_tokens=args.context_tokens,
        tmp_dir=args.tmp_dir, depth=args.depth, keep_workspaces=args.keep_workspaces,
        run_id=args.run_id, metadata={"suite": suite.name},
        sandbox=sandbox, limits=limits_from(args),  # type: ignore[arg-type]
        agent_network=args.agent_network, executor=args.executor,
        ray_address=args.ray_address, cpus_per_attempt=args.cpus_per_attempt,
        index_dir=args.index_dir, env=env, agent_binds=binds,
        agent_home=agent_home_from(args.agent_home),
    )

    def progress(r: RunResult) -> None:
        say(f"{r.task.id} {r.arm} #{r.attempt}: {describe(r)}")

    cancel = threading.Event()
    with stop_on_signals(cancel) as received:
        summary = run_suite(suite, plan, args.out, progress=progress, cancel=cancel,
                            notice=lambda line: say(f"judgekit: {line}"))
    say(f"run {summary.run_id}: wrote {summary.written} result(s) to {args.out} "
        f"(sandbox {summary.sandbox}, executor {summary.executor}), "
        f"skipped {summary.skipped} already present, "
        f"{summary.harness_failures} harness failure(s)")
    if summary.redactions:
        counts = ", ".join(f"{name} x{n}" for name, n in sorted(summary.redactions.items()))
        say(f"judgekit: redacted {sum(summary.redactions.values())} secret value(s) from the "
            f"results ({counts})")
    if summary.cancelled or received:
        say(f"judgekit: stopped before the end: {summary.not_run} attempt(s) not run; "
            "--resume continues the run")
        return SIGNAL_EXIT.get(received[0], 130) if received else 130
    if summary.not_run:
        say(f"judgekit: {summary.not_run} attempt(s) lost (worker failures); --resume "
            "runs them again")
        return 1
    if summary.failure:
        say(f"judgekit: {summary.failure}")
        return 1
    return 0
