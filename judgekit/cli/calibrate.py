"""``judgekit calibrate VERDICTS --labels LABELS.csv``: audit verdicts against human labels."""

from __future__ import annotations

import argparse
from pathlib import Path

from judgekit.cli._common import print_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "calibrate", help="compare audit verdicts with human labels (agreement, kappa)",
        description="Compare task-level audit verdicts (each task's majority over its "
                    "results) with human labels: agreement, Cohen's kappa with a 95% "
                    "interval, and the confusion matrix.")
    p.add_argument("verdicts", type=Path, metavar="VERDICTS",
                   help="an audit.jsonl, or the directory holding it")
    p.add_argument("--labels", type=Path, required=True, metavar="LABELS.csv",
                   help="CSV with columns task_id,label (label 1: defect of the task)")
    p.add_argument("--seed", type=int, default=None, help="seed of the bootstrap interval")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from judgekit import stats
    from judgekit.audit.calibrate import calibrate, load_labels, load_verdicts, task_scores

    verdicts = task_scores(load_verdicts(args.verdicts))
    labels = load_labels(args.labels)
    result = calibrate(verdicts, labels,
                       seed=stats.DEFAULT_SEED if args.seed is None else args.seed)
    if args.json:
        print_json(result.model_dump(mode="json"))
        return 0
    f = lambda x: "n/a" if x is None else f"{x:.3f}"  # noqa: E731
    print(f"tasks compared: {result.n} ({len(result.labels_without_verdict)} labels without "
          f"verdict, {len(result.verdicts_without_label)} verdicts without label)")
    print(f"agreement:      {f(result.agreement)}")
    ci = result.kappa_ci
    print(f"Cohen's kappa:  {f(result.kappa)}"
          + (f"  95% CI [{ci[0]:.3f}, {ci[1]:.3f}] (bootstrap, {result.resamples} resamples)"
             if ci else ""))
    c = result.confusion
    print("confusion:            human 1  human 0")
    print(f"  judge 1 (defect)   {c['judge_1_human_1']:>7}  {c['judge_1_human_0']:>7}")
    print(f"  judge 0 (agent)    {c['judge_0_human_1']:>7}  {c['judge_0_human_0']:>7}")
    if result.disagreements:
        print("disagreements:  " + ", ".join(result.disagreements))
    return 0
