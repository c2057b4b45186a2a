"""``judgekit report DIR``: rebuild report.html and report.md from an output directory."""

from __future__ import annotations

import argparse
from pathlib import Path

from judgekit.cli._common import say


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "report", help="rebuild report.html and report.md from an --out directory",
        description="Rebuild report.html and report.md from the files an --out DIR holds "
                    "(summary.json, runs.jsonl, pairwise.jsonl, audit.jsonl). No model is "
                    "called.")
    p.add_argument("dir", type=Path, metavar="DIR", help="a directory written by --out")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from judgekit.report import render_reports

    paths = render_reports(args.dir)
    say("wrote " + ", ".join(str(p) for p in paths))
    return 0
