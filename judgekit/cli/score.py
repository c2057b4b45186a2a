"""``judgekit score PATH...``: score runs, print a table or JSON, write summary and report."""

from __future__ import annotations

import argparse

from judgekit.cli._common import (
    add_output_arguments,
    add_scoring_arguments,
    announce_similarity,
    pipeline_options,
    print_json,
    say,
)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("score", help="score runs: precision/recall/F1, test status, arm stats",
                       description="Score runs: file-level precision/recall/F1, honest test "
                                   "statuses, per-arm statistics and paired comparisons.")
    from judgekit.cli._audit_flags import add_swebench_logs_argument

    add_scoring_arguments(p)
    add_swebench_logs_argument(p)
    add_output_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from judgekit.cli._output import closing_lines, tasks_line
    from judgekit.evaluate import run_pipeline
    from judgekit.gcpause import collector_paused
    from judgekit.report import write_reports
    from judgekit.cli._flags import spell
    from judgekit.report.terminal import print_summary
    from judgekit.summary import summary_of

    announce_similarity(args)
    result = run_pipeline(args.paths, [],
                          options=pipeline_options(args, keep_runs=args.out is not None))
    tasks = tasks_line(result)
    if tasks:
        say(tasks)
    with collector_paused():
        summary = summary_of(result)
        report = write_reports(result, args.out, summary=summary) if args.out else None
        if args.json:
            print_json(summary.as_json())
        else:
            print_summary(summary, spell=spell)
    if report is not None:
        for line in closing_lines(summary, report, judging_skipped=False):
            say(line)
    return 0
