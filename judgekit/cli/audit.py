"""``judgekit audit PATH... --rubric NAME --judge MODEL --out DIR``: audit failed results;
``judgekit audit --items FILE ...``: audit benchmark items with no run."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from judgekit.cli._common import (
    add_output_arguments,
    add_scoring_arguments,
    pipeline_options,
    print_json,
    say,
)
from judgekit.errors import ConfigError

if TYPE_CHECKING:
    from judgekit.audit.models import AuditStats


def _engine_flags() -> Any:
    """The engine's flag helpers."""
    from judgekit.cli import _engine_flags

    return _engine_flags


NO_JUDGE = ("no judge model: pass --judge anthropic:<model> or openai:<model> and set "
            "ANTHROPIC_API_KEY or OPENAI_API_KEY, or --judge MODEL@URL for a server of your "
            "own, no key needed (llamacpp:<model>@http://127.0.0.1:8080/v1)")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from judgekit.cli._audit_flags import add_audit_arguments, add_swebench_logs_argument

    add_engine_arguments = _engine_flags().add_engine_arguments

    p = sub.add_parser(
        "audit", help="audit failed results with an IFE rubric (benchmark defect or agent?)",
        description="Score runs, then ask a judge model, with a rubric, whether each result "
                    "that did not pass failed because of a defect of the benchmark item "
                    "(an intrinsic formation error) or because of the agent. Verdicts are "
                    "checked for consistency and for quotes found in the materials, then "
                    "aggregated per task.")
    add_scoring_arguments(p, paths="*")
    p.add_argument("--items", metavar="FILE", default=None,
                   help="audit benchmark items with no run instead of failed results: a "
                        "SWE-bench dataset file (JSON or JSON Lines rows: instance_id, "
                        "problem_statement, patch, test_patch, FAIL_TO_PASS, PASS_TO_PASS, "
                        "hints_text), or a judgekit suite (.yaml, or a bundled suite's "
                        "name); one verdict per item")
    add_engine_arguments(p, jury=True)
    add_audit_arguments(p)
    add_swebench_logs_argument(p)
    add_output_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from judgekit.audit.rubric import load_rubric
    from judgekit.cli._audit_flags import audit_options_from_args
    from judgekit.evaluate import AuditStep, run_pipeline

    options = audit_options_from_args(args)
    load_rubric(options.rubric)  # a bad rubric fails before any scoring or call
    configs = _engine_flags().configs_from_args(args)
    if configs is None:  # an audit is nothing but judge calls: nothing to do without a judge
        raise ConfigError(NO_JUDGE)
    if args.json:
        configs = [c.model_copy(update={"progress": False}) for c in configs]
    config = configs[0]
    step = AuditStep(options, jury=True)
    if args.items is not None and args.paths:
        raise ConfigError("give run files to audit their failed results, or --items FILE to "
                          "audit benchmark items, not both")
    if args.items is None and not args.paths:
        raise ConfigError("give run files (PATH ...) or --items FILE")
    if args.items is not None:
        result = _item_result(args.items, configs, options, args.seed)
    else:
        result = run_pipeline(args.paths, [step], judge=configs if len(configs) > 1 else config,
                              options=pipeline_options(args))
    if config.dry_run:
        say("audit: dry run, no call made, nothing written")
        return 0
    from judgekit.cli._output import (
        EXIT_INCOMPLETE,
        closing_lines,
        incomplete,
        report_failures,
        stop_detail,
    )
    from judgekit.summary import summary_of

    summary = summary_of(result)
    report = None
    if args.out:
        from judgekit.report import write_reports

        report = write_reports(result, args.out, summary=summary)
    if args.json:
        print_json(summary.as_json())
    elif summary.audit is not None:
        _print(summary.audit)
    if stop_detail(result.parts):  # the engine's notice already said so, in one line
        return 1
    code = report_failures(result.parts)
    # an audit of items (--items) scored no results: no scoring line
    lines = closing_lines(summary, report, judging_skipped=False, asked=[step.kind],
                          parts=result.parts, scored=args.items is None)
    for line in lines:
        say(line)
    return EXIT_INCOMPLETE if code == 0 and incomplete(summary) else code


def _item_result(path: str, configs: list[Any], options: Any, seed: int | None) -> Any:
    """The audit of the benchmark items in ``path``, as an evaluation with no results."""
    from judgekit.audit.items import audit_items
    from judgekit.evaluate import EvalResult
    from judgekit.ingest.items import load_items
    from judgekit.scoring.models import ScoreSummary
    from judgekit.stats import DEFAULT_SEED

    items = load_items(path)
    part, engine = audit_items(items, configs, options)
    summary = ScoreSummary(results=[], arms={}, comparisons=[],
                           seed=DEFAULT_SEED if seed is None else seed)
    parts = [part]
    if not configs[0].dry_run:  # what the other steps tell of the items themselves
        from judgekit.step_registry import STEPS

        parts += [p for p in (kind.on_items(items) for kind in STEPS) if p is not None]
    result = EvalResult(summary=summary, parts=parts)
    if not configs[0].dry_run:
        result.judge = engine.judge_run()
    return result


def _print(audit: AuditStats) -> None:
    from judgekit.report.audit_text import audit_lines
    from judgekit.report.format import printable

    print(printable("\n".join(audit_lines(audit, markdown=False))))
