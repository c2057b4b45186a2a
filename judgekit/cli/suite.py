"""``judgekit suite verify SUITE``: check tasks before spending money on agents."""

from __future__ import annotations

import argparse
import threading
from pathlib import Path

from judgekit.cli._common import print_json, say
from judgekit.cli.run import add_sandbox_argument, add_test_env_argument


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("suite", help="work with task suites (verify)",
                       description="Work with task suites.")
    inner = p.add_subparsers(dest="suite_command", metavar="SUBCOMMAND")
    v = inner.add_parser(
        "verify", help="check that each task fails at the parent and passes with the fix",
        description="For each task: the parent checks out, the setup command works, and the "
                    "test command (with the fix's test files added) runs at least one test, "
                    "fails at the parent and passes with the fix applied.")
    v.add_argument("suite", type=Path, metavar="SUITE_FILE")
    v.add_argument("--json", action="store_true",
                   help="print a JSON list of {task_id, ok, problems, ...}")
    v.add_argument("--tasks", type=lambda s: [x for x in s.split(",") if x], default=None,
                   metavar="ID,...", help="only these tasks")
    v.add_argument("--jobs", type=int, default=1, metavar="N")
    v.add_argument("--mirror-dir", metavar="DIR",
                   help="cache of repository mirrors: DIR/<host>+<owner>+<name>.git, a bare "
                        "clone (git clone --mirror) of each repository; one holding the "
                        "tasks' commits is used offline")
    add_sandbox_argument(v, "setup and test commands")
    add_test_env_argument(v)
    v.add_argument("--tmp-dir", metavar="DIR", help="where workspaces are created")
    v.set_defaults(func=verify)

    def usage(args: argparse.Namespace) -> int:
        p.print_help()
        return 2

    p.set_defaults(func=usage)


def verify(args: argparse.Namespace) -> int:
    from judgekit.cli.run import (SIGNAL_EXIT, env_from, sandbox_from, say_unredacted,
                                  stop_on_signals)
    from judgekit.execute import Cancelled, load_suite, verify_suite
    from judgekit.execute.environment import CommandEnv

    suite = load_suite(args.suite)
    if args.tasks:
        suite.select(args.tasks)
    env = CommandEnv(test=env_from(args.test_env, "--test-env"))
    sandbox = sandbox_from(args)
    say_unredacted(env)

    def progress(check: object) -> None:
        c = check
        state = "ok" if c.ok else "BROKEN: " + "; ".join(c.problems)  # type: ignore[attr-defined]
        say(f"{c.task_id}: {state}")  # type: ignore[attr-defined]

    cancel = threading.Event()
    with stop_on_signals(cancel) as received:
        try:
            checks = verify_suite(suite, task_ids=args.tasks, mirror_dir=args.mirror_dir,
                                  jobs=args.jobs, tmp_dir=args.tmp_dir,
                                  sandbox=sandbox,  # type: ignore[arg-type]
                                  progress=None if args.json else progress, cancel=cancel,
                                  env=env)
        except Cancelled:
            say("judgekit: verification stopped before the end")
            return SIGNAL_EXIT.get(received[0], 130) if received else 130
    if args.json:
        print_json([c.to_dict() for c in checks])
    broken = sum(not c.ok for c in checks)
    if not args.json:
        say(f"{len(checks) - broken} of {len(checks)} task(s) ok")
    return 1 if broken else 0
