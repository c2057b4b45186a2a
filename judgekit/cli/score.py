"""``judgekit score PATH...``: score runs, print a table or JSON, write summary and report."""

from __future__ import annotations

import argparse

from judgekit.cli._common import (
    add_output_arguments,
    add_scoring_arguments,
    print_json,
    say,
    scoring_kwargs,
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("score", help="score runs: precision/recall/F1, test status, arm stats",
                       description="Score runs: file-level precision/recall/F1, honest test "
                                   "statuses, per-arm statistics and paired comparisons.")
    add_scoring_arguments(p)
    add_output_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from judgekit.evaluate import evaluate
    from judgekit.report import write_reports
    from judgekit.report.terminal import print_summary

    result = evaluate(args.paths, judge=None, audit=False, pairwise=False,
                      **scoring_kwargs(args))
    if args.out:
        write_reports(result, args.out)
    if args.json:
        print_json(result.summary_dict())
    else:
        print_summary(result)
        if args.out:
            say(f"wrote {args.out / 'summary.json'}, {args.out / 'report.md'}, "
                f"{args.out / 'report.html'}")
    return 0
