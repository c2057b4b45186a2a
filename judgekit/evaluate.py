"""``evaluate``: load → score → judge pairs → audit failures, in one call.

Example:
    >>> from judgekit import evaluate
    >>> result = evaluate(["examples/bobbin"])          # doctest: +SKIP
    >>> result.summary.arms["with-bobbin"].f1           # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from judgekit import stats
from judgekit.diffs import DEFAULT_INFRA_PATHS
from judgekit.engine.accounting import JudgeRun
from judgekit.gcpause import collector_paused
from judgekit.runs.load import LoadReport, load_runs_report, no_results
from judgekit.runs.adapters import Adapter
from judgekit.runs.enrich import EnrichReport
from judgekit.runs.models import RunResult
from judgekit.scoring.models import ScoredResult, ScoreSummary
from judgekit.scoring.score import Similarity, score, score_rows, summarise
from judgekit.scoring.stream import iter_scored


class JudgedPart(Protocol):
    """What a judging step (pairwise, audit) hands back to :class:`EvalResult`."""

    def summary_entries(self) -> dict[str, Any]:
        """Top-level entries it adds to ``summary.json`` (e.g. ``{"pairwise": {...}}``)."""
        ...

    @property
    def records(self) -> Sequence[Any]:
        """Its per-item records (``PairRecord`` or ``AuditRecord``)."""
        ...

    def records_jsonl(self) -> str:
        """Its per-item records, one JSON object a line."""
        ...


@dataclass
class EvalResult:
    """Everything one evaluation produced. ``summary_dict()`` is what ``summary.json`` holds."""

    summary: ScoreSummary
    runs: list[RunResult] = field(default_factory=list, repr=False)
    pairwise: JudgedPart | None = None
    audit: JudgedPart | None = None
    notes: list[str] = field(default_factory=list)
    enrichment: EnrichReport | None = None
    #: the judge model, how it was asked and what it received (``summary["judge"]``).
    judge: JudgeRun | None = None

    def summary_dict(self) -> dict[str, Any]:
        data = self.summary.model_dump(mode="json")
        for part in (self.pairwise, self.audit):
            if part is not None:
                data.update(part.summary_entries())
        if self.judge is not None:
            data["judge"] = self.judge.model_dump(mode="json")
        if self.notes:
            data["notes"] = list(self.notes)
        return data


def _similarity(enabled: bool) -> Similarity | None:
    if not enabled:
        return None
    try:
        from judgekit.index import diff_similarities, index_available
    except ImportError:
        return None
    return diff_similarities if index_available() else None


class _Pending:
    """The evaluation's result, made once its score summary is: in the first steps the
    engine runs between calls (:meth:`steps`), or when first needed (:meth:`result`)."""

    def __init__(self, runs: list[RunResult], enrichment: EnrichReport | None, *,
                 rows: Sequence[ScoredResult], make: Callable[[], ScoreSummary]) -> None:
        self.rows = rows
        self._runs, self._enrichment, self._make = runs, enrichment, make
        self._result: EvalResult | None = None

    def result(self) -> EvalResult:
        if self._result is None:
            self._result = EvalResult(runs=self._runs, summary=self._make(),
                                      enrichment=self._enrichment)
        return self._result

    def steps(self, then: Callable[[EvalResult], Iterable[object]] | None
              ) -> Iterator[object]:
        """The summary (one step), then ``then``'s work on the result."""
        result = self.result()
        yield None
        if then is not None:
            yield from then(result)


def evaluate(
    paths: str | Path | Sequence[str | Path] | Sequence[RunResult],
    *,
    judge: Any | None = None,
    pairwise: bool = True,
    audit: bool = True,
    exclude: Sequence[str] = DEFAULT_INFRA_PATHS,
    mixed_models: bool = False,
    seed: int | None = None,
    similarity: bool = False,
    pairwise_options: Any | None = None,
    audit_options: Any | None = None,
    tasks: Sequence[str | Path] | None = None,
    keep_runs: bool = True,
    adapters: Sequence[Adapter] | None = None,
    while_judging: Callable[[EvalResult], Iterable[object]] | None = None,
    audit_jury: bool = False,
) -> EvalResult:
    """Load runs (or take loaded results), score them, and judge them when a judge is given.

    ``judge`` is an :class:`judgekit.engine.EngineConfig` or a model name such as
    ``"anthropic:claude-sonnet-4-5"``; without one only scoring runs. ``tasks`` names suite
    files whose tasks fill fields the run files leave out (see :mod:`judgekit.runs.enrich`);
    what they filled is ``result.enrichment``. ``adapters`` replaces the default readers of
    other harnesses' files (e.g. ``make_adapters(swebench_logs=...)``).
    ``while_judging`` is given the scored result and returns work that does not depend on
    the verdicts (e.g. :meth:`judgekit.report.PreparedParts.steps`); the engine advances it
    between model calls (:meth:`judgekit.engine.Engine.between_calls`).
    ``judge`` may also be a list of them: a jury (:mod:`judgekit.pairwise.jury`), each
    judging every pair in turn; the audit is the first judge's, or with ``audit_jury``
    each judge's, the majority classifying each result (:mod:`judgekit.audit.jury`).
    ``similarity=True`` adds the embedding similarity of diffs (the index extra); it is off
    by default. Load-time warnings (files reached twice, duplicate results, skipped files)
    head ``summary.warnings``. ``keep_runs=False`` (only without a judge and without
    ``tasks``) scores results as they are read and keeps none of them in ``runs``: memory
    then holds scores, not diffs.
    """
    load_warnings: list[str] = []
    sim = _similarity(similarity)
    seed_value = stats.DEFAULT_SEED if seed is None else seed
    if not keep_runs and judge is None and not tasks and sim is None and not (
            isinstance(paths, (list, tuple)) and paths and isinstance(paths[0], RunResult)):
        report = LoadReport()
        with collector_paused():
            rows = list(iter_scored(paths, exclude=exclude,  # type: ignore[arg-type]
                                    report=report, adapters=adapters))
            if not rows:
                raise no_results(paths, report.warnings)  # type: ignore[arg-type]
            return EvalResult(summary=summarise(rows, mixed_models=mixed_models,
                                                seed=seed_value,
                                                load_warnings=report.warnings))
    if isinstance(paths, (list, tuple)) and paths and isinstance(paths[0], RunResult):
        runs = list(paths)  # type: ignore[arg-type]
    else:
        report = load_runs_report(paths, adapters=adapters)  # type: ignore[arg-type]
        runs, load_warnings = report.results, report.warnings
    enrichment = None
    if tasks:
        from judgekit.runs.enrich import enrich_tasks

        enrichment = enrich_tasks(runs, tasks)
    judging = judge is not None and (pairwise or audit)
    if sim is not None or not judging:
        summary = score(runs, exclude=exclude, mixed_models=mixed_models, seed=seed_value,
                        similarity=sim, load_warnings=load_warnings)
        if not judging:
            return EvalResult(runs=runs, summary=summary, enrichment=enrichment)
        pending = _Pending(runs, enrichment, rows=summary.results, make=lambda: summary)
    else:  # pairs need only the rows; the statistics are made while the first calls wait
        rows = score_rows(runs, exclude=exclude)
        pending = _Pending(runs, enrichment, rows=rows, make=lambda: summarise(
            rows, mixed_models=mixed_models, seed=seed_value, load_warnings=load_warnings))
    from judgekit.engine import Engine, EngineConfig

    configs = [j if isinstance(j, EngineConfig) else EngineConfig(model=str(j))
               for j in (judge if isinstance(judge, (list, tuple)) else [judge])]
    config = configs[0]
    engine = Engine(config)
    engine.between_calls(pending.steps(while_judging))
    judged = None
    if pairwise and len(configs) > 1:
        judged = _judge_by_jury(runs, pending.rows, engine, configs, pairwise_options,
                                exclude=exclude)
    elif pairwise:
        from judgekit.pairwise import run_pairwise

        judged = run_pairwise(runs, pending.rows, engine, pairwise_options, exclude=exclude)
    result = pending.result()
    result.pairwise = judged
    if audit and audit_jury and len(configs) > 1:
        result.audit = _audit_by_jury(runs, result.summary, engine, configs, audit_options)
    elif audit:
        from judgekit.audit import run_audit

        result.audit = run_audit(runs, result.summary, engine, audit_options)
    if not config.dry_run:
        result.judge = engine.judge_run()
    return result


def _judge_by_jury(runs: Sequence[RunResult], rows: Sequence[ScoredResult], first: Any,
                   configs: Sequence[Any], options: Any | None, *,
                   exclude: Sequence[str]) -> JudgedPart:
    """Pairwise judging by each judge in turn (``first`` is the first judge's engine), then
    the jury's verdicts. A cost cap holds for the jury as a whole: each judge may spend
    what the judges before it left."""
    from judgekit.engine import Engine
    from judgekit.pairwise import PairwiseOptions, run_pairwise
    from judgekit.pairwise.jury import Juror, JuryReport, juror_labels

    options = options or PairwiseOptions()
    labels = juror_labels([(c.model, c.base_url) for c in configs])
    jurors, spent = [], 0.0
    for k, (label, config) in enumerate(zip(labels, configs)):
        engine = first
        if k:
            if config.max_cost_usd is not None:
                left = max(config.max_cost_usd - spent, 1e-9)
                config = config.model_copy(update={"max_cost_usd": left})
            engine = Engine(config)
        report = run_pairwise(runs, rows, engine, options, exclude=exclude)
        spent += engine.spent_usd
        jurors.append(Juror(label, config.model, config.base_url, report))
    cap, others = first.config.max_cost_usd, spent - first.spent_usd
    if cap is not None and others > 0:  # what the first judge's engine does next (the
        # audit) may spend only what the whole jury left
        first.config = first.config.model_copy(
            update={"max_cost_usd": max(cap - others, 1e-9)})
    return JuryReport(jurors, rule=options.jury_rule)


def _audit_by_jury(runs: Sequence[RunResult], summary: ScoreSummary, first: Any,
                   configs: Sequence[Any], options: Any | None) -> JudgedPart:
    """The audit by each judge in turn (``first`` is the first judge's engine), then the
    jury's classification; a cost cap holds for the jury as a whole."""
    from judgekit.audit import AuditOptions, run_audit
    from judgekit.audit.jury import AuditJuror, AuditJuryReport
    from judgekit.engine import Engine
    from judgekit.pairwise.jury import juror_labels

    options = options or AuditOptions()
    labels = juror_labels([(c.model, c.base_url) for c in configs])
    jurors, spent = [], first.spent_usd
    for k, (label, config) in enumerate(zip(labels, configs)):
        engine = first
        if k:
            if config.max_cost_usd is not None:
                config = config.model_copy(
                    update={"max_cost_usd": max(config.max_cost_usd - spent, 1e-9)})
            engine = Engine(config)
        before = engine.spent_usd
        report = run_audit(runs, summary, engine, options)
        spent += engine.spent_usd - before
        jurors.append(AuditJuror(label, config.model, config.base_url, report))
    return AuditJuryReport(jurors, min_runs=options.min_runs)
