"""``judgekit compare OUT_A OUT_B``: how two judged outputs' pairwise verdicts agree."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from judgekit.cli._common import print_json

if TYPE_CHECKING:
    from judgekit.pairwise.compare import DimensionAgreement, OutputComparison


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "compare", help="agreement between two judged outputs' pairwise verdicts",
        description="Match the compared pairs of two judged outputs by task, arms and "
                    "attempts, and report per dimension (and pooled) how often their "
                    "verdicts (A, B or draw; a jury's output: the jury's) agree: the share "
                    "agreeing, Cohen's kappa with a 95%% percentile-bootstrap interval over "
                    "pairs, the confusion matrix, and the pairs only one output holds.")
    p.add_argument("a", type=Path, metavar="OUT_A",
                   help="an output directory (--out DIR of judge), or its pairwise.jsonl")
    p.add_argument("b", type=Path, metavar="OUT_B", help="the other one")
    p.add_argument("--seed", type=int, default=None, help="seed of the bootstrap interval")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def _records_path(path: Path) -> Path:
    from judgekit.errors import InputError
    from judgekit.report.outdir import RECORDS

    records = path / RECORDS if path.is_dir() else path
    if not records.is_file():
        raise InputError(records, None, "not found (compare takes the output directory of "
                                        "`judgekit judge --out DIR`, or its pairwise.jsonl)")
    return records


def _judge(records: Path) -> str | None:
    """The judge (or jury) the summary beside the records names."""
    from judgekit.outputs import SUMMARY_FILE
    from judgekit.report.load import load_summary

    summary = records.parent / SUMMARY_FILE
    if not summary.is_file():
        return None
    run = load_summary(summary).pairwise_run
    return run.judge if run is not None else None


def run(args: argparse.Namespace) -> int:
    from judgekit import stats
    from judgekit.pairwise.compare import compare_outputs
    from judgekit.pairwise import PairRecord
    from judgekit.report.load import load_records

    paths = [_records_path(p) for p in (args.a, args.b)]
    records = [load_records(p, PairRecord) for p in paths]
    judges = [_judge(p) for p in paths]
    result = compare_outputs(records[0], records[1], path_a=str(paths[0]),
                             path_b=str(paths[1]), judge_a=judges[0], judge_b=judges[1],
                             seed=stats.DEFAULT_SEED if args.seed is None else args.seed)
    if args.json:
        print_json(result.model_dump(mode="json"))
    else:
        _print(result)
    return 0


def _num(x: float | None) -> str:
    return "n/a" if x is None else f"{x + 0.0:.3f}"


def _row(name: str, d: DimensionAgreement) -> str:
    ci = f"[{_num(d.kappa_ci[0])}, {_num(d.kappa_ci[1])}]" if d.kappa_ci else ""
    return (f"{name:<14}{d.n:>6}{d.agreeing:>7}  {_num(d.share_agreeing):>6}  "
            f"{_num(d.kappa):>6}  {ci}").rstrip()


def _print(result: OutputComparison) -> None:
    for side, path, judge in (("A", result.a, result.judge_a), ("B", result.b, result.judge_b)):
        print(f"{side}: {path}" + (f" (judge {judge})" if judge else ""))
    left = ", ".join(f"{n} {why}" for why, n in result.left_out.items()) or "none"
    print(f"pairs: {result.n_matched} in both, {result.only_in_a} only in A, "
          f"{result.only_in_b} only in B; items left out: {left}")
    print(f"{'dimension':<14}{'items':>6}{'agree':>7}  {'share':>6}  {'kappa':>6}  95% CI "
          "(percentile bootstrap over pairs)")
    for dim, d in result.by_dimension.items():
        print(_row(dim, d))
    print(_row("all", result.pooled))
    notes = [f"{dim}: {d.kappa_note}" for dim, d in
             [*result.by_dimension.items(), ("all", result.pooled)] if d.kappa_note]
    for note in notes:
        print(f"  ({note})")
