"""``judgekit judge OUT_DIR --judge NEW``: add judges to a judged output, or replace them.

The options are read here once; :func:`judgekit.rejudge.rejudge` does the work.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgekit.cli._common import exclude_from, say
from judgekit.errors import ConfigError
from judgekit.outputs import RUNS_FILE


def _source(args: argparse.Namespace) -> Path:
    if len(args.paths) != 1:
        raise ConfigError("a judged output directory is judged again on its own: give it "
                          "as the only PATH, without run files")
    return Path(args.paths[0])


def _check_out(args: argparse.Namespace, source: Path) -> Path:
    """Where the output goes: ``--out`` (checked like any other), else the output itself."""
    if args.out is None or args.out.resolve() == source.resolve():
        return source
    from judgekit.cli._output import check_out_dir

    check_out_dir(args.out, force=bool(args.force), paths=[source / RUNS_FILE])
    return Path(args.out)


@dataclass
class Rejudged:
    """A judged output judged again and written: what the judge command closes with."""

    result: Any
    summary: Any
    report: Any
    out: Path


def run_rejudge(args: argparse.Namespace) -> Rejudged | None:
    """Judge the output again and write it; None on a dry run (nothing written)."""
    from judgekit.cli import _engine_flags, _pairwise_flags
    from judgekit.rejudge import load_judged_output, rejudge
    from judgekit.summary import summary_of

    source = _source(args)
    if not args.judge:
        raise ConfigError(f"{source} is a judged output: give the judge(s) to add with "
                          "--judge MODEL[@URL]")
    out = None if args.dry_run else _check_out(args, source)
    configs = _engine_flags.configs_from_args(args)
    assert configs is not None  # --judge was given
    if args.json:
        configs = [c.model_copy(update={"progress": False}) for c in configs]
    output = load_judged_output(source)
    options = _pairwise_flags.pairwise_options_from_args(args)
    if args.select is None and output.inputs.summary.pairwise_run is not None:
        options = options.model_copy(update={"select": output.inputs.summary.pairwise_run.select})
    result = rejudge(output, configs, replace=args.replace_judges, options=options,
                     rule=args.jury, exclude=exclude_from(args))
    if args.dry_run:
        for part in result.parts:
            if not part.carried_over:
                say(f"{part.kind.name}: "
                    f"{part.dry_run_text() or 'nothing to ask: every judge given has its verdicts'}")
        say("dry run: no call made, nothing written")
        return None
    assert out is not None
    summary = summary_of(result)
    from judgekit.report import write_reports

    return Rejudged(result, summary, write_reports(result, out, summary=summary), out)
