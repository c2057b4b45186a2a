"""The audit step: ask the judge about every result that did not pass, check, aggregate.

:func:`run_audit` is the step's function: loaded runs and their scores in, an
:class:`AuditResult` (one :class:`~judgekit.audit.records.AuditRecord` per failed result,
and an :class:`~judgekit.audit.models.AuditStepSummary`) out.

Example:
    >>> from judgekit import evaluate                                   # doctest: +SKIP
    >>> result = evaluate(["runs/"], judge="anthropic:claude-sonnet-4-5",  # doctest: +SKIP
    ...                   pairwise=False, audit_options=AuditOptions(rubric="commit-revert"))
    >>> result.audit.summary().audit.suspected_tasks                    # doctest: +SKIP
    ['flask-003']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar

from judgekit.audit.aggregate import (
    FLAKY_CATEGORY,
    aggregate_tasks,
    combine_samples,
    contradict,
    sample_from_outcome,
)
from judgekit.audit.kind import AUDIT, audit_failures
from judgekit.audit.checks import (
    evidence_problems,
    logical_problems,
    verdict_quotes_missing,
)
from judgekit._resources import read_template
from judgekit.audit.materials import Materials, gather_materials
from judgekit.audit.models import AuditStepSummary, AuditStats, TaskAudit
from judgekit.engine.tokens import CHARS_PER_TOKEN, estimate_tokens
from judgekit.audit.options import AuditOptions
from judgekit.audit.records import AuditRecord
from judgekit.audit.rubric import NONE_TYPE, Rubric, load_rubric
from judgekit.audit.verdict import decoding_schema, verdict_schema
from judgekit.engine import Judge, JudgeRequest, Skip
from judgekit.engine.types import stop_of
from judgekit.errors import ConfigError
from judgekit.ingest.models import ResultKey, RunResult
from judgekit.scoring.models import ScoredResult, ScoreSummary
from judgekit.steps import Failures, StepKind, StepResult


#: Smallest per-item budget left after the system part for an audit to make sense.
MIN_ITEM_TOKENS = 1_500


@dataclass
class AuditResult(StepResult[AuditRecord, AuditStepSummary]):
    """What :func:`run_audit` returns: the audit step's records and summary."""

    kind: ClassVar[StepKind[Any, Any]] = AUDIT

    rubric: Rubric
    records: list[AuditRecord]
    tasks: list[TaskAudit]
    model: str = ""
    samples: int = 1
    #: why the engine stopped sending this audit's calls (an authentication failure), if it did.
    stopped: Skip | None = None
    #: task id -> the results that passed with verified tests (what contradicts a score 1).
    passes: dict[str, list[str]] | None = None
    #: an audit of benchmark items with no run (one record per item), not of results.
    items: bool = False

    def counts(self) -> AuditStats:
        """``summary["audit"]``: counts of the audit, per task and category."""
        valid = [r for r in self.records if r.state == "valid"]
        ife = [r for r in valid if r.score == 1]
        by_type = Counter(r.deficiency_type or NONE_TYPE for r in ife)
        return AuditStats(
            audited="items" if self.items else "results", rubric=self.rubric.id, rubric_version=self.rubric.version,
            rubric_categories=[c.name for c in self.rubric.categories],
            judge=self.model, samples=self.samples,
            n_failed=len(self.records), n_valid=len(valid),
            n_unscored=sum(r.state == "unscored" and not r.skipped_cost
                           and not r.skipped for r in self.records),
            n_error=sum(r.state == "error" for r in self.records),
            n_ife=len(ife), by_type=dict(by_type.most_common()),
            n_evidence_unverified=sum(not r.evidence_verified for r in valid),
            n_materials_cut=sum(r.materials_cut for r in self.records),
            suspected_tasks=[t.task_id for t in self.tasks if t.suspected],
            n_contradicted=sum(r.contradicted for r in self.records),
            contradicted=[_contradiction(r) for r in self.records if r.contradicted],
            tasks=self.tasks, tries_total=sum(r.tries for r in self.records),
            cost_usd=round(sum(r.cost_usd for r in self.records), 6),
            n_skipped_cost=sum(r.skipped_cost for r in self.records),
            skipped=_skip_counts(self.records),
            n_materials_cut_to_fit=sum(r.materials_cut_to_fit for r in self.records),
            skipped_cost=[r.subject() for r in self.records if r.skipped_cost])

    def _summarise(self) -> AuditStepSummary:
        return AuditStepSummary(audit=self.counts())

    def stop_detail(self) -> str | None:
        return self.stopped.detail if self.stopped is not None else None

    def failures(self) -> Failures:
        return audit_failures(self)


def _contradiction(rec: AuditRecord) -> str:
    kind = f" ({rec.deficiency_type})" if rec.deficiency_type else ""
    return f"{rec.key()}{kind}: " + ", ".join(rec.contradicted_by or [])


def verified_passes(pairs: Sequence[tuple[RunResult, ScoredResult]]) -> dict[str, list[str]]:
    """Task id -> the results that passed with verified tests (a test status of
    ``passed`` decided from the recorded evidence), each as ``task / arm / attempt N passed
    its tests``."""
    out: dict[str, list[str]] = {}
    for run, scored in pairs:
        if scored.test_status == "passed":
            ran = f", {scored.tests_run} tests ran" if scored.tests_run is not None else ""
            out.setdefault(run.task_id, []).append(f"{ResultKey.of(run)} passed its tests{ran}")
    return out


def exempt_categories(rubric: Rubric) -> set[str]:
    """The rubric's names of the categories a pass does not contradict (flaky tests)."""
    name = rubric.category_name(FLAKY_CATEGORY)
    return {FLAKY_CATEGORY, *([name] if name else [])}


def _skip_counts(records: Sequence[AuditRecord]) -> dict[str, int]:
    return dict(Counter(r.skipped for r in records if r.skipped))


def _normalise_type(rubric: Rubric, value: Any) -> str:
    if not isinstance(value, str) or value.strip().casefold() in {NONE_TYPE, ""}:
        return NONE_TYPE
    return rubric.category_name(value) or value


def _pairs(runs: Sequence[RunResult], summary: ScoreSummary
           ) -> list[tuple[RunResult, ScoredResult]]:
    if len(runs) == len(summary.results):
        return list(zip(runs, summary.results))
    index = {ResultKey.of(s): s for s in summary.results}
    return [(r, index[ResultKey.of(r)]) for r in runs if ResultKey.of(r) in index]


def passed(run: RunResult, scored: ScoredResult) -> bool:
    """Whether a result passed: its test status, or, for a result without a test run, the
    benchmark's own verdict (HAL, Inspect)."""
    if scored.test_status == "passed":
        return True
    return run.test is None and run.success is True and not run.harness_failed


def system_prompt(rubric: Rubric) -> str:
    """The static part of every request: instructions plus the whole rubric."""
    return read_template("audit_system.md").safe_substitute(rubric=rubric.render())


def _request(m: Materials, *, key: str, system: str, schema: dict[str, Any], rubric: Rubric,
             decode: dict[str, Any] | None = None, fit: Any = None) -> JudgeRequest:
    return JudgeRequest(key=key, system=system, prompt=m.prompt, schema=schema, shared=m.shared,
                        decoding_schema=decode, check=partial(logical_problems, rubric=rubric),
                        soft_check=partial(evidence_problems, sources=m.sources), fit=fit)


#: the fewest tokens of materials (after the rubric) worth an audit in a small window.
MIN_FITTED_ITEM_TOKENS = 300


def _fitted(ask: Callable[[Materials], JudgeRequest], run: RunResult, scored: ScoredResult, system: str, sys_tokens: int,
            sample: tuple[int, int], max_input_tokens: int, max_chars: int) -> JudgeRequest | None:
    """The request with its materials condensed to fit ``max_chars`` characters in all
    (rubric included), or ``None`` when too little room is left for them."""
    budget = min(max_input_tokens, max_chars // CHARS_PER_TOKEN)
    for _ in range(3):
        if budget - sys_tokens < MIN_FITTED_ITEM_TOKENS:
            return None
        m = gather_materials(run, scored, budget_tokens=budget, system_tokens=sys_tokens,
                             sample=sample)
        size = len(system) + len(m.prompt)
        if size <= max_chars:
            return ask(m)
        budget = int(budget * max_chars / size) - 1  # condensing overshot: ask for less
    return None


def run_audit(runs: Sequence[RunResult], summary: ScoreSummary, engine: Judge,
              options: AuditOptions | None = None) -> AuditResult:
    """Audit every result that did not pass (see :func:`passed`); one record per result."""
    opts = options or AuditOptions()
    rubric = load_rubric(opts.rubric)
    system = system_prompt(rubric)
    schema = verdict_schema()
    decode = decoding_schema([c.name for c in rubric.categories], NONE_TYPE)
    sys_tokens = estimate_tokens(system)
    if opts.max_input_tokens < sys_tokens + MIN_ITEM_TOKENS:
        raise ConfigError(f"{{option:max_input_tokens}} {opts.max_input_tokens} is too small: "
                          f"rubric {rubric.id!r} alone takes about {sys_tokens} tokens; use at "
                          f"least {sys_tokens + MIN_ITEM_TOKENS}")
    pairs = _pairs(runs, summary)
    audited = [(i, r, s) for i, (r, s) in enumerate(pairs) if not passed(r, s)]
    requests: list[JudgeRequest] = []
    meta: list[tuple[int, list[str], bool]] = []
    for i, run, scored in audited:
        for k in range(1, opts.samples + 1):
            m = gather_materials(run, scored, budget_tokens=opts.max_input_tokens,
                                 system_tokens=sys_tokens, sample=(k, opts.samples))
            key = f"audit/{i}/{run.task_id}/{run.arm}/{run.attempt}/{k}"
            ask = partial(_request, key=key, system=system, schema=schema, rubric=rubric,
                          decode=decode)
            fit = partial(_fitted, ask, run, scored, system, sys_tokens, (k, opts.samples),
                          opts.max_input_tokens)
            requests.append(ask(m, fit=fit))
            meta.append((i, m.sources, bool(m.cut_notes)))
    outcomes = engine.run(requests) if requests else []
    records: list[AuditRecord] = []
    for n, (i, run, scored) in enumerate(audited):
        chunk = range(n * opts.samples, (n + 1) * opts.samples)
        samples = [sample_from_outcome(
            outcomes[j], partial(_normalise_type, rubric),
            partial(verdict_quotes_missing, meta[j][1]))
            for j in chunk]
        fields = combine_samples(samples)
        records.append(AuditRecord(task_id=run.task_id, arm=run.arm, attempt=run.attempt,
                                   run_id=run.run_id, test_status=scored.test_status,
                                   materials_cut=meta[chunk[0]][2],
                                   materials=sorted(run.materials), **fields))
    passes = verified_passes(pairs)
    for task_id, how in opts.fix_passes.items():
        passes.setdefault(task_id, []).append(how)
    records = contradict(records, passes, exempt_categories(rubric))
    n_passed = Counter(s.task_id for r, s in pairs if passed(r, s))
    tasks = aggregate_tasks(records, dict(n_passed), min_runs=opts.min_runs)
    return AuditResult(rubric=rubric, records=records, tasks=tasks,
                       model=engine.config.model,
                       samples=opts.samples, stopped=stop_of(outcomes), passes=passes)
