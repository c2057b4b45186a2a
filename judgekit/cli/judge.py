"""``judgekit judge PATH...``: score, judge pairs (flip-and-draw), audit failed tasks, report."""

from __future__ import annotations

import argparse
import contextlib
import io
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from judgekit.cli._common import (
    add_output_arguments,
    add_scoring_arguments,
    announce_similarity,
    pipeline_options,
    print_json,
    say,
)

if TYPE_CHECKING:
    from judgekit.evaluate import EvalResult, Judging
    from judgekit.steps import Step, StepKind
    from judgekit.summary import EvalSummary


def _engine() -> ModuleType:
    from judgekit.cli import _engine_flags

    return _engine_flags


def _pairwise() -> ModuleType:
    from judgekit.cli import _pairwise_flags

    return _pairwise_flags


def _audit() -> ModuleType:
    from judgekit.cli import _audit_flags

    return _audit_flags


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "judge", help="score, judge pairs of solutions (flip-and-draw) and audit failures",
        description="Score runs, judge every two arms of each task in both orders on "
                    "consistency, completeness and minimality (flip-and-draw), audit failed "
                    "tasks with a rubric, and write the report. Given a judged output "
                    "directory (--out DIR of an earlier run) instead of runs, add the judges "
                    "of --judge to it: only they are asked; the output's verdicts, scores "
                    "and audit are reused, the jury is computed again, and DIR (or --out) "
                    "is rewritten as a set.")
    add_scoring_arguments(p)
    _engine().add_engine_arguments(p, jury=True)
    _pairwise().add_pairwise_arguments(p)
    _audit().add_audit_arguments(p)
    from judgekit.cli._audit_flags import add_swebench_logs_argument

    add_swebench_logs_argument(p)
    p.add_argument("--no-pairwise", action="store_true", help="skip pairwise judging")
    p.add_argument("--no-audit", action="store_true", help="skip the audit of failed tasks")
    p.add_argument("--replace-judges", action="store_true",
                   help="with a judged output DIR as PATH: the judges given replace the "
                        "output's (those it has keep their verdicts, the others are dropped) "
                        "instead of joining them")
    add_output_arguments(p)
    p.set_defaults(func=run)


def _rejudge(args: argparse.Namespace) -> int:
    """A judged output given as PATH: judge it again, then close as any judging."""
    from judgekit.cli._rejudge import run_rejudge

    done = run_rejudge(args)
    if done is None:  # a dry run: nothing to finish
        return 0
    return finish(args, done.result, done.summary, done.report, out=done.out,
                  skipped=False, asked=[part.kind for part in done.result.parts])


def _steps(args: argparse.Namespace, *, pairwise: bool, audit: bool) -> list[Step[Judging]]:
    """The judging steps the options ask for, with their options."""
    from judgekit.evaluate import judging_steps

    return judging_steps(
        pairwise=pairwise, audit=audit,
        pairwise_options=_pairwise().pairwise_options_from_args(args) if pairwise else None,
        audit_options=_audit().audit_options_from_args(args) if audit else None)


def run(args: argparse.Namespace) -> int:
    from judgekit.report.outdir import is_judged_output

    if any(is_judged_output(p) for p in args.paths):
        return _rejudge(args)
    from judgekit.cli._output import tasks_line
    from judgekit.evaluate import run_pipeline
    from judgekit.summary import summary_of

    configs = _engine().configs_from_args(args)
    pairwise = not args.no_pairwise
    audit = not args.no_audit
    skipped = configs is None and (pairwise or audit)
    if configs is not None and args.json:
        configs = [c.model_copy(update={"progress": False}) for c in configs]
    config = (configs[0] if len(configs) == 1 else configs) if configs else None
    dry_run = configs is not None and configs[0].dry_run
    announce_similarity(args)
    captured = io.StringIO()
    steps = _steps(args, pairwise=pairwise, audit=audit)
    prepared = None
    if args.out and not dry_run:  # the report's diffs are rendered while the calls wait
        from judgekit.report.prepare import PreparedParts

        prepared = PreparedParts()
    with contextlib.redirect_stderr(captured) if dry_run else contextlib.nullcontext():
        result = run_pipeline(
            args.paths, steps, judge=config, options=pipeline_options(args),
            while_judging=(lambda r: prepared.steps(r.runs, r.summary.results))
            if prepared is not None else None)
    if skipped:
        result.notes.append(_engine().HOW_TO_ENABLE)
    tasks = tasks_line(result)
    if tasks:
        say(tasks)
    if dry_run:
        _dry_run_lines(result, captured.getvalue())
        return 0
    summary = summary_of(result)
    report = None
    if args.out:
        from judgekit.report import write_reports

        report = write_reports(result, args.out, prepared=prepared, summary=summary)
    return finish(args, result, summary, report, out=args.out, skipped=skipped,
                  asked=[step.kind for step in steps])


def _dry_run_lines(result: EvalResult, printed: str) -> None:
    """Each step's estimate: its own where it keeps one, else what the engine printed
    (the step that ran last: the engine prints the estimate of a step that keeps none)."""
    printer = next((p.kind for p in reversed(result.parts) if p.dry_run_text() is None),
                   None)
    for part in result.parts:
        text = part.dry_run_text()
        if text is not None:
            say(f"{part.kind.name}: {text}")
    for line in printed.splitlines():
        say(f"{printer.name}: {line}" if printer is not None and line.strip() else line)
    say("dry run: no call made, nothing written")


def finish(args: argparse.Namespace, result: EvalResult, summary: EvalSummary,
           report: Path | None, *, out: Path | None, skipped: bool,
           asked: Sequence[StepKind[Any, Any]]) -> int:
    """Print the summary (or, with ``out`` written, the closing lines); the exit code."""
    from judgekit.cli._output import (
        EXIT_INCOMPLETE,
        closing_lines,
        incomplete,
        report_failures,
        stop_detail,
    )

    table = not args.json and not out
    if args.json:
        print_json(summary.as_json())
    elif table:
        _print(summary)  # its notes include the "judging skipped" line
    if skipped and not table:
        say(_engine().HOW_TO_ENABLE)
    if stop_detail(result.parts):  # the engine's notice already said so, in one line
        return 1
    code = report_failures(result.parts)
    for line in closing_lines(summary, report, judging_skipped=skipped, asked=asked,
                              parts=result.parts):
        say(line)
    if code == 0 and incomplete(summary):
        say("incomplete: the cost cap stopped judging before every item was asked "
            "(raise --max-cost to finish; answers so far are cached)")
        return EXIT_INCOMPLETE
    return code


def _print(summary: EvalSummary) -> None:
    from judgekit.report.pairwise_terminal import print_pairwise
    from judgekit.cli._flags import spell
    from judgekit.report.terminal import print_summary

    print_summary(summary, spell=spell)
    print_pairwise(summary)
