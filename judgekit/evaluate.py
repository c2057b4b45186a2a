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
from typing import TYPE_CHECKING, Any, TypeVar, cast

from pydantic import BaseModel
from typing_extensions import TypeIs

from judgekit import stats
from judgekit.diffs import DEFAULT_INFRA_PATHS
from judgekit.engine.accounting import JudgeRun
from judgekit.gcpause import collector_paused
from judgekit.ingest.load import LoadResult, iter_results, load_runs_result, no_results
from judgekit.ingest.adapters import Adapter
from judgekit.ingest.enrich import Enrichment
from judgekit.ingest.models import RunResult
from judgekit.scoring.models import ScoredResult, ScoreSummary
from judgekit.scoring.score import Similarity, score_rows, summarise
from judgekit.scoring.step import ScoreResult, score_step
from judgekit.scoring.stream import iter_scored
from judgekit.steps import AnyResult, Step, StepKind, StepResult

R = TypeVar("R", bound=BaseModel)
S = TypeVar("S", bound=BaseModel)

if TYPE_CHECKING:
    from judgekit.audit.records import AuditRecord
    from judgekit.audit.jury import AuditJuryResult
    from judgekit.audit.kind import AuditKind
    from judgekit.audit.models import AuditStepSummary
    from judgekit.audit.options import AuditOptions
    from judgekit.engine.config import EngineConfig
    from judgekit.engine.engine import Engine
    from judgekit.engine.jury import JuryRunner
    from judgekit.integrity.kind import IntegrityKind
    from judgekit.pairwise.jury import JuryResult
    from judgekit.pairwise.kind import PairwiseKind
    from judgekit.pairwise.models import PairwiseStepSummary
    from judgekit.pairwise.options import PairwiseOptions
    from judgekit.pairwise.records import PairRecord


@dataclass
class EvalResult:
    """Everything one evaluation produced: the score summary, the loaded results, and the
    result of each judging step that ran, kept by its descriptor
    (:func:`judgekit.summary.summary_of` composes ``summary.json`` from them)."""

    summary: ScoreSummary
    runs: list[RunResult] = field(default_factory=list, repr=False)
    #: the judging steps' results, in the order they ran; one per step (its ``kind``).
    parts: list[AnyResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    enrichment: Enrichment | None = None
    #: the judge model, how it was asked and what it received (``summary["judge"]``).
    judge: JudgeRun | None = None
    #: when the loaded results were scored as read and not kept (``runs`` empty): reads
    #: them again, one at a time, in the order of ``summary.results``.
    reread: Callable[[], Iterator[RunResult]] | None = field(default=None, repr=False)

    @property
    def scoring(self) -> ScoreResult:
        """The scoring step's result: the scored results (``results.jsonl``) and summary."""
        return ScoreResult(self.summary)

    def part(self, kind: StepKind[R, S]) -> StepResult[R, S] | None:
        """The result of the step ``kind`` describes, if it ran."""
        found = next((p for p in self.parts if p.kind is kind), None)
        return cast("StepResult[R, S] | None", found)

    @property
    def pairwise(self) -> StepResult[PairRecord, PairwiseStepSummary] | None:
        """Pairwise judging's result (by one judge or a jury), if it ran."""
        from judgekit.pairwise.kind import PAIRWISE

        return self.part(PAIRWISE)

    @pairwise.setter
    def pairwise(self, part: StepResult[PairRecord, PairwiseStepSummary] | None) -> None:
        from judgekit.pairwise.kind import PAIRWISE

        self.put(PAIRWISE, part)

    @property
    def audit(self) -> StepResult[AuditRecord, AuditStepSummary] | None:
        """The audit's result (by one judge or a jury), if it ran."""
        from judgekit.audit.kind import AUDIT

        return self.part(AUDIT)

    @audit.setter
    def audit(self, part: StepResult[AuditRecord, AuditStepSummary] | None) -> None:
        from judgekit.audit.kind import AUDIT

        self.put(AUDIT, part)

    def put(self, kind: StepKind[R, S], part: StepResult[R, S] | None) -> None:
        """Keep ``part`` as the result of the step ``kind`` describes (None: drop it)."""
        if part is not None and part.kind is not kind:
            raise TypeError(f"a {part.kind.name} result is not the {kind.name} step's")
        self.parts = [p for p in self.parts if p.kind is not kind]
        if part is not None:
            self.add(part)

    def steps(self) -> list[AnyResult]:
        """The judging steps' results, in the order they ran."""
        return list(self.parts)

    def add(self, part: AnyResult) -> None:
        """Keep a step's result (in place of an earlier result of the same step)."""
        at = next((i for i, p in enumerate(self.parts) if p.kind is part.kind), None)
        if at is None:
            self.parts.append(part)
        else:
            self.parts[at] = part


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
    #: the judges and the cost cap they share (the first judge's engine is ``engine``).
    jury: JuryRunner = field(repr=False)
    #: the integrity checks' result (None: switched off), for the step that confirms them.
    checked: AnyResult | None = None

    @property
    def summary(self) -> ScoreSummary:
        """The score summary (made when first needed)."""
        return self.scored()


@dataclass
class PairwiseStep:
    """Pairwise judging by flip-and-draw; by a jury when several judges are given."""

    options: PairwiseOptions | None = None

    @property
    def kind(self) -> PairwiseKind:
        from judgekit.pairwise.kind import PAIRWISE

        return PAIRWISE

    def run(self, inputs: Judging) -> AnyResult:
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

    @property
    def kind(self) -> AuditKind:
        from judgekit.audit.kind import AUDIT

        return AUDIT

    def run(self, inputs: Judging) -> AnyResult:
        if self.jury and len(inputs.configs) > 1:
            return _audit_by_jury(inputs, self.options)
        from judgekit.audit import run_audit

        return run_audit(inputs.runs, inputs.summary, inputs.engine, self.options)


@dataclass
class IntegrityStep:
    """The judge (or each judge of a jury) confirms the integrity checks' findings: each
    flagged result is confirmed as cheating or cleared (:mod:`judgekit.integrity.confirm`).
    With the checks switched off it does not run."""

    @property
    def kind(self) -> IntegrityKind:
        from judgekit.integrity.kind import INTEGRITY

        return INTEGRITY

    def run(self, inputs: Judging) -> AnyResult:
        from judgekit.integrity.confirm import confirm
        from judgekit.integrity.result import IntegrityResult

        checked = inputs.checked
        if not isinstance(checked, IntegrityResult):
            raise ValueError("the integrity checks did not run: nothing to confirm")
        return confirm(checked, inputs.runs, inputs.jury)


def judging_steps(*, pairwise: bool = True, audit: bool = True,
                  pairwise_options: PairwiseOptions | None = None,
                  audit_options: AuditOptions | None = None,
                  audit_jury: bool = False, integrity: bool = True) -> list[Step[Judging]]:
    """The judging steps :func:`evaluate` runs: pairwise judging, the audit, then the
    judge's confirmation of the integrity findings."""
    steps: list[Step[Judging]] = []
    if pairwise:
        steps.append(PairwiseStep(pairwise_options))
    if audit:
        steps.append(AuditStep(audit_options, jury=audit_jury))
    if integrity:
        steps.append(IntegrityStep())
    return steps


def evaluate(
    paths: Source,
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
    integrity: bool = True,
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
    ``integrity=False`` skips the integrity checks (:mod:`judgekit.integrity`), whose
    findings are ``result.part(INTEGRITY)`` otherwise.
    Load-time warnings (files reached twice, duplicate results, skipped files)
    head ``summary.warnings``. ``keep_runs=False`` (only without a judge and without
    ``tasks``) scores results as they are read and keeps none of them in ``runs``: memory
    then holds scores, not diffs.
    """
    steps = judging_steps(pairwise=pairwise, audit=audit, pairwise_options=pairwise_options,
                          audit_options=audit_options, audit_jury=audit_jury,
                          integrity=integrity)
    if judge is not None:
        from judgekit.engine.config import judge_configs

        judge = judge_configs(judge, base_url=base_url)
    options = PipelineOptions(exclude=tuple(exclude), mixed_models=mixed_models, seed=seed,
                              similarity=similarity, tasks=tuple(tasks) if tasks else None,
                              keep_runs=keep_runs,
                              adapters=tuple(adapters) if adapters is not None else None,
                              transcripts=tuple(transcripts) if transcripts else None,
                              off=frozenset() if integrity else frozenset({"integrity"}))
    return run_pipeline(paths, steps, judge=judge, options=options,
                        while_judging=while_judging)


#: where results come from: run files or folders (one or several)...
Paths = str | Path | Sequence[str | Path]
#: ...or results already loaded.
Source = Paths | Sequence[RunResult]


def _given_results(paths: Source) -> TypeIs[Sequence[RunResult]]:
    """Whether ``paths`` holds results already loaded rather than where to read them."""
    return isinstance(paths, (list, tuple)) and bool(paths) and isinstance(paths[0], RunResult)


def _streamed(paths: Paths, options: PipelineOptions) -> EvalResult:
    """Scores only (and the integrity checks), each result scored as it is read and none of
    them kept."""
    report = LoadResult()
    seed = stats.DEFAULT_SEED if options.seed is None else options.seed
    checks = _integrity_on(options)
    from judgekit.integrity.result import Tally

    tally = Tally()
    inspect = seen = None
    if checks:
        from judgekit.integrity.inspect import inspect_result
        from judgekit.integrity.step import record_of

        def flagged(row: ScoredResult, told: object) -> None:
            from judgekit.integrity.inspect import Seen

            if isinstance(told, Seen) and (record := record_of(row, told)) is not None:
                tally.flag(record)

        inspect, seen = inspect_result, flagged
    with collector_paused():
        rows = list(iter_scored(paths, exclude=options.exclude, report=report,
                                adapters=options.adapters, inspect=inspect, seen=seen))
        if not rows:
            raise no_results(paths, report.warnings)
        result = EvalResult(summary=summarise(rows, mixed_models=options.mixed_models,
                                              seed=seed, load_warnings=report.warnings),
                            reread=lambda: iter_results(paths, adapters=options.adapters))
    if checks:
        from judgekit.integrity.result import IntegrityResult
        from judgekit.integrity.step import tally_row

        for row in rows:
            tally_row(tally, row)
        result.add(IntegrityResult(tally))
    return result


def _integrity_on(options: PipelineOptions) -> bool:
    from judgekit.integrity.kind import INTEGRITY

    return INTEGRITY.name not in options.off


def _integrity(runs: Sequence[RunResult], rows: Sequence[ScoredResult],
               options: PipelineOptions) -> AnyResult | None:
    """The integrity checks on loaded results (None: switched off)."""
    if not _integrity_on(options):
        return None
    from judgekit.integrity.step import check_results

    return check_results(runs, rows)


def _loaded(paths: Source, adapters: Sequence[Adapter] | None
            ) -> tuple[list[RunResult], list[str]]:
    if _given_results(paths):
        return list(paths), []
    report = load_runs_result(paths, adapters=adapters)
    return report.results, report.warnings


@dataclass(frozen=True)
class PipelineOptions:
    """How the pipeline loads and scores: the options :func:`evaluate` takes one by one and
    the command line reads once (``judgekit.cli._common.pipeline_options``)."""

    #: paths whose changes are infrastructure, left out of file-level scores.
    exclude: tuple[str, ...] = tuple(DEFAULT_INFRA_PATHS)
    #: compare arms whose results name different models (refused otherwise).
    mixed_models: bool = False
    #: the seed of the bootstrap intervals (None: the default seed).
    seed: int | None = None
    #: add the embedding similarity of diffs (the index extra).
    similarity: bool = False
    #: suite files whose tasks fill fields the run files leave out.
    tasks: tuple[str | Path, ...] | None = None
    #: keep the loaded results (False: score them as they are read, without a judge).
    keep_runs: bool = True
    #: the readers of other harnesses' files (None: the default ones).
    adapters: tuple[Adapter, ...] | None = None
    #: directories of agents' session files, matched to results by task id.
    transcripts: tuple[str | Path, ...] | None = None
    #: the registered steps switched off, by name (their ``Switch``: ``integrity``).
    off: frozenset[str] = frozenset()


def run_pipeline(
    paths: Source,
    steps: Sequence[Step[Judging]] = (),
    *,
    judge: Any | None = None,
    options: PipelineOptions | None = None,
    while_judging: Callable[[EvalResult], Iterable[object]] | None = None,
) -> EvalResult:
    """Load, score, then run ``steps`` in order with the judge(s) ``judge``: the pipeline of
    :func:`evaluate` and of the ``score``, ``judge`` and ``audit`` commands, which differ
    only in their steps. Without a judge or without steps only scoring runs."""
    opts = options or PipelineOptions()
    exclude, tasks, transcripts = opts.exclude, opts.tasks, opts.transcripts
    sim = _similarity(opts.similarity)
    seed_value = stats.DEFAULT_SEED if opts.seed is None else opts.seed
    if not opts.keep_runs and judge is None and not tasks and not transcripts \
            and sim is None and not _given_results(paths):
        return _streamed(paths, opts)
    if judge is not None and steps:
        _check_servers(judge)
    runs, load_warnings = _loaded(paths, opts.adapters)
    if transcripts:
        from judgekit.ingest.transcripts.link import attach

        load_warnings = [*load_warnings, *attach(runs, transcripts).warnings()]
    enrichment = None
    if tasks:
        from judgekit.ingest.enrich import enrich_tasks

        enrichment = enrich_tasks(runs, tasks)
    judging = judge is not None and bool(steps)
    if sim is not None or not judging:
        summary = score_step(runs, exclude=exclude, mixed_models=opts.mixed_models,
                             seed=seed_value, similarity=sim,
                             load_warnings=load_warnings).summary()
        if not judging:
            done = EvalResult(runs=runs, summary=summary, enrichment=enrichment)
            if (checked := _integrity(runs, summary.results, opts)) is not None:
                done.add(checked)
            return done
        pending = _Pending(runs, enrichment, rows=summary.results, make=lambda: summary)
    else:  # pairs need only the rows; the statistics are made while the first calls wait
        rows = score_rows(runs, exclude=exclude)
        pending = _Pending(runs, enrichment, rows=rows, make=lambda: summarise(
            rows, mixed_models=opts.mixed_models, seed=seed_value,
            load_warnings=load_warnings))
    checked = _integrity(runs, pending.rows, opts)
    return _run_steps(pending, runs, steps, judge, exclude=exclude, while_judging=while_judging,
                      checked=checked, off=opts.off)


def _configs(judge: Any) -> list[Any]:
    from judgekit.engine.config import judge_configs

    return judge_configs(judge)


def _check_servers(judge: Any) -> None:
    """A judge whose server is not there fails now, before anything is loaded or written."""
    from judgekit.engine.engine import check_servers

    check_servers(_configs(judge))


def _run_steps(pending: _Pending, runs: list[RunResult], steps: Sequence[Step[Judging]],
               judge: Any, *, exclude: Sequence[str],
               while_judging: Callable[[EvalResult], Iterable[object]] | None,
               checked: AnyResult | None = None, off: frozenset[str] = frozenset()
               ) -> EvalResult:
    """Each step in turn, with one engine (the first judge's) for them all; ``checked``:
    the integrity checks' result, which a step confirming them is given."""
    from judgekit.engine import Engine
    from judgekit.engine.jury import JuryRunner

    configs = _configs(judge)
    engine = Engine(configs[0])
    engine.between_calls(pending.steps(while_judging))
    inputs = Judging(runs=runs, rows=pending.rows, engine=engine, configs=configs,
                     exclude=exclude, scored=lambda: pending.result().summary,
                     jury=JuryRunner(configs, engine), checked=checked)
    # a step switched off (by its own switch) does not run; the integrity checks' own
    # result stands when no step confirmed it
    parts = [step.run(inputs) for step in steps
             if step.kind.switch is None or step.kind.name not in off]
    result = pending.result()
    if checked is not None and result.part(checked.kind) is None \
            and all(part.kind is not checked.kind for part in parts):
        result.add(checked)
    for part in parts:
        result.add(part)
    if not configs[0].dry_run:
        result.judge = engine.judge_run()
    return result


def _judge_by_jury(inputs: Judging, options: PairwiseOptions | None) -> JuryResult:
    """Pairwise judging by each judge in turn (the first with the pipeline's engine), then
    the jury's verdicts; the cost cap holds for the run as a whole (:mod:`judgekit.engine.jury`)."""
    from judgekit.pairwise import PairwiseOptions, run_pairwise
    from judgekit.pairwise.jury import Juror, JuryResult

    opts = options or PairwiseOptions()
    seats = inputs.jury.each(lambda engine: run_pairwise(
        inputs.runs, inputs.rows, engine, opts, exclude=inputs.exclude))
    return JuryResult([Juror(s.label, s.config.model, s.config.base_url, s.result)
                       for s in seats], rule=opts.jury_rule)


def _audit_by_jury(inputs: Judging, options: AuditOptions | None) -> AuditJuryResult:
    """The audit by each judge in turn (the first with the pipeline's engine), then the
    jury's classification; the cost cap holds for the run as a whole."""
    from judgekit.audit import AuditOptions, run_audit
    from judgekit.audit.jury import AuditJuror, AuditJuryResult

    opts = options or AuditOptions()
    seats = inputs.jury.each(lambda engine: run_audit(inputs.runs, inputs.summary, engine,
                                                      opts))
    return AuditJuryResult([AuditJuror(s.label, s.config.model, s.config.base_url, s.result)
                            for s in seats], min_runs=opts.min_runs)


__all__ = ["AuditStep", "EvalResult", "IntegrityStep", "Judging", "PairwiseStep", "PipelineOptions", "evaluate",
           "judging_steps", "run_pipeline"]
