"""``judgekit judge PATH...``: score, judge pairs (flip-and-draw), audit failed tasks, report."""

from __future__ import annotations

import argparse
import contextlib
import io
from typing import Any

from judgekit.cli._common import (
    add_output_arguments,
    add_scoring_arguments,
    print_json,
    say,
    scoring_kwargs,
)


def register(sub: argparse._SubParsersAction) -> None:
    from judgekit.audit.options import add_audit_arguments
    from judgekit.engine import add_engine_arguments
    from judgekit.pairwise.options import add_pairwise_arguments

    p = sub.add_parser(
        "judge", help="score, judge pairs of solutions (flip-and-draw) and audit failures",
        description="Score runs, judge every two arms of each task in both orders on "
                    "consistency, completeness and minimality (flip-and-draw), audit failed "
                    "tasks with a rubric, and write the report.")
    add_scoring_arguments(p)
    add_engine_arguments(p)
    add_pairwise_arguments(p)
    add_audit_arguments(p)
    p.add_argument("--no-pairwise", action="store_true", help="skip pairwise judging")
    p.add_argument("--no-audit", action="store_true", help="skip the audit of failed tasks")
    add_output_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from judgekit.audit.options import audit_options_from_args
    from judgekit.engine import HOW_TO_ENABLE, config_from_args
    from judgekit.evaluate import evaluate
    from judgekit.pairwise.options import pairwise_options_from_args

    config = config_from_args(args)
    pairwise = not args.no_pairwise
    audit = not args.no_audit
    skipped = config is None and (pairwise or audit)
    if config is not None and args.json:
        config = config.model_copy(update={"progress": False})
    dry_run = config is not None and config.dry_run
    captured = io.StringIO()
    with contextlib.redirect_stderr(captured) if dry_run else contextlib.nullcontext():
        result = evaluate(
            args.paths, judge=config, pairwise=pairwise, audit=audit,
            **scoring_kwargs(args),
            pairwise_options=pairwise_options_from_args(args) if pairwise else None,
            audit_options=audit_options_from_args(args) if audit else None)
    if skipped:
        result.notes.append(HOW_TO_ENABLE)
    if dry_run:  # the engine printed the audit's estimate; pairwise keeps its own
        if result.pairwise is not None:
            say(f"pairwise: {getattr(result.pairwise, 'estimate', None)}")
        for line in captured.getvalue().splitlines():
            say(f"audit: {line}" if audit and line.strip() else line)
        say("dry run: no call made, nothing written")
        return 0
    if args.out:
        from judgekit.report import write_reports

        write_reports(result, args.out)
    # With --out the files are the answer: the terminal gets at most one line.
    table = not args.json and not args.out
    if args.json:
        print_json(result.summary_dict())
    elif table:
        _print(result)  # its notes include the "judging skipped" line
    if skipped and not table:
        say(HOW_TO_ENABLE)
    elif args.out:
        say(f"wrote {args.out}: summary.json, report.md, report.html and the JSONL records")
    return _report_failures(result)


def _report_failures(result: Any) -> int:
    """One stderr line per step whose calls failed; exit 1 when every call of a step did."""
    from judgekit.cli.audit import report_errors

    code = 0
    if result.pairwise is not None:
        asked = [r for r in result.pairwise.records if not r.identical]
        for state in ("error", "unscored"):
            hit = [r for r in asked if any(o.state == state for o in r.orders)]
            if hit:
                first = next((o.reason for r in hit for o in r.orders
                              if o.state == state and o.reason), "unknown")
                say(f"pairwise: {len(hit)} of {len(asked)} comparisons ended {state} "
                    f"(first: {first})")
        if asked and all(any(o.state == "error" for o in r.orders) for r in asked):
            code = 1
    if result.audit is not None:
        code = max(code, report_errors(result.audit.summary, result.audit.records))
    return code


def _print(result: Any) -> None:
    from judgekit.pairwise.terminal import print_pairwise
    from judgekit.report.terminal import print_summary

    print_summary(result)
    if result.pairwise is not None:
        print_pairwise(result.pairwise)
