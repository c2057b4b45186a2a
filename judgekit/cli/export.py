"""``judgekit export inspect OUT LOG... [--to DIR | --in-place] [--json]``: judgekit's
results on Inspect logs written back into copies of the logs, as Inspect scores on each
sample (:mod:`judgekit.report.inspect_writeback`), so ``inspect view`` shows them.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from judgekit.cli._common import print_json
from judgekit.report.inspect_writeback import write_back


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("export", help="write judgekit's results into another tool's files")
    kinds = p.add_subparsers(dest="kind", required=True, metavar="KIND")
    i = kinds.add_parser("inspect", help="copies of Inspect logs whose samples carry "
                                         "judgekit's results as scores")
    i.add_argument("out", type=Path, help="the evaluation folder (judge/audit/score --out)")
    i.add_argument("logs", type=Path, nargs="+", metavar="LOG",
                   help="the Inspect logs (.eval or .json) that were evaluated")
    where = i.add_mutually_exclusive_group()
    where.add_argument("--to", type=Path, default=None, metavar="DIR",
                       help="the folder the copies are written to (default: OUT/inspect-logs)")
    where.add_argument("--in-place", action="store_true",
                       help="rewrite the logs themselves instead of copies")
    i.add_argument("--json", action="store_true", help="print what was written as JSON")
    i.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    done = write_back(args.out, args.logs, args.to, in_place=args.in_place)
    written = [str(p) for p in done.written]
    summary = {"written": written, "samples": done.samples,
               "samples_scored": done.samples_scored, "samples_unmatched": done.unmatched,
               "scores": done.scores, "by_kind": dict(done.by_kind)}
    if args.json:
        print_json(summary)
        return 0
    kinds = ", ".join(f"{n} {k}" for k, n in sorted(done.by_kind.items())) or "none"
    print(f"{len(done.written)} log{'s' * (len(done.written) != 1)} written "
          f"({', '.join(written)}): {done.samples_scored} of {done.samples} "
          f"samples scored ({kinds}); {done.unmatched} samples matched no result")
    return 0
