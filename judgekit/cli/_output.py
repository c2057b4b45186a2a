"""``--out DIR`` safety and the closing summary of ``score``, ``judge`` and ``audit``.

Before any work: ``--out`` onto a directory that holds another evaluation's output (other
results) or files that are not judgekit's is refused in one line unless ``--force``. After
the work: a few lines say what each step did (valid / unscored / error / skipped), what it
cost, and where the report is.

Example:
    >>> from judgekit.summary import EvalSummary
    >>> s = EvalSummary.model_validate({"results": [], "arms": {}, "comparisons": [],
    ...                                 "seed": 0})
    >>> closing_lines(s, None, judging_skipped=False)[0]
    'scored 0 results of 0 tasks in 0 arms'
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from judgekit.engine.accounting import JudgeRun
from judgekit.errors import ConfigError, JudgekitError
from judgekit.report.content import unknown_range
from judgekit.report.format import pct, printable
from judgekit.report.outdir import OUTPUT_FILES, remove_stale
from judgekit.ingest.models import ResultKey
from judgekit.summary import EvalSummary

#: Exit code of a run that left items unjudged because the cost cap was reached.
EXIT_INCOMPLETE = 3

def _keys_of_summary(path: Path) -> set[ResultKey] | None:
    """The results an earlier ``summary.json`` scored; ``None`` when it cannot be read."""
    from judgekit.report.load import load_summary

    try:
        summary = load_summary(path)
    except JudgekitError:
        return None
    return {ResultKey.of(r) for r in summary.results}


def _keys_of_inputs(paths: Sequence[str | Path], swebench_logs: Path | None) -> set[ResultKey]:
    from judgekit.ingest.load import load_runs

    adapters = None
    if swebench_logs is not None:
        from judgekit.ingest.adapters import make_adapters

        adapters = make_adapters(swebench_logs=swebench_logs)
    return {ResultKey.of(r) for r in load_runs(list(paths), adapters=adapters)}


def check_out_dir(out: Path, *, force: bool, paths: Sequence[str | Path],
                  swebench_logs: Path | None = None) -> None:
    """Refuse (``ConfigError``) to let ``out`` replace something the user may want to keep.

    A new or empty directory, or the output of the same evaluation (the same results), is
    fine. Another evaluation's output, or a directory of other files, needs ``force``.
    """
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} is a file; --out takes a directory")
    if not out.is_dir():
        return
    remove_stale(out.absolute())
    entries = [p.name for p in out.iterdir()]
    if not entries or force:
        return
    summary = out / "summary.json"
    foreign = sorted(n for n in entries if n not in OUTPUT_FILES)
    if not summary.is_file() and foreign:
        raise ConfigError(
            f"--out {out} holds files that are not judgekit output ({', '.join(foreign[:3])}"
            f"{', …' if len(foreign) > 3 else ''}); use a new directory, or --force to write "
            "beside them")
    before = _keys_of_summary(summary) if summary.is_file() else None
    if before is None:
        raise ConfigError(f"--out {out} holds judgekit files without a readable summary.json; "
                          "use a new directory, or --force to replace them")
    if before != _keys_of_inputs(paths, swebench_logs):
        raise ConfigError(f"--out {out} holds the output of another evaluation ({len(before)} "
                          "other results); use a new directory, or --force to replace it")


def _counts(valid: int, unscored: int, error: int, skipped: int,
            too_long: int = 0) -> str:
    why = f" ({too_long} too long for the judge's context window)" if too_long else ""
    return f"{valid} valid, {unscored} unscored, {error} error, {skipped} skipped{why}"


def judge_line(judge: JudgeRun) -> str:
    """One line: the judge, how it was asked, the requests its server received (retries
    included, as ``summary.json``'s ``judge.calls``) and the tokens as ``summary.json`` counts
    them (input tokens leave out the prompt cache's reads and writes, said apart)."""
    failed = ", ".join(f"{n} {cause}" for cause, n in sorted(judge.failed_calls.items()))
    mode = judge.structured_output
    how = ""
    if mode is not None:
        how = f"; verdicts as {mode.mode}"
        if mode.stepped_down:
            how += " (refused: " + ", ".join(s.mode for s in mode.stepped_down) + ")"
    window = ""
    if judge.context.window_tokens:
        window = (f"; context {judge.context.window_tokens} tokens"
                  f" ({judge.context.source}), {judge.context.n_fitted} requests cut to fit")
    cached = ""
    if judge.cache_read_tokens or judge.cache_write_tokens:
        cached = (f" (and through the prompt cache: {judge.cache_read_tokens} read, "
                  f"{judge.cache_write_tokens} written; ${judge.cost_usd:.4f} where "
                  f"${judge.cost_without_cache_usd:.4f} without it)")
    return (f"judge: {judge.model}: {judge.calls} requests sent (retries included), "
            f"{judge.answered} answered" + (f", failed: {failed}" if failed else "")
            + f"; tokens in {judge.input_tokens}{cached}, out {judge.output_tokens}"
            + how + window)


def _pass_rates(summary: EvalSummary) -> str:
    """Each arm's pass rate; the range its unknown outcomes leave open where it has any."""
    parts = []
    for name, a in summary.arms.items():
        unknown, upper = unknown_range(a)
        parts.append(f"{name} {pct(a.pass_rate)}" if not unknown else
                     f"{name} {pct(a.pass_rate)}–{pct(upper)} ({unknown} unknown)")
    return ", ".join(parts)


def _cached(n: int | None) -> str:
    if n is None:
        return ""
    return f"; {n} verdict{'s' if n != 1 else ''} from the cache"


def closing_lines(summary: EvalSummary, report: Path | None, *,
                  judging_skipped: bool, pairwise_asked: bool = True,
                  audit_asked: bool = True, audit_cached: int | None = None) -> list[str]:
    """What happened, step by step: counts, spend, and where the report is. Every count is
    the one ``summary.json`` holds (``audit_cached``: the audit's records answered from the
    cache, as ``audit.jsonl`` marks them); values from data are printable (no control
    sequences).

    When judging was skipped for want of a judge, the caller has said so in its own line.
    """
    arms = _pass_rates(summary)
    lines = [f"scored {len(summary.results)} results of "
             f"{len({r.task_id for r in summary.results})} tasks in {len(summary.arms)} arms"
             + (f" (pass rate: {arms})" if arms else "")]
    spend = 0.0
    run = summary.pairwise_run
    if run is not None:
        skipped = run.states.get("skipped", 0) or run.n_skipped_cost or 0
        cost = run.cost_usd
        spend += cost
        lines.append(f"pairwise: {run.n_pairs} pairs: "
                     + _counts(run.states.get("valid", 0), run.states.get("unscored", 0),
                               run.states.get("error", 0), skipped,
                               run.skipped.get("too_long_for_context", 0))
                     + f"; {run.n_calls} calls{_cached(run.n_cached)}; "
                       f"spend ${cost:.4f}")
        lines += anchor_lines(summary)
    elif pairwise_asked and not judging_skipped:
        lines.append("pairwise: not run")
    audit = summary.audit
    if audit is not None:
        cost = audit.cost_usd or 0.0
        spend += cost
        lines.append(f"audit: {audit.n_failed} results that did not pass: "
                     + _counts(audit.n_valid, audit.n_unscored, audit.n_error,
                               (audit.n_skipped_cost or 0) + sum(audit.skipped.values()),
                               audit.skipped.get("too_long_for_context", 0))
                     + f"{_cached(audit_cached)}; spend ${cost:.4f}")
        if audit.n_contradicted:
            lines.append(f"audit: {audit.n_contradicted} verdicts of score 1 contradicted by a "
                         "verified pass of the same task (listed apart in summary.json)")
    elif audit_asked and not judging_skipped:
        lines.append("audit: not run")
    if summary.judge is not None:
        lines.append(judge_line(summary.judge))
    if run is not None or audit is not None:
        lines.append(f"spend: ${spend:.4f} in total")
    for what, names in (("not judged", run.skipped_cost if run is not None else []),
                        ("not audited", audit.skipped_cost if audit is not None else [])):
        if names:
            lines.append(f"{what} for the cost cap: {', '.join(names[:5])}"
                         + (f" and {len(names) - 5} more" if len(names) > 5 else ""))
    if report is not None:
        lines.append(f"report: {report}")
    return [printable(line) for line in lines]


def anchor_lines(summary: EvalSummary) -> list[str]:
    """One line per anchor with anchored pairs: the judge's (or the jury's) verdicts held
    against the tests and the fix, as ``summary.json`` holds them."""
    rel = summary.pairwise.judge_reliability if summary.pairwise is not None else None
    anchors = rel.anchors if rel is not None else None
    if anchors is None:
        return []
    out = []
    for what, wrong, check in (("tests", "the failing side", anchors.tests),
                               ("fix", "the side outside the fix", anchors.fix)):
        if not check.n_pairs:
            continue
        share = "–" if check.share_wrong is None else f"{100 * check.share_wrong:.0f}%"
        out.append(f"anchors ({what}): {check.n_pairs} anchored pairs, {check.n} with a "
                   f"verdict; {check.dimension} favoured {wrong} in {share}"
                   + ("; flagged" if check.flagged else ""))
    return out


def audit_cached(result: object) -> int | None:
    """How many of the audit's records were answered from the cache (``None``: no audit
    was run now, or its verdicts were carried over from a judged output)."""
    audit = getattr(result, "audit", None)
    if getattr(audit, "carried_over", False):
        return None
    records = getattr(audit, "records", None)
    return None if records is None else sum(1 for r in records if getattr(r, "cached", False))


def tasks_line(result: object) -> str | None:
    """What ``--tasks`` filled and which tasks it could not match (one line), when the
    evaluation kept its enrichment report (``EvalResult.enrichment``)."""
    report = getattr(result, "enrichment", None)
    return printable(report.message()) if report is not None else None


def incomplete(summary: EvalSummary) -> bool:
    """Whether the cost cap left items unjudged."""
    return bool((summary.pairwise_run and summary.pairwise_run.n_skipped_cost)
                or (summary.audit and summary.audit.n_skipped_cost))
