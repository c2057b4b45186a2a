"""``judgekit score PATH...``: score runs, print a table or JSON, write summary and report."""

from __future__ import annotations

import argparse
from typing import Any

from judgekit.cli._common import (
    add_output_arguments,
    add_scoring_arguments,
    announce_similarity,
    pipeline_options,
    print_json_chunks,
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


def transcript_lines(arms: dict[str, Any]) -> list[str]:
    """One line per arm whose results have transcripts: what they say, and the claims of
    success the tests deny."""
    out = []
    for name, arm in arms.items():
        t = arm.transcripts
        if t is None:
            continue
        cost = (f", ${t.mean_cost_usd:.4f} mean cost ({t.n_with_cost} recorded)"
                if t.mean_cost_usd is not None else ", no cost recorded")
        tokens = (f", {t.mean_tokens_in:.0f} in / {t.mean_tokens_out or 0:.0f} out tokens"
                  f" ({t.n_with_tokens} recorded)" if t.mean_tokens_in is not None else "")
        line = (f"transcripts: {name}: {t.n_with_transcript} of {arm.n} results, "
                f"{t.mean_turns or 0:.1f} turns, {t.mean_tool_calls or 0:.1f} tool calls"
                f"{tokens}{cost}")
        if t.n_claimed_unverified:
            shown = "; ".join(t.claimed_unverified[:5])
            more = f" and {t.n_claimed_unverified - 5} more" if t.n_claimed_unverified > 5 \
                else ""
            line += (f"; {t.n_claimed_unverified} claim success their tests deny: "
                     f"{shown}{more}")
        if t.n_claimed_untested:
            line += (f"; {t.n_claimed_untested} claim success no test evidence decides "
                     f"(test status unknown or error)")
        out.append(line)
    return out


def run(args: argparse.Namespace) -> int:
    from judgekit.cli._output import closing_lines, tasks_line
    from judgekit.evaluate import run_pipeline
    from judgekit.gcpause import collector_paused
    from judgekit.report import write_reports
    from judgekit.cli._flags import spell
    from judgekit.report.terminal import print_summary
    from judgekit.summary import summary_of

    announce_similarity(args)
    result = run_pipeline(args.paths, [], options=pipeline_options(args, keep_runs=False))
    tasks = tasks_line(result)
    if tasks:
        say(tasks)
    with collector_paused():
        summary = summary_of(result)
        report = write_reports(result, args.out, summary=summary) if args.out else None
        if args.json:
            print_json_chunks(summary.json_chunks())
        else:
            print_summary(summary, spell=spell)
    for line in transcript_lines(summary.arms):
        say(line)
    if report is not None:
        for line in closing_lines(summary, report, judging_skipped=False):
            say(line)
    return 0
