"""``judgekit audit PATH... --rubric NAME --judge MODEL --out DIR``: audit failed results."""

from __future__ import annotations

import argparse
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

    p = sub.add_parser(
        "audit", help="audit failed results with an IFE rubric (benchmark defect or agent?)",
        description="Score runs, then ask a judge model, with a rubric, whether each result "
                    "that did not pass failed because of a defect of the benchmark item "
                    "(an intrinsic formation error) or because of the agent. Verdicts are "
                    "checked for consistency and for quotes found in the materials, then "
                    "aggregated per task.")
    add_scoring_arguments(p)
    add_engine_arguments(p)
    add_audit_arguments(p)
    add_output_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from judgekit.audit.options import audit_options_from_args
    from judgekit.audit.rubric import load_rubric
    from judgekit.engine import HOW_TO_ENABLE, config_from_args
    from judgekit.evaluate import evaluate

    options = audit_options_from_args(args)
    load_rubric(options.rubric)  # a bad rubric fails before any scoring or call
    config = config_from_args(args)
    if config is not None and args.json:
        config = config.model_copy(update={"progress": False})
    result = evaluate(args.paths, judge=config, pairwise=False, audit=config is not None,
                      audit_options=options, **scoring_kwargs(args))
    skipped = config is None
    note = "audit skipped: " + HOW_TO_ENABLE.split(": ", 1)[-1]
    if skipped:
        result.notes.append(note)
    if config is not None and config.dry_run:
        say("audit: dry run, no call made, nothing written")
        return 0
    if args.out:
        from judgekit.report import write_reports

        write_reports(result, args.out)
    if args.json:
        print_json(result.summary_dict())
    elif result.audit is not None:
        _print(result.audit.summary)
    if skipped:
        say(note)
    elif args.out:
        say(f"wrote {args.out}")
    return report_errors(result.audit.summary if result.audit is not None else None,
                          result.audit.records if result.audit is not None else [])


def report_errors(summary: dict[str, Any] | None, records: list[Any]) -> int:
    """One stderr line when calls ended in error; exit 1 when every audit did."""
    if not summary or not summary["n_error"]:
        return 0
    reason = next((r.reason for r in records if r.state == "error" and r.reason), "unknown")
    say(f"audit: {summary['n_error']} of {summary['n_failed']} results ended in error "
        f"(first: {reason})")
    return 1 if summary["n_error"] == summary["n_failed"] else 0


def _print(audit: dict[str, Any]) -> None:
    from judgekit.audit.report import audit_lines

    print("\n".join(audit_lines(audit, markdown=False)))
