"""``judgekit calibrate VERDICTS --labels FILE``: verdicts against labels a person gave.

Audit labels (CSV ``task_id,label``) are compared with the audit verdicts of
``audit.jsonl``; pairwise gold labels (CSV or JSON lines with ``task_id,arm_a,arm_b,
dimension,label``) with the pairwise verdicts of ``pairwise.jsonl``, per judge and for the
jury. When VERDICTS is an output directory, the result is kept in its ``calibration.json``
and the reports are rebuilt to show it.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judgekit.cli._common import print_json, say

if TYPE_CHECKING:
    from judgekit.audit.calibrate import Calibration
    from judgekit.audit.scales import ScaleCalibration
    from judgekit.pairwise.calibrate import JudgeAgreement, PairwiseCalibration

    Part = Calibration | PairwiseCalibration | ScaleCalibration


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "calibrate", help="compare audit or pairwise verdicts with human labels "
                          "(accuracy, kappa)",
        description="Compare verdicts with labels a person gave. Audit labels (CSV task_id,"
                    "label): each task's majority verdict against the labels (rows may be per "
                    "run: majority per task, ties reported and left out, blanks skipped): "
                    "agreement, Cohen's kappa with a 95% percentile-bootstrap interval over "
                    "tasks, the confusion matrix. Pairwise gold labels (CSV or JSONL with "
                    "task_id,arm_a,arm_b,dimension,label; label A, B or draw): per judge and "
                    "for the jury, accuracy, Cohen's kappa with an interval, the confusion "
                    "matrix and agreement excluding draws. Given an output directory, the "
                    "result is kept in its calibration.json and the reports show it.")
    p.add_argument("verdicts", type=Path, metavar="VERDICTS",
                   help="an output directory (--out DIR), or its audit.jsonl "
                        "or pairwise.jsonl")
    p.add_argument("--labels", type=Path, default=None, metavar="FILE",
                   help="audit labels: CSV with columns task_id,label (1: defect of the task; "
                        "0/1, 0.00/1.00, true/false or yes/no), one row per task or per run; "
                        "or pairwise gold labels: CSV or JSONL with task_id,arm_a,arm_b,"
                        "dimension,label (A, B or draw) (default: DIR/labels/pairwise.jsonl, "
                        "else DIR/labels/audit.jsonl: the labels judgekit review keeps, per "
                        "labeller and pooled)")
    p.add_argument("--label-column", metavar="NAME", default=None,
                   help="the audit label column (default: the first of label, human_label, "
                        "grade, final_grade, score)")
    scales = p.add_argument_group(
        "severity scales", "audit labels published as severity scores per question (e.g. "
                           "SWE-bench Verified's underspecified and false_negative, 0-3)")
    scales.add_argument("--label-columns", metavar="COL[,COL...]", default=None,
                        help="read these columns as severity scores; the id column is task_id "
                             "or instance_id")
    scales.add_argument("--label-threshold", metavar="T", type=float, default=None,
                        help="a score of at least T is a defect (default 2)")
    scales.add_argument("--label-map", metavar="COL=CATEGORY", action="append", default=None,
                        help="compare column COL with the rubric category CATEGORY (id or "
                             "name; default: the column's own name); repeatable")
    scales.add_argument("--rater-column", metavar="NAME", default=None,
                        help="the column naming the rater, when several raters' rows are "
                             "given (adds their agreement, Krippendorff's alpha)")
    p.add_argument("--target-width", type=float, default=None, metavar="W",
                   help="say how many more randomly chosen labels would bring each "
                        "prediction-powered (PPI++) interval to ±W (e.g. 0.05), planned from "
                        "the labels' variance; the review app shows progress toward it")
    p.add_argument("--labels-random", action="store_true",
                   help="the items of the --labels file were chosen uniformly at random "
                        "(its rows need not say so in a chosen column): its labels enter the "
                        "prediction-powered estimates")
    p.add_argument("--seed", type=int, default=None, help="seed of the bootstrap interval")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def _num(x: float | None) -> str:
    return "n/a" if x is None else f"{x + 0.0:.3f}"


def _output_dir(verdicts: Path) -> Path | None:
    """The output directory VERDICTS names, when it is one (it holds summary.json)."""
    from judgekit.outputs import SUMMARY_FILE

    return verdicts if verdicts.is_dir() and (verdicts / SUMMARY_FILE).is_file() else None


def _keep(verdicts: Path, parts: list[Part]) -> None:
    """Keep ``parts`` in the output directory's calibration.json and rebuild its reports."""
    out = _output_dir(verdicts)
    if out is None:
        return
    from judgekit.report import write_report_files
    from judgekit.report.calibration import read_calibration, write_calibration
    from judgekit.report.load import load_report_dir

    inputs = load_report_dir(out)  # every file the reports read, read before any is written
    for part in parts:
        path = write_calibration(out, part)
    inputs.calibration = read_calibration(out)
    reports = write_report_files(inputs, out)
    say(f"wrote {path}; reports rebuilt: {reports[0]}")


def _default_labels(verdicts: Path) -> list[Path]:
    """The labels ``judgekit review`` kept in the output directory VERDICTS: the pairwise
    ones and the audit ones, those that exist."""
    from judgekit.errors import ConfigError
    from judgekit.outputs import LABELS_DIR
    from judgekit.review.labels import AUDIT_FILE, PAIRWISE_FILE

    path = verdicts / LABELS_DIR / PAIRWISE_FILE
    found = [p for p in (path, verdicts / LABELS_DIR / AUDIT_FILE)
             if verdicts.is_dir() and p.is_file()]
    if not found:
        raise ConfigError(f"give {{option:labels}} FILE ({path} does not exist; "
                          "`judgekit review` writes it)")
    return found


def run(args: argparse.Namespace) -> int:
    from judgekit.pairwise.gold import is_pairwise_labels

    scale_flags = (args.label_threshold, args.label_map, args.rater_column)
    if args.label_columns is not None:
        if args.labels is None:
            from judgekit.errors import ConfigError

            raise ConfigError("--label-columns reads a labels file: give --labels FILE")
        return _run_scales(args)
    if any(x is not None for x in scale_flags):
        from judgekit.errors import ConfigError

        raise ConfigError("--label-threshold, --label-map and --rater-column read severity "
                          "scales: name the columns with --label-columns")
    if args.target_width is not None and not 0 < args.target_width < 1:
        from judgekit.errors import ConfigError

        raise ConfigError(f"{{option:target_width}} {args.target_width:g}: give a half-width "
                          "between 0 and 1 (0.05: ±5 points)")
    files = [args.labels] if args.labels is not None else _default_labels(args.verdicts)
    shown: list[tuple[Part, Callable[[Any], None]]] = []
    for path in files:
        if not _is_review_audit_labels(path) and path.is_file() and is_pairwise_labels(path):
            shown.append(_run_pairwise(args, path))
        else:
            shown.append(_run_audit(args, path))
    return _show_all(args, shown)


def _is_review_audit_labels(path: Path) -> bool:
    """``labels/audit.jsonl`` of an output directory: JSON lines, read as judgekit review
    writes them."""
    from judgekit.outputs import LABELS_DIR
    from judgekit.review.labels import AUDIT_FILE

    return path.name == AUDIT_FILE and path.parent.name == LABELS_DIR


def _review_pairwise_labels(path: Path, check: Any) -> Any:
    """``labels/pairwise.jsonl`` of an output directory, read as judgekit review writes it
    (lines not whole reported and left out); None for any other file."""
    from judgekit.outputs import LABELS_DIR
    from judgekit.review.labels import PAIRWISE_FILE, pairwise_gold_set

    if path.name != PAIRWISE_FILE or path.parent.name != LABELS_DIR:
        return None
    bad: list[str] = []
    gold = pairwise_gold_set(path.parent.parent, check.pair_fresh if check else None, bad)
    _say_bad(bad)
    return gold


def _say_bad(bad: list[str]) -> None:
    """One line per label line left out as not whole (the file is not changed)."""
    for line in bad:
        say(f"calibrate: left out, kept in the file: {line}")


def _label_check(verdicts: Path) -> Any:
    """What tells stale labels (given to content that has changed since) of an output
    directory; None for a records file alone."""
    from judgekit.outputs import SUMMARY_FILE

    if not (verdicts / SUMMARY_FILE).is_file():
        return None
    from judgekit.review.stale import label_check

    return label_check(verdicts)


def _run_audit(args: argparse.Namespace, path: Path
               ) -> tuple[Calibration, Callable[[Any], None]]:
    from judgekit import stats
    from judgekit.audit.calibrate import (ItemLabel, calibrate, corrected_shares,
                                          load_verdicts, read_labels, task_scores)

    records = load_verdicts(args.verdicts)
    verdicts = task_scores(records)
    if _is_review_audit_labels(path):
        from judgekit.review.labels import audit_label_set
        from judgekit.review.sampling import audit_item_labels

        check = _label_check(args.verdicts)
        fresh = check.audit_fresh if check else None
        bad: list[str] = []
        labels = audit_label_set(path.parent.parent, fresh, bad)
        _say_bad(bad)
        item_labels, unit = audit_item_labels(path.parent.parent, fresh), "result"
    else:
        labels = read_labels(path, args.label_column)
        item_labels = {task: ItemLabel(label=value, random=args.labels_random)
                       for task, value in labels.labels.items()}
        unit = "task"
    result = calibrate(verdicts, labels,
                       seed=stats.DEFAULT_SEED if args.seed is None else args.seed)
    from judgekit.audit.records import ITEM_ARM

    items_only = bool(records) and all(r.arm == ITEM_ARM for r in records)  # an item audit
    result.corrected_unit = "item" if items_only else unit
    result.corrected = corrected_shares(records, item_labels, unit=unit,
                                        target_half_width=args.target_width)
    return result, lambda r: _print_audit(r, labels.rows, labels.column, labels.blank,
                                          labels.ties)


def _show_all(args: argparse.Namespace, shown: list[tuple[Part, Callable[[Any], None]]]
              ) -> int:
    """Print each result (JSON with --json: the one result, or each by its kind; else its
    text), keep them in the output directory."""
    if args.json:
        dumps = [(_kind(part), part.model_dump(mode="json")) for part, _ in shown]
        print_json(dumps[0][1] if len(dumps) == 1 else dict(dumps))
    else:
        for part, text in shown:
            if len(shown) > 1:
                print(f"== {_kind(part)} labels ==")
            text(part)
    _keep(args.verdicts, [part for part, _ in shown])
    return 0


def _show(args: argparse.Namespace, result: Part, text: Callable[[Any], None]) -> int:
    return _show_all(args, [(result, text)])


def _kind(part: Part) -> str:
    from judgekit.audit.scales import ScaleCalibration
    from judgekit.pairwise.calibrate import PairwiseCalibration

    return ("pairwise" if isinstance(part, PairwiseCalibration) else "audit_scales"
            if isinstance(part, ScaleCalibration) else "audit")


def _label_map(pairs: list[str] | None, columns: list[str]) -> dict[str, str]:
    from judgekit.errors import ConfigError

    out = {}
    for text in pairs or []:
        col, sep, category = text.partition("=")
        if not sep or not col.strip() or not category.strip():
            raise ConfigError(f"--label-map {text!r}: expected COL=CATEGORY")
        if col.strip() not in columns:
            raise ConfigError(f"--label-map {text!r}: {col.strip()!r} is not one of "
                              f"--label-columns ({', '.join(columns)})")
        out[col.strip()] = category.strip()
    return out


def _category_names(verdicts: Path) -> dict[str, str]:
    """Rubric category id -> name, of the rubric named in the summary beside the verdicts
    (empty when there is none)."""
    from judgekit.audit.rubric import load_rubric
    from judgekit.errors import JudgekitError
    from judgekit.outputs import SUMMARY_FILE
    from judgekit.report.load import load_summary

    summary = (verdicts if verdicts.is_dir() else verdicts.parent) / SUMMARY_FILE
    if not summary.is_file():
        return {}
    audit = load_summary(summary).audit
    if audit is None or not audit.rubric:
        return {}
    try:
        rubric = load_rubric(audit.rubric)
    except JudgekitError:
        return {}
    return {c.id: c.name for c in rubric.categories}


def _run_scales(args: argparse.Namespace) -> int:
    from judgekit import stats
    from judgekit.audit.calibrate import load_verdicts
    from judgekit.audit.scales import DEFAULT_THRESHOLD, calibrate_scales, read_scale_labels
    from judgekit.errors import ConfigError

    columns = [c.strip() for c in args.label_columns.split(",") if c.strip()]
    if not columns:
        raise ConfigError("--label-columns names no column")
    label_map = _label_map(args.label_map, columns)
    threshold = DEFAULT_THRESHOLD if args.label_threshold is None else args.label_threshold
    records = load_verdicts(args.verdicts)
    labels = read_scale_labels(args.labels, columns, threshold=threshold,
                               rater_column=args.rater_column)
    result = calibrate_scales(records, labels, label_map=label_map,
                              category_names=_category_names(args.verdicts),
                              seed=stats.DEFAULT_SEED if args.seed is None else args.seed)
    return _show(args, result, _print_scales)


def _print_scales(result: Any) -> None:
    print(f"labels:         {result.label_rows} rows of {result.labels_file}, columns "
          f"{', '.join(result.label_columns)} (a score of at least {result.label_threshold:g} "
          f"is a defect); {result.n_items_labelled} items labelled, "
          f"{result.n_items_without_label} without a label, {len(result.label_ties)} tied")
    print(f"items compared: {result.n} ({result.n_labels_without_verdict} labels without "
          f"verdict, {result.n_verdicts_without_label} verdicts without label)")
    _print_kappa(result, "items", "none", note=False)
    print(f"precision / recall of defect calls: {_num(result.judge_ife_precision)} / "
          f"{_num(result.judge_ife_recall)}")
    for col, cal in result.categories.items():
        category = result.label_map.get(col, col)
        print(f"  {col} (category {category}): {cal.n} items, agreement "
              f"{_num(cal.agreement)}, kappa {_num(cal.kappa)}, precision "
              f"{_num(cal.judge_ife_precision)}, recall {_num(cal.judge_ife_recall)}")
    for name, own in result.judges.items():
        print(f"  judge {name}: {own.n} items, agreement {_num(own.agreement)}, kappa "
              f"{_num(own.kappa)}")
    if result.inter_rater is not None:
        ir = result.inter_rater
        ci = f" [{_num(ir.alpha_ci[0])}, {_num(ir.alpha_ci[1])}]" if ir.alpha_ci else ""
        print(f"raters:         {ir.n_raters} raters; Krippendorff's alpha (defect calls) "
              f"{_num(ir.alpha)}{ci} over {ir.n_items} items")
        for col, a in result.inter_rater_by_column.items():
            print(f"  {col} scores: alpha {_num(a.alpha)} over {a.n_items} items")


def _print_kappa(result: Calibration, over: str, zero: str, *, note: bool) -> None:
    """Agreement, Cohen's kappa with its interval over ``over`` (and, with ``note``, why it
    is rough or not given), and the confusion matrix; a judge's 0 is called ``zero``."""
    print(f"agreement:      {_num(result.agreement)}")
    print("Cohen's kappa:  " + _kappa_text(result.kappa, result.kappa_ci, over,
                                             result.resamples, result.seed))
    if note and result.kappa_note:
        print(f"                ({result.kappa_note})")
    c = result.confusion
    print("confusion:            human 1  human 0")
    print(f"  judge 1 (defect)   {c['judge_1_human_1']:>7}  {c['judge_1_human_0']:>7}")
    print(f"  {f'judge 0 ({zero})':<19}{c['judge_0_human_1']:>7}  {c['judge_0_human_0']:>7}")


def _print_audit(result: Calibration, rows: int, column: str, blank: int,
                 ties: list[str]) -> None:
    print(f"tasks compared: {result.n} ({len(result.labels_without_verdict)} labels without "
          f"verdict, {len(result.verdicts_without_label)} verdicts without label)")
    print(f"labels:         {rows} rows of column {column!r}, {blank} "
          f"blank (skipped), {len(ties)} tied task(s) left out"
          + (f": {', '.join(ties)}" if ties else "")
          + (f"; {result.stale_labels} stale labels left out (given to content that has "
             "changed since)" if result.stale_labels else ""))
    _print_kappa(result, "tasks", "agent", note=True)
    if result.disagreements:
        print("disagreements:  " + ", ".join(result.disagreements))
    from judgekit.report.calibration_view import audit_labeller_lines

    for line in audit_labeller_lines(result):
        print(line)
    _print_corrected(result.corrected, result.corrected_unit or "result")


def _pair_records_path(verdicts: Path) -> Path:
    from judgekit.errors import InputError
    from judgekit.report.outdir import RECORDS

    path = verdicts / RECORDS if verdicts.is_dir() else verdicts
    if not path.is_file():
        raise InputError(path, None, "no pairwise.jsonl found (pairwise labels are compared "
                                     "with the records `judgekit judge --out DIR` writes)")
    return path


def _default_judge(records_path: Path) -> str:
    """The judge named in the summary beside the records, else ``judge``."""
    from judgekit.pairwise.calibrate import DEFAULT_JUDGE
    from judgekit.outputs import SUMMARY_FILE
    from judgekit.report.load import load_summary

    summary_path = records_path.parent / SUMMARY_FILE
    if not summary_path.is_file():
        return DEFAULT_JUDGE
    run = load_summary(summary_path).pairwise_run
    return (run.judge if run is not None and run.judge else DEFAULT_JUDGE)


def _run_pairwise(args: argparse.Namespace, path: Path
                  ) -> tuple[PairwiseCalibration, Callable[[Any], None]]:
    from judgekit import stats
    from judgekit.pairwise.calibrate import calibrate_pairwise
    from judgekit.pairwise.gold import read_gold
    from judgekit.pairwise import PairRecord
    from judgekit.report.load import load_records

    records_path = _pair_records_path(args.verdicts)
    records = load_records(records_path, PairRecord)
    check = _label_check(args.verdicts)
    gold = _review_pairwise_labels(path, check) or \
        read_gold(path, check.pair_fresh if check else None)
    result = calibrate_pairwise(
        records, gold, default_judge=_default_judge(records_path),
        labels_file=path.name,
        seed=stats.DEFAULT_SEED if args.seed is None else args.seed,
        every_label_random=args.labels_random, target_half_width=args.target_width)
    return result, _print_pairwise


def _kappa_text(kappa: float | None, ci: Any, over: str, resamples: int, seed: int) -> str:
    """Cohen's kappa, and its bootstrap interval over ``over`` when there is one."""
    interval = (f"  95% CI [{_num(ci[0])}, {_num(ci[1])}] (percentile bootstrap over {over}, "
                f"{resamples} resamples, seed {seed})" if ci else "")
    return _num(kappa) + interval


def _print_agreement(name: str, a: JudgeAgreement, resamples: int, seed: int) -> None:
    from judgekit.pairwise.calibrate import LABELS

    print(f"{name}: {a.n} items of {a.n_pairs} compared pairs")
    print(f"  accuracy:                  {_num(a.accuracy)}")
    print("  Cohen's kappa:             " + _kappa_text(a.kappa, a.kappa_ci, "compared pairs",
                                                      resamples, seed))
    if a.kappa_note:
        print(f"                             ({a.kappa_note})")
    print(f"  agreement excluding draws: {_num(a.agreement_excluding_draws)} "
          f"({a.n_decisive} items where neither says draw)")
    print("  confusion (verdict by rows, gold label by columns):"
          + "".join(f"{g:>6}" for g in LABELS))
    for j in LABELS:
        print(f"    {j:<48}" + "".join(f"{a.confusion.get(f'judge_{j}_gold_{g}', 0):>6}"
                                       for g in LABELS))
    if a.by_dimension:
        print("  by dimension: " + ", ".join(
            f"{dim} {_num(d.accuracy)} of {d.n}" for dim, d in a.by_dimension.items()))


def _print_pairwise(result: PairwiseCalibration) -> None:
    left = ", ".join(f"{n} {why}" for why, n in result.left_out.items()) or "none"
    print(f"labels:   {result.n_labels} pairwise gold labels of {result.labels_file} "
          f"({result.blank_labels} blank, skipped); {len(result.labels_without_verdict)} "
          f"without a verdict; left out: {left}; {result.n_verdicts_without_label} verdicts "
          "without a label" + (f"; {result.stale_labels} stale labels left out (given to "
                               "content that has changed since)" if result.stale_labels else ""))
    if not result.judges:
        print("no judge verdict matches a label")
    for name, a in result.judges.items():
        _print_agreement(f"judge {name}", a, result.resamples, result.seed)
    if result.jury is not None:
        _print_agreement("jury", result.jury, result.resamples, result.seed)
    else:
        print("jury: none (the records carry no jury verdict)")
    _print_labellers(result)
    from judgekit.report.calibration_view import pairwise_corrected
    from judgekit.report.judged import effective_text

    if result.effective_judges_errors is not None:
        print(effective_text(result.effective_judges_errors))

    _print_corrected(pairwise_corrected(result), "compared pair")


def _print_corrected(shares: dict[str, Any], unit: str) -> None:
    """Each share's four estimates with their intervals (the judge's marked uncorrected)."""
    from judgekit.report.calibration_view import CORRECTED_HEADER, corrected_rows

    if not shares:
        return
    print(f"corrected shares (per {unit}; 95% intervals; judge only is uncorrected; PPI "
          "valid only from labels of items chosen at random):")
    for row in corrected_rows(shares):
        print(f"  {row[0]}")
        for head, cell in zip(CORRECTED_HEADER[1:], row[1:]):
            if cell != "–":
                print(f"    {head + ':':<26}{cell}")


def _print_labellers(result: PairwiseCalibration) -> None:
    from judgekit.audit.calibrate import labeller_name
    from judgekit.report.calibration_view import labellers_sentence

    sentence = labellers_sentence(result)
    if sentence is None:
        return
    print(sentence)
    for who, c in result.labellers.items():
        for name, a in [*c.judges.items(), *([("jury", c.jury)] if c.jury else [])]:
            print(f"  {labeller_name(who)}: {name}: accuracy {_num(a.accuracy)} of {a.n}, "
                  f"Cohen's kappa " + _kappa_text(a.kappa, a.kappa_ci, "compared pairs",
                                                 result.resamples, result.seed))
