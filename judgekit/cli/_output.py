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
from typing import TYPE_CHECKING, Any

from judgekit.engine.accounting import JudgeRun
from judgekit.errors import ConfigError, JudgekitError
from judgekit.report.content import unknown_range
from judgekit.report.format import pct, printable
from judgekit.report.outdir import OUTPUT_FILES, remove_stale
from judgekit.ingest.models import ResultKey
from judgekit.outputs import SUMMARY_FILE
from judgekit.step_registry import STEPS
from judgekit.steps import AnyResult, StepKind
from judgekit.summary import EvalSummary
from judgekit.cli._common import say

if TYPE_CHECKING:
    from judgekit.evaluate import EvalResult

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
    summary = out / SUMMARY_FILE
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


def cache_line(judge: JudgeRun) -> str | None:
    """What the verdict cache answered, when it answered anything: every item, with no
    call made, said as such; the unscored items it served named with the flag that asks
    them again."""
    n = judge.from_cache
    if not n:
        return None
    items = f"{n} item{'s' if n != 1 else ''}"
    line = (f"verdict cache: no call made: all {items} answered from the cache (this model's "
            "earlier answers on this server; --no-cache asks again)" if not judge.calls
            else f"verdict cache: {items} answered from the cache, with no call")
    unscored = judge.from_cache_unscored
    if unscored:
        line += (f"; {unscored} of them unscored, as the cache holds them "
                 "(--retry-unscored asks them again)")
    return line


def _pass_rates(summary: EvalSummary) -> str:
    """Each arm's pass rate; the range its unknown outcomes leave open where it has any."""
    parts = []
    for name, a in summary.arms.items():
        unknown, upper = unknown_range(a)
        parts.append(f"{name} {pct(a.pass_rate)}" if not unknown else
                     f"{name} {pct(a.pass_rate)}–{pct(upper)} ({unknown} unknown)")
    return ", ".join(parts)


def closing_lines(summary: EvalSummary, report: Path | None, *,
                  judging_skipped: bool, asked: Sequence[StepKind[Any, Any]] = (),
                  parts: Sequence[AnyResult] = (), scored: bool = True) -> list[str]:
    """What happened, step by step: counts, spend, and where the report is. Every count is
    the one ``summary.json`` holds; each registered step says its own part
    (:class:`judgekit.steps.StepKind`), a step ``asked`` for that did not run says so,
    ``parts`` are the results of this run (e.g. which audit answers came from the cache;
    what the audit's records are of: results or benchmark items); ``scored`` False: no
    result was scored (an audit of benchmark items), so no scoring line;
    values from data are printable (no control sequences).

    When judging was skipped for want of a judge, the caller has said so in its own line.
    """
    arms = _pass_rates(summary)
    lines = [f"scored {len(summary.results)} results of "
             f"{len({r.task_id for r in summary.results})} tasks in {len(summary.arms)} arms"
             + (f" (pass rate: {arms})" if arms else "")] if scored else []
    ran = [kind for kind in STEPS if kind.ran(summary)]
    for kind in STEPS:
        if kind in ran:
            part = next((p for p in parts if p.kind is kind), None)
            lines.extend(kind.closing_lines(summary, part))
        elif kind in asked and not judging_skipped:
            lines.append(f"{kind.name}: not run")
    if summary.judge is not None:
        lines.append(judge_line(summary.judge))
        cached = cache_line(summary.judge)
        if cached is not None:
            lines.append(cached)
    if ran:
        spend = sum(kind.spend_usd(summary) for kind in ran)
        lines.append(f"spend: ${spend:.4f} in total")
    for kind in ran:
        what, names = kind.left_out_for_cost(summary)
        if names:
            lines.append(f"{what} for the cost cap: {', '.join(names[:5])}"
                         + (f" and {len(names) - 5} more" if len(names) > 5 else ""))
    if report is not None:
        lines.append(f"report: {report}")
    return [printable(line) for line in lines]


def tasks_line(result: EvalResult) -> str | None:
    """What ``--tasks`` filled and which tasks it could not match (one line), when the
    evaluation kept its enrichment report (``EvalResult.enrichment``)."""
    report = result.enrichment
    return printable(report.message()) if report is not None else None


def incomplete(summary: EvalSummary) -> bool:
    """Whether the cost cap left items unjudged."""
    return any(kind.n_left_out_for_cost(summary) for kind in STEPS)


def stop_detail(parts: Sequence[AnyResult]) -> str | None:
    """Why an engine stopped sending calls (a 401/403) in a step of this run, if one did."""
    return next((d for d in (p.stop_detail() for p in parts if not p.carried_over)
                 if d), None)


def report_failures(parts: Sequence[AnyResult]) -> int:
    """One stderr line per kind of failed call of each step run now; exit 1 when every
    call of a step failed."""
    code = 0
    for part in parts:
        if part.carried_over:
            continue
        failures = part.failures()
        for line in failures.lines:
            say(printable(line))
        code = max(code, int(failures.all_failed))
    return code
