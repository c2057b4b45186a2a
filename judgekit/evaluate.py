"""``evaluate``: load → score → judge pairs → audit failures, in one call.

The evaluation is one pipeline, :func:`run_pipeline`: load and score the results, then run
a list of steps (:class:`judgekit.steps.Step`), each returning a
:class:`judgekit.steps.StepResult`. :func:`evaluate` runs :func:`judging_steps`; the
``score``, ``judge`` and ``audit`` commands run the same pipeline with their own steps
(none, pairwise and audit, the audit alone).

Example:
    >>> from judgekit import evaluate
    >>> result = evaluate(["examples/bobbin"])          # doctest: +SKIP
    >>> result.summary.arms["with-bobbin"].f1           # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judgekit import stats
from judgekit.diffs import DEFAULT_INFRA_PATHS
from judgekit.engine.accounting import JudgeRun
from judgekit.gcpause import collector_paused
from judgekit.ingest.load import LoadResult, load_runs_result, no_results
from judgekit.ingest.adapters import Adapter
from judgekit.ingest.enrich import Enrichment
from judgekit.ingest.models import RunResult
from judgekit.scoring.models import ScoredResult, ScoreSummary
from judgekit.scoring.score import Similarity, score_rows, summarise
from judgekit.scoring.step import ScoreResult, score_step
from judgekit.scoring.stream import iter_scored
from judgekit.steps import Step, StepResult

if TYPE_CHECKING:
    from judgekit.audit.options import AuditOptions
    from judgekit.engine.config import EngineConfig
    from judgekit.engine.engine import Engine
    from judgekit.pairwise.options import PairwiseOptions


@dataclass
class EvalResult:
    """Everything one evaluation produced: the score summary, the loaded results, and the
    result of each judging step that ran (:func:`judgekit.summary.summary_of` composes
    ``summary.json`` from them)."""

    summary: ScoreSummary
    runs: list[RunResult] = field(default_factory=list, repr=False)
    pairwise: StepResult[Any, Any] | None = None
    audit: StepResult[Any, Any] | None = None
    notes: list[str] = field(default_factory=list)
    enrichment: Enrichment | None = None
    #: the judge model, how it was asked and what it received (``summary["judge"]``).
    judge: JudgeRun | None = None
    #: results of steps other than pairwise judging and the audit, in the order they ran.
    others: list[StepResult[Any, Any]] = field(default_factory=list)

    @property
    def scoring(self) -> ScoreResult:
        """The scoring step's result: the scored results (``results.jsonl``) and summary."""
        return ScoreResult(self.summary)

    def steps(self) -> list[StepResult[Any, Any]]:
        """The judging steps' results, in the order ``summary.json`` lists their entries."""
        return [p for p in (self.pairwise, self.audit) if p is not None] + self.others

    def add(self, part: StepResult[Any, Any]) -> None:
        """Keep a step's result under its name."""
        if part.name in ("pairwise", "audit"):
            setattr(self, part.name, part)
        else:
            self.others.append(part)


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

    def __init__(self, runs: list[RunResult], enrichment: Enrichment | None, *,
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


@dataclass
class Judging:
    """What a judging step is given: the loaded results, their scores and the judges."""

    runs: list[RunResult]
    #: the scored rows (what pairing reads), ready before the statistics are.
    rows: Sequence[ScoredResult]
    #: the first judge's engine.
    engine: Engine
    #: every judge's configuration; more than one is a jury.
    configs: list[EngineConfig]
    exclude: Sequence[str]
    scored: Callable[[], ScoreSummary] = field(repr=False)

    @property
    def summary(self) -> ScoreSummary:
        """The score summary (made when first needed)."""
        return self.scored()


@dataclass
class PairwiseStep:
    """Pairwise judging by flip-and-draw; by a jury when several judges are given."""

    options: PairwiseOptions | None = None
    name: str = "pairwise"

    def run(self, inputs: Judging) -> StepResult[Any, Any]:
        if len(inputs.configs) > 1:
            return _judge_by_jury(inputs, self.options)
        from judgekit.pairwise import run_pairwise

        return run_pairwise(inputs.runs, inputs.rows, inputs.engine, self.options,
                            exclude=inputs.exclude)


@dataclass
class AuditStep:
    """The audit of failed results: the first judge's, or with ``jury`` each judge's, the
    majority classifying each result."""

    options: AuditOptions | None = None
    jury: bool = False
    name: str = "audit"

    def run(self, inputs: Judging) -> StepResult[Any, Any]:
        if self.jury and len(inputs.configs) > 1:
            return _audit_by_jury(inputs, self.options)
        from judgekit.audit import run_audit

        return run_audit(inputs.runs, inputs.summary, inputs.engine, self.options)


def judging_steps(*, pairwise: bool = True, audit: bool = True,
                  pairwise_options: PairwiseOptions | None = None,
                  audit_options: AuditOptions | None = None,
                  audit_jury: bool = False) -> list[Step[Judging]]:
    """The judging steps :func:`evaluate` runs: pairwise judging, then the audit."""
    steps: list[Step[Judging]] = []
    if pairwise:
        steps.append(PairwiseStep(pairwise_options))
    if audit:
        steps.append(AuditStep(audit_options, jury=audit_jury))
    return steps


def evaluate(
    paths: str | Path | Sequence[str | Path] | Sequence[RunResult],
    *,
    judge: Any | None = None,
    base_url: str | None = None,
    pairwise: bool = True,
    audit: bool = True,
    exclude: Sequence[str] = DEFAULT_INFRA_PATHS,
    mixed_models: bool = False,
    seed: int | None = None,
    similarity: bool = False,
    pairwise_options: PairwiseOptions | None = None,
    audit_options: AuditOptions | None = None,
    tasks: Sequence[str | Path] | None = None,
    keep_runs: bool = True,
    adapters: Sequence[Adapter] | None = None,
    while_judging: Callable[[EvalResult], Iterable[object]] | None = None,
    audit_jury: bool = False,
    transcripts: Sequence[str | Path] | None = None,
) -> EvalResult:
    """Load runs (or take loaded results), score them, and judge them when a judge is given.

    ``judge`` is a judge string as the command line takes it: a model such as
    ``"anthropic:claude-sonnet-4-6"``, or ``"MODEL@URL"`` for a judge on its own server (no
    key needed), or an :class:`judgekit.engine.EngineConfig` (for the engine's options:
    concurrency, cost cap, cache, ...); without one only scoring runs (the command line
    picks a default judge when a provider key is set; ``evaluate`` never calls a model it
    was not given). ``base_url`` is the server of the judges given without ``@URL`` (the
    command line's base URL option). ``tasks`` names suite
    files whose tasks fill fields the run files leave out (see :mod:`judgekit.ingest.enrich`);
    what they filled is ``result.enrichment``. ``adapters`` replaces the default readers of
    other harnesses' files (e.g. ``make_adapters(swebench_logs=...)``).
    ``while_judging`` is given the scored result and returns work that does not depend on
    the verdicts (e.g. :meth:`judgekit.report.PreparedParts.steps`); the engine advances it
    between model calls (:meth:`judgekit.engine.Engine.between_calls`).
    ``judge`` may also be a list of them: a jury (:mod:`judgekit.pairwise.jury`), each
    judging every pair in turn; the audit is the first judge's, or with ``audit_jury``
    each judge's, the majority classifying each result (:mod:`judgekit.audit.jury`).
    ``similarity=True`` adds the embedding similarity of diffs (the index extra); it is off
    by default. ``transcripts`` names directories of agents' session files, matched to
    results by task id (:mod:`judgekit.ingest.transcripts.link`).
    Load-time warnings (files reached twice, duplicate results, skipped files)
    head ``summary.warnings``. ``keep_runs=False`` (only without a judge and without
    ``tasks``) scores results as they are read and keeps none of them in ``runs``: memory
    then holds scores, not diffs.
    """
    steps = judging_steps(pairwise=pairwise, audit=audit, pairwise_options=pairwise_options,
                          audit_options=audit_options, audit_jury=audit_jury)
    if judge is not None:
        from judgekit.engine.config import judge_configs

        judge = judge_configs(judge, base_url=base_url)
    return run_pipeline(paths, steps, judge=judge, exclude=exclude, mixed_models=mixed_models,
                        seed=seed, similarity=similarity, tasks=tasks, keep_runs=keep_runs,
                        adapters=adapters, while_judging=while_judging,
                        transcripts=transcripts)


Source = str | Path | Sequence[str | Path] | Sequence[RunResult]


def _given_results(paths: Source) -> bool:
    return isinstance(paths, (list, tuple)) and bool(paths) and isinstance(paths[0], RunResult)


def _streamed(paths: Source, *, exclude: Sequence[str], adapters: Sequence[Adapter] | None,
              mixed_models: bool, seed: int) -> EvalResult:
    """Scores only, each result scored as it is read and none of them kept."""
    report = LoadResult()
    with collector_paused():
        rows = list(iter_scored(paths, exclude=exclude,  # type: ignore[arg-type]
                                report=report, adapters=adapters))
        if not rows:
            raise no_results(paths, report.warnings)  # type: ignore[arg-type]
        return EvalResult(summary=summarise(rows, mixed_models=mixed_models, seed=seed,
                                            load_warnings=report.warnings))


def _loaded(paths: Source, adapters: Sequence[Adapter] | None
            ) -> tuple[list[RunResult], list[str]]:
    if _given_results(paths):
        return list(paths), []  # type: ignore[arg-type]
    report = load_runs_result(paths, adapters=adapters)  # type: ignore[arg-type]
    return report.results, report.warnings


def run_pipeline(
    paths: Source,
    steps: Sequence[Step[Judging]] = (),
    *,
    judge: Any | None = None,
    exclude: Sequence[str] = DEFAULT_INFRA_PATHS,
    mixed_models: bool = False,
    seed: int | None = None,
    similarity: bool = False,
    tasks: Sequence[str | Path] | None = None,
    keep_runs: bool = True,
    adapters: Sequence[Adapter] | None = None,
    while_judging: Callable[[EvalResult], Iterable[object]] | None = None,
    transcripts: Sequence[str | Path] | None = None,
) -> EvalResult:
    """Load, score, then run ``steps`` in order with the judge(s) ``judge``: the pipeline of
    :func:`evaluate` and of the ``score``, ``judge`` and ``audit`` commands, which differ
    only in their steps. Without a judge or without steps only scoring runs."""
    sim = _similarity(similarity)
    seed_value = stats.DEFAULT_SEED if seed is None else seed
    if not keep_runs and judge is None and not tasks and not transcripts and sim is None \
            and not _given_results(paths):
        return _streamed(paths, exclude=exclude, adapters=adapters,
                         mixed_models=mixed_models, seed=seed_value)
    if judge is not None and steps:
        _check_servers(judge)
    runs, load_warnings = _loaded(paths, adapters)
    if transcripts:
        from judgekit.ingest.transcripts.link import attach

        load_warnings = [*load_warnings, *attach(runs, transcripts).warnings()]
    enrichment = None
    if tasks:
        from judgekit.ingest.enrich import enrich_tasks

        enrichment = enrich_tasks(runs, tasks)
    judging = judge is not None and bool(steps)
    if sim is not None or not judging:
        summary = score_step(runs, exclude=exclude, mixed_models=mixed_models,
                             seed=seed_value, similarity=sim,
                             load_warnings=load_warnings).summary()
        if not judging:
            return EvalResult(runs=runs, summary=summary, enrichment=enrichment)
        pending = _Pending(runs, enrichment, rows=summary.results, make=lambda: summary)
    else:  # pairs need only the rows; the statistics are made while the first calls wait
        rows = score_rows(runs, exclude=exclude)
        pending = _Pending(runs, enrichment, rows=rows, make=lambda: summarise(
            rows, mixed_models=mixed_models, seed=seed_value, load_warnings=load_warnings))
    return _run_steps(pending, runs, steps, judge, exclude=exclude, while_judging=while_judging)


def _configs(judge: Any) -> list[Any]:
    from judgekit.engine.config import judge_configs

    return judge_configs(judge)


def _check_servers(judge: Any) -> None:
    """A judge whose server is not there fails now, before anything is loaded or written."""
    from judgekit.engine.engine import check_servers

    check_servers(_configs(judge))


def _run_steps(pending: _Pending, runs: list[RunResult], steps: Sequence[Step[Judging]],
               judge: Any, *, exclude: Sequence[str],
               while_judging: Callable[[EvalResult], Iterable[object]] | None) -> EvalResult:
    """Each step in turn, with one engine (the first judge's) for them all."""
    from judgekit.engine import Engine

    configs = _configs(judge)
    engine = Engine(configs[0])
    engine.between_calls(pending.steps(while_judging))
    inputs = Judging(runs=runs, rows=pending.rows, engine=engine, configs=configs,
                     exclude=exclude, scored=lambda: pending.result().summary)
    parts = [step.run(inputs) for step in steps]
    result = pending.result()
    for part in parts:
        result.add(part)
    if not configs[0].dry_run:
        result.judge = engine.judge_run()
    return result


def _judge_by_jury(inputs: Judging, options: PairwiseOptions | None) -> StepResult[Any, Any]:
    """Pairwise judging by each judge in turn (the first with the pipeline's engine), then
    the jury's verdicts. A cost cap holds for the jury as a whole: each judge may spend
    what the judges before it left."""
    from judgekit.engine import Engine
    from judgekit.pairwise import PairwiseOptions, run_pairwise
    from judgekit.pairwise.jury import Juror, JuryResult, juror_labels

    options = options or PairwiseOptions()
    first, configs = inputs.engine, inputs.configs
    labels = juror_labels([(c.model, c.base_url) for c in configs])
    jurors, spent = [], 0.0
    for k, (label, config) in enumerate(zip(labels, configs)):
        engine = first
        if k:
            if config.max_cost_usd is not None:
                left = max(config.max_cost_usd - spent, 1e-9)
                config = config.model_copy(update={"max_cost_usd": left})
            engine = Engine(config)
        own = run_pairwise(inputs.runs, inputs.rows, engine, options, exclude=inputs.exclude)
        spent += engine.spent_usd
        jurors.append(Juror(label, config.model, config.base_url, own))
    cap, others = first.config.max_cost_usd, spent - first.spent_usd
    if cap is not None and others > 0:  # what the first judge's engine does next (the
        # audit) may spend only what the whole jury left
        first.config = first.config.model_copy(
            update={"max_cost_usd": max(cap - others, 1e-9)})
    return JuryResult(jurors, rule=options.jury_rule)


def _audit_by_jury(inputs: Judging, options: AuditOptions | None) -> StepResult[Any, Any]:
    """The audit by each judge in turn (the first with the pipeline's engine), then the
    jury's classification; a cost cap holds for the jury as a whole."""
    from judgekit.audit import AuditOptions, run_audit
    from judgekit.audit.jury import AuditJuror, AuditJuryResult
    from judgekit.engine import Engine
    from judgekit.pairwise.jury import juror_labels

    options = options or AuditOptions()
    first, configs = inputs.engine, inputs.configs
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
        own = run_audit(inputs.runs, inputs.summary, engine, options)
        spent += engine.spent_usd - before
        jurors.append(AuditJuror(label, config.model, config.base_url, own))
    return AuditJuryResult(jurors, min_runs=options.min_runs)


__all__ = ["AuditStep", "EvalResult", "Judging", "PairwiseStep", "evaluate", "judging_steps",
           "run_pipeline"]
