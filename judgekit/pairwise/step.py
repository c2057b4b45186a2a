"""The pairwise step: plan the pairs, ask the judge both orders, flip-and-draw.

:func:`run_pairwise` is the step's function: loaded runs and their scores in, a
:class:`~judgekit.pairwise.result.PairwiseResult` (records and summary) out.

Example:
    >>> from judgekit.engine import Engine, EngineConfig
    >>> from judgekit import load_runs, score                       # doctest: +SKIP
    >>> runs = load_runs("examples/bobbin")                         # doctest: +SKIP
    >>> engine = Engine(EngineConfig(model="anthropic:claude-sonnet-4-5"))  # doctest: +SKIP
    >>> result = run_pairwise(runs, score(runs), engine)            # doctest: +SKIP
    >>> result.summary().pairwise.pairs()["no-bobbin vs with-bobbin"]  # doctest: +SKIP
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from functools import partial
from typing import Any

from judgekit.diffs import DEFAULT_INFRA_PATHS, strip_paths
from judgekit.engine import ItemOutcome, Judge, JudgeRequest
from judgekit.engine.types import State
from judgekit.errors import ConfigError
from judgekit.paths import Escapes
from judgekit.pairwise.anchors import anchor_of
from judgekit.pairwise.context import code_context
from judgekit.pairwise.flip import combine, identical_outcome
from judgekit.pairwise.options import PairwiseOptions
from judgekit.pairwise.pairs import GOLD, PlannedPair, changed_ranges, collect, plan_pairs
from judgekit.pairwise.prompt import Orders, fitted_orders, render_orders, system_prompt
from judgekit.pairwise.records import DimensionRecord, OrderRecord, PairRecord
from judgekit.pairwise.result import PairwiseResult
from judgekit.pairwise.size import patch_size
from judgekit.pairwise.verdict import DIMENSIONS, OrderVerdict, verdict_problems, verdict_schema
from judgekit.ingest.models import RunResult
from judgekit.scoring.models import ScoredResult, ScoreSummary
from judgekit.scoring.score import score_result

VERDICT_NAME = "submit_verdict"


def _scored_rows(runs: Sequence[RunResult],
                 summary: ScoreSummary | Sequence[ScoredResult] | None,
                 exclude: Sequence[str]) -> list[ScoredResult]:
    if isinstance(summary, ScoreSummary):
        summary = summary.results
    rows = list(summary) if summary is not None else []
    if len(rows) == len(runs) and all(
            r.task_id == s.task_id and r.arm == s.arm and r.attempt == s.attempt
            for r, s in zip(runs, rows)):
        return rows
    return [score_result(r, exclude=exclude) for r in runs]


def _code_context(pair: PlannedPair, options: PairwiseOptions,
                  escapes: Escapes | None = None) -> str | None:
    """Code around the lines either solution changes, when a checkout is given (a path
    leading out of it is not read: counted in ``escapes``)."""
    if options.repo_root is None:
        return None
    ranges = changed_ranges(pair.a.diff) + changed_ranges(pair.b.diff)
    return code_context(options.repo_root, pair.task.repo, ranges,
                        max_chars=options.max_context_chars, escapes=escapes)


def _pair_key(pair: PlannedPair) -> str:
    return f"pairwise/{pair.task.id}/{pair.a.label}|{pair.b.label}"


def _order_record(order: int, first: str, outcome: Any | None, state: State,
                  reason: str | None = None) -> OrderRecord:
    if outcome is None:
        return OrderRecord(order=order, shown_first=first, state=state, reason=reason)
    return OrderRecord(order=order, shown_first=first, state=outcome.state,
                       reason=outcome.reason, tries=outcome.tries, cached=outcome.cached,
                       cost_usd=outcome.cost_usd, model=outcome.model,
                       input_tokens=outcome.usage.input_tokens,
                       output_tokens=outcome.usage.output_tokens,
                       skipped_cost=outcome.skipped_cost, skipped=outcome.skipped,
                       fitted=outcome.fitted)


def _record(pair: PlannedPair, outcomes: Sequence[Any] | None, *, reference: bool,
            context: bool, dry_run: bool = False) -> PairRecord:
    base: dict[str, Any] = dict(task_id=pair.task.id, arm_a=pair.a.arm, arm_b=pair.b.arm,
                attempt_a=pair.a.attempt, attempt_b=pair.b.attempt, run_id_a=pair.a.run_id,
                run_id_b=pair.b.run_id, reference_shown=reference, context_shown=context)
    if outcomes is None and not dry_run:  # identical diffs: no call
        same = identical_outcome()
        dims = {d: DimensionRecord(winner="draw", order1=None, order2=None,
                                   position_bias=False, state=same.state) for d in DIMENSIONS}
        return PairRecord(**base, identical=True, dimensions=dims)
    verdicts: list[OrderVerdict | None] = []
    states: list[State] = []
    orders: list[OrderRecord] = []
    for i, first in ((0, pair.a.arm), (1, pair.b.arm)):
        out = outcomes[i] if outcomes is not None else None
        state: State = out.state if out is not None else "unscored"
        verdict = None
        if state == "valid" and out is not None:
            verdict = OrderVerdict.model_validate(out.verdict)
        verdicts.append(verdict)
        states.append(state)
        orders.append(_order_record(i + 1, first, out, state, None if out else "dry run"))
    dims = {}
    for d in DIMENSIONS:
        answers = [getattr(v, d).winner if v else None for v in verdicts]
        res = combine(answers[0], answers[1], states[0], states[1])
        winner = {"a": pair.a.arm, "b": pair.b.arm}.get(res.winner, "draw")
        reasons = [v.reasonings()[d] if v else None for v in verdicts]
        dims[d] = DimensionRecord(winner=winner, order1=res.order1, order2=res.order2,
                                  position_bias=res.position_bias, state=res.state,
                                  reasoning1=reasons[0], reasoning2=reasons[1])
    return PairRecord(**base, dimensions=dims, orders=orders)


def shows_reference(pair: PlannedPair, options: PairwiseOptions) -> bool:
    """The reference option shows the fix, except when the fix itself is one of the two
    sides."""
    return (options.reference and pair.ground_truth_diff is not None
            and GOLD not in (pair.a.arm, pair.b.arm))


def build_requests(pair: PlannedPair, options: PairwiseOptions, context: str | None, *,
                   exclude: Sequence[str] = DEFAULT_INFRA_PATHS) -> list[JudgeRequest]:
    """The two requests of a pair: order 1 (``a`` shown first) and order 2 (swapped)."""
    reference = (strip_paths(pair.ground_truth_diff or "", exclude)
                 if shows_reference(pair, options) else None)
    system, schema = system_prompt(), verdict_schema()
    key = _pair_key(pair)
    orders = render_orders(pair, reference=reference, context=context,
                           max_diff_chars=options.max_diff_chars)
    fitter = _PairFit(pair, system, reference, context, options.max_diff_chars)
    return [JudgeRequest(key=f"{key}/order{n}", system=system, schema=schema, prompt=prompt,
                         name=VERDICT_NAME, check=verdict_problems, shared=orders.shared,
                         fit=partial(fitter.request, n, key=f"{key}/order{n}", schema=schema))
            for n, prompt in enumerate(orders.prompts, start=1)]


class _PairFit:
    """Both orders of one pair fitted to a context window by one cut: the first order's
    cut is reused by the second whenever it is small enough for it, so the two orders show
    the judge the very same text."""

    def __init__(self, pair: PlannedPair, system: str, reference: str | None,
                 context: str | None, max_diff_chars: int) -> None:
        self._pair, self._system = pair, system
        self._reference, self._context, self._max = reference, context, max_diff_chars
        self._cut: tuple[int, Orders | None] | None = None

    def request(self, order: int, max_chars: int, *, key: str,
                schema: dict[str, Any]) -> JudgeRequest | None:
        if self._cut is None or self._cut[0] > max_chars:
            orders = fitted_orders(self._pair, max_chars - len(self._system),
                                   reference=self._reference, context=self._context,
                                   max_diff_chars=self._max)
            self._cut = (max_chars, orders)
        orders = self._cut[1]
        if orders is None:
            return None
        return JudgeRequest(key=key, system=self._system, schema=schema,
                            prompt=orders.prompts[order - 1], name=VERDICT_NAME,
                            check=verdict_problems, shared=orders.shared)


def stability_indices(n: int, options: PairwiseOptions) -> list[int]:
    """Which of ``n`` (pair, order) requests ``options.stability_sample`` re-asks: chosen at
    random, seeded, so a re-run picks the same ones."""
    if not options.stability_sample or not n:
        return []
    return random.Random(options.seed).sample(range(n), min(options.stability_sample, n))


def repeat_requests(chosen: Sequence[JudgeRequest], options: PairwiseOptions
                    ) -> list[JudgeRequest]:
    """Each chosen request asked ``stability_repeats`` more times, with its repetition index."""
    return [JudgeRequest(key=f"{r.key}/repeat{k}", system=r.system, prompt=r.prompt,
                         schema=r.schema, name=r.name, check=r.check, repeat=k,
                         fit=_repeat_fit(r.fit, k), shared=r.shared)
            for r in chosen for k in range(1, options.stability_repeats + 1)]


def _repeat_fit(fit: Any, k: int) -> Any:
    """The fit of a repeated request: the original's, asked as repetition ``k``."""
    if fit is None:
        return None

    def repeat(max_chars: int) -> JudgeRequest | None:
        fitted = fit(max_chars)
        if fitted is None:
            return None
        return JudgeRequest(key=f"{fitted.key}/repeat{k}", system=fitted.system,
                            prompt=fitted.prompt, schema=fitted.schema, name=fitted.name,
                            check=fitted.check, repeat=k, shared=fitted.shared)
    return repeat


def _answers(outcome: ItemOutcome | None) -> dict[str, str] | None:
    if outcome is None or outcome.state != "valid" or outcome.verdict is None:
        return None
    return OrderVerdict.model_validate(outcome.verdict).answers()


def _attach_repeats(report: PairwiseResult, firsts: dict[str, ItemOutcome],
                    repeats: Sequence[ItemOutcome]) -> None:
    report.n_repeat_requests = len(repeats)
    for out in repeats:
        report.n_repeat_calls += 0 if out.cached else out.tries
        report.n_repeat_cached += int(out.cached)
        report.repeat_cost_usd += out.cost_usd
        base = out.key.rsplit("/repeat", 1)[0]
        first, again = _answers(firsts.get(base)), _answers(out)
        if first is not None and again is not None:
            report.repeats.setdefault(base, []).append((first, again))


class _EarlyRecords:
    """Pair records built as soon as both orders of a pair are answered, while other calls
    are in flight (the engine's ``on_outcome``); used only for the very outcomes the run
    returns, so a record is the same whether it was built early or at the end."""

    def __init__(self, asked: Sequence[PlannedPair], shown: dict[int, tuple[bool, bool]],
                 n: int) -> None:
        self._asked, self._shown, self._n = asked, shown, n
        self._outcomes: dict[int, ItemOutcome] = {}
        self._records: dict[int, tuple[ItemOutcome, ItemOutcome, PairRecord]] = {}

    def __call__(self, i: int, outcome: ItemOutcome) -> None:
        if i >= self._n:  # a repeat: no record of its own
            return
        self._outcomes[i] = outcome
        other = self._outcomes.get(i ^ 1)
        if other is None:
            return
        k = i // 2
        first, second = (outcome, other) if i % 2 == 0 else (other, outcome)
        pair = self._asked[k]
        ref, ctx = self._shown[id(pair)]
        self._records[k] = (first, second, _record(pair, [first, second], reference=ref,
                                                   context=ctx))

    def get(self, k: int, outcomes: Sequence[ItemOutcome] | None) -> PairRecord | None:
        """Pair ``k``'s record if it was built from exactly ``outcomes``."""
        got = self._records.get(k)
        if got is None or outcomes is None or len(outcomes) != 2:
            return None
        first, second, record = got
        return record if outcomes[0] is first and outcomes[1] is second else None


def _check_pairs(tasks: Sequence[Any], options: PairwiseOptions) -> None:
    """Every arm the pairs option names must be some result's."""
    present = {arm for tc in tasks for arm in tc.arms}
    missing = sorted({arm for p in options.pairs or () for arm in p} - present)
    if missing:
        raise ConfigError(f"{{option:pairs}} names {', '.join(map(repr, missing))}, which no "
                          f"result has (arms: {', '.join(sorted(present)) or 'none'})")


class _Plan:
    """The pairs to judge, and their requests, built as the engine reads them."""

    def __init__(self, pairs: list[PlannedPair], options: PairwiseOptions,
                 exclude: Sequence[str]) -> None:
        self.pairs, self.options, self.exclude = pairs, options, exclude
        self.asked = [p for p in pairs if not p.identical]
        self.n = 2 * len(self.asked)
        self.chosen = stability_indices(self.n, options)
        self.total = self.n + len(self.chosen) * options.stability_repeats
        #: id(pair): reference shown, context shown.
        self.shown: dict[int, tuple[bool, bool]] = {}
        #: paths of the code context refused for leading out of the repository root.
        self.escapes = Escapes()

    def requests(self) -> Iterator[JudgeRequest]:
        """Both orders of each pair, built as the engine reads them; then the repeats."""
        built: list[JudgeRequest] = []
        for pair in self.asked:
            context = _code_context(pair, self.options, self.escapes)
            self.shown[id(pair)] = (shows_reference(pair, self.options), context is not None)
            two = build_requests(pair, self.options, context, exclude=self.exclude)
            built.extend(two)
            yield from two
        yield from repeat_requests([built[i] for i in self.chosen], self.options)

    def records(self, outcomes: Sequence[ItemOutcome], early: _EarlyRecords,
                dry_run: bool) -> list[PairRecord]:
        """One record per planned pair, from its two outcomes (none for identical pairs)."""
        records, at = [], 0
        for pair in self.pairs:
            if pair.identical:
                records.append(_record(pair, None, reference=False, context=False))
                continue
            two = outcomes[at:at + 2] if outcomes else None
            record = early.get(at // 2, two)
            if record is None:
                ref, ctx = self.shown[id(pair)]
                record = _record(pair, two, reference=ref, context=ctx, dry_run=dry_run)
            records.append(record)
            at += 2
        return records


def _with_escapes(notes: list[str], escapes: Escapes) -> list[str]:
    """``notes`` and, when the code context refused paths, a note saying so."""
    line = escapes.note("code-context path(s) (from the runs' repositories and diffs)")
    return [*notes, line] if line else notes


def run_pairwise(runs: Sequence[RunResult],
                 summary: ScoreSummary | Sequence[ScoredResult] | None, engine: Judge,
                 options: PairwiseOptions | None = None, *,
                 exclude: Sequence[str] = DEFAULT_INFRA_PATHS) -> PairwiseResult:
    """Judge every planned pair in both orders and combine them by flip-and-draw.

    ``summary`` is the runs' score summary or just their scored rows (what pairing reads:
    test outcomes and F1); without it the runs are scored here.
    ``engine`` is a :class:`judgekit.engine.Judge` (an :class:`~judgekit.engine.Engine`);
    on a dry run (``engine.config.dry_run``) no call is made and the result carries the
    estimate instead of verdicts. With ``options.stability_sample``, that many (pair,
    order) requests are asked ``stability_repeats`` more times, in the same run.
    """
    options = options or PairwiseOptions()
    tasks, notes = collect(runs, _scored_rows(runs, summary, exclude), exclude=exclude)
    if options.pairs:
        _check_pairs(tasks, options)
    plan = _Plan(plan_pairs(tasks, pairs=options.pairs, select=options.select), options,
                 exclude)
    config = engine.config
    common: dict[str, Any] = dict(judge=config.model, select=options.select, notes=notes,
                                  threshold=options.reliability_threshold, seed=options.seed)
    early = _EarlyRecords(plan.asked, plan.shown, plan.n)
    if config.dry_run:
        estimate = engine.estimate(list(plan.requests()))
        common["notes"] = _with_escapes(notes, plan.escapes)
        return PairwiseResult(records=plan.records([], early, True), estimate=estimate,
                              **common)
    outcomes = (engine.run(plan.requests(), total=plan.total, on_outcome=early)
                if plan.total else [])
    common["notes"] = _with_escapes(notes, plan.escapes)
    result = PairwiseResult(
        records=plan.records(outcomes, early, False),
        stopped=engine.stopped, spend_usd=engine.spent_usd,
        sizes=[(patch_size(p.a.diff), patch_size(p.b.diff)) for p in plan.pairs],
        anchors=[anchor_of(p) for p in plan.pairs], **common)
    _attach_repeats(result, {o.key: o for o in outcomes[:plan.n]}, outcomes[plan.n:])
    return result
