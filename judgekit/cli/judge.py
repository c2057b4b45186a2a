"""``judgekit judge PATH...``: score, judge pairs (flip-and-draw), audit failed tasks, report."""

from __future__ import annotations

import argparse
import contextlib
import io
from types import ModuleType
from typing import Any

from judgekit.cli._common import (
    add_output_arguments,
    add_scoring_arguments,
    announce_similarity,
    print_json,
    say,
    scoring_kwargs,
)


def _engine() -> ModuleType:
    from judgekit.cli import _engine_flags

    return _engine_flags


def _pairwise() -> ModuleType:
    from judgekit.cli import _pairwise_flags

    return _pairwise_flags


def _audit() -> ModuleType:
    from judgekit.cli import _audit_flags

    return _audit_flags


def register(sub: argparse._SubParsersAction) -> None:
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
                  skipped=False, pairwise=True, audit=done.result.audit is not None)


def _steps(args: argparse.Namespace, *, pairwise: bool, audit: bool) -> list[Any]:
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
    from judgekit.cli._pipeline import inputs_of
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
    source, load_kwargs = inputs_of(args)
    steps = _steps(args, pairwise=pairwise, audit=audit)
    prepared = None
    if args.out and not dry_run:  # the report's diffs are rendered while the calls wait
        from judgekit.report.prepare import PreparedParts

        prepared = PreparedParts()
    with contextlib.redirect_stderr(captured) if dry_run else contextlib.nullcontext():
        result = run_pipeline(
            source, steps, judge=config,
            while_judging=(lambda r: prepared.steps(r.runs, r.summary.results))
            if prepared is not None else None,
            **load_kwargs, **scoring_kwargs(args))
    if skipped:
        result.notes.append(_engine().HOW_TO_ENABLE)
    tasks = tasks_line(result)
    if tasks:
        say(tasks)
    if dry_run:  # the engine printed the audit's estimate; pairwise keeps its own
        if result.pairwise is not None:
            say(f"pairwise: {getattr(result.pairwise, 'estimate', None)}")
        for line in captured.getvalue().splitlines():
            say(f"audit: {line}" if audit and line.strip() else line)
        say("dry run: no call made, nothing written")
        return 0
    summary = summary_of(result)
    report = None
    if args.out:
        from judgekit.report import write_reports

        report = write_reports(result, args.out, prepared=prepared, summary=summary)
    return finish(args, result, summary, report, out=args.out, skipped=skipped,
                  pairwise=pairwise, audit=audit)


def finish(args: argparse.Namespace, result: Any, summary: Any, report: Any, *,
           out: Any, skipped: bool, pairwise: bool, audit: bool) -> int:
    """Print the summary (or, with ``out`` written, the closing lines); the exit code."""
    from judgekit.cli._output import EXIT_INCOMPLETE, audit_cached, closing_lines, incomplete
    from judgekit.report.format import printable

    table = not args.json and not out
    if args.json:
        print_json(summary.as_json())
    elif table:
        _print(summary)  # its notes include the "judging skipped" line
    if skipped and not table:
        say(_engine().HOW_TO_ENABLE)
    stopped = auth_stop(result)
    if stopped:  # the engine's notice already said so, in one line, when it happened
        return 1
    code = _report_failures(result)
    lines = closing_lines(summary, report, judging_skipped=skipped, pairwise_asked=pairwise,
                          audit_asked=audit, audit_cached=audit_cached(result))
    at = next((i + 1 for i, x in enumerate(lines) if x.startswith("pairwise: ")), len(lines))
    for line in lines[:at] + _jury_lines(summary) + lines[at:]:
        say(printable(line))
    if code == 0 and incomplete(summary):
        say("incomplete: the cost cap stopped judging before every item was asked "
            "(raise --max-cost to finish; answers so far are cached)")
        return EXIT_INCOMPLETE
    return code


def auth_stop(result: Any) -> str | None:
    """Why the engine stopped sending calls (a 401/403), if it did."""
    if result.pairwise is not None and getattr(result.pairwise, "stopped", None):
        return str(result.pairwise.stopped)
    if result.audit is not None and not getattr(result.audit, "carried_over", False):
        stop = getattr(result.audit, "stopped", None)  # a judgekit.engine.Skip
        if stop is not None:
            return str(stop.detail)
    return None


def _report_failures(result: Any) -> int:
    """One stderr line per step whose calls failed; exit 1 when every call of a step did."""
    from judgekit.cli._pipeline import report_errors
    from judgekit.report.format import printable

    code = 0
    for label, part in _judge_parts(result.pairwise):
        asked = [r for r in part.records if not r.identical]
        for state in ("error", "unscored"):
            hit = [r for r in asked
                   if any(o.state == state and not o.skipped_cost for o in r.orders)]
            if hit:
                first = next((o.reason for r in hit for o in r.orders
                              if o.state == state and not o.skipped_cost and o.reason),
                             "unknown")
                say(printable(f"pairwise{label}: {len(hit)} of {len(asked)} comparisons "
                              f"ended {state} (first: {first})"))
        if asked and all(any(o.state == "error" for o in r.orders) for r in asked):
            code = 1
    if result.audit is not None and not getattr(result.audit, "carried_over", False):
        code = max(code, report_errors(result.audit))
    return code


def _jury_lines(summary: Any) -> list[str]:
    """With a jury: each judge's calls, cost and verdict on itself, and the agreement."""
    jury = summary.pairwise.jury if summary.pairwise is not None else None
    if jury is None:
        return []
    alpha = jury.agreement.alpha
    lines = [f"jury ({jury.rule}) of {len(jury.judges)} judges; agreement (Krippendorff's "
             f"alpha) {'undefined' if alpha is None else f'{alpha:.2f}'}"]
    for label, m in jury.members.items():
        run, rel = m.run, m.judge_reliability
        calls = (f"{run.n_calls} calls, {run.n_cached} verdicts from the cache, "
                 f"${run.cost_usd:.4f}" if run is not None else "no calls")
        if label in jury.reused_judges:
            calls = "verdicts reused from the judged output, no call"
        flag = "; flagged" if rel is not None and rel.flagged else ""
        lines.append(f"  judge {label}: {calls}{flag}")
    return lines


def _judge_parts(pairwise: Any) -> list[tuple[str, Any]]:
    """``("", result)`` for one judge; ``(" (judge X)", its result)`` for each of a jury."""
    if pairwise is None:
        return []
    jurors = getattr(pairwise, "jurors", None)
    if jurors is None:
        return [("", pairwise)]
    return [(f" (judge {j.label})", j.result) for j in jurors]


def _print(summary: Any) -> None:
    from judgekit.report.pairwise_terminal import print_pairwise
    from judgekit.cli._flags import spell
    from judgekit.report.terminal import print_summary

    print_summary(summary, spell=spell)
    print_pairwise(summary)
