"""Judge a judged output again: add judges to it, or replace them, without re-running.

An output directory (where ``judgekit judge`` writes) keeps what judging needs: the loaded results
with their diffs (``runs.jsonl``), their scores (``summary.json``), and each judge's
verdicts (``pairwise.jsonl``; with a jury, each judge's own under ``judges``). So a judge
can be added later: only the new judge is asked; the verdicts already there, each judge's
summary entries (results, self-audit, size control, cost) and every other step of the
output (the audit, and any step registered in :mod:`judgekit.step_registry`) are reused as
they are, and the jury's verdicts and agreement are computed again over the old and the new
judges.

Which judges make the new jury:

* by default, the output's judges, then each judge given that the output does not have;
* with ``replace``, exactly the judges given, in their order: an output judge that is not
  given is dropped, and a given judge the output already has keeps its verdicts.

A judge is the output's when its name (its model id; ``model@url`` where two judges share
a model id) is one of the output's judges' names. The new judge is asked the same pairs
(the output's ``select``, unless other options are given) and shown the same: a plan that
differs from the output's records, or a reference or code context the output's judges saw
and the new judge would not, is refused before any call.

Example:
    >>> is_judged_output("examples/bobbin")
    False
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgekit.diffs import DEFAULT_INFRA_PATHS
from judgekit.errors import ConfigError, InputError
from judgekit.evaluate import EvalResult
from judgekit.engine.config import EngineConfig
from judgekit.engine.engine import Engine
from judgekit.engine.jury import JuryRunner, juror_labels
from judgekit.outputs import RUNS_FILE, SUMMARY_FILE
from judgekit.pairwise.anchors import anchor_of
from judgekit.pairwise.jury import Juror, JuryResult, JuryRule
from judgekit.pairwise.models import PairwiseStepSummary, PairwiseStats
from judgekit.pairwise.options import PairwiseOptions
from judgekit.pairwise.pairs import PlannedPair, collect, plan_pairs
from judgekit.pairwise.records import PairRecord
from judgekit.pairwise.result import PairwiseResult
from judgekit.pairwise.size import patch_size
from judgekit.pairwise.step import shows_reference
from judgekit.report.load import ReportInputs, load_report_dir
from judgekit.scoring.models import ScoreSummary
from judgekit.step_registry import STEPS
from judgekit.steps import AnyResult, StepResult
from judgekit.summary import EvalSummary

__all__ = ["JudgedOutput", "is_judged_output", "load_judged_output", "rejudge"]

from judgekit.report.outdir import RECORDS, is_judged_output



@dataclass
class JudgedOutput:
    """A judged output directory, read back."""

    path: Path
    inputs: ReportInputs

    @property
    def summary(self) -> EvalSummary:
        """``summary.json`` (each judge's entries are reused as they are)."""
        return self.inputs.summary


def load_judged_output(path: str | Path) -> JudgedOutput:
    """Read an output directory for judging again; a missing part is an :class:`InputError`."""
    out = Path(path)
    for name, why in ((RUNS_FILE, "the loaded results the judges were shown"),
                      (RECORDS, "the verdicts to reuse")):
        if not (out / name).is_file():
            raise InputError(out / name, None, f"missing: a judged output keeps {why}")
    inputs = load_report_dir(out)
    if not inputs.runs:
        raise InputError(out / RUNS_FILE, None, "holds no results to judge")
    if inputs.summary.pairwise_run is None:
        raise InputError(out / SUMMARY_FILE, "pairwise_run", "missing: no pairwise judging "
                                                               "to add a judge to")
    return JudgedOutput(out, inputs)


@dataclass
class _Prior:
    """One judge of the output: its verdicts and its summary entries."""

    label: str
    model: str
    base_url: str | None
    records: list[PairRecord]
    entries: PairwiseStepSummary


def _own_records(records: Sequence[PairRecord], label: str) -> list[PairRecord]:
    """One judge's records of a jury's output, as that judge alone would have written them."""
    out = []
    for rec in records:
        own = (rec.judges or {}).get(label)
        if own is None:
            raise InputError(RECORDS, f"judges.{label}", f"missing in the record of "
                                                         f"{rec.task_id}")
        base = rec.model_dump(exclude={"dimensions", "orders", "judges"})
        out.append(PairRecord(**base, dimensions=own.dimensions, orders=own.orders))
    return out


def _sole_judge(summary: EvalSummary, records: list[PairRecord]) -> _Prior:
    """The one judge of an output judged without a jury."""
    assert summary.pairwise_run is not None  # checked on loading
    pairwise = summary.pairwise or PairwiseStats()
    entries = PairwiseStepSummary(
        pairwise=pairwise.model_copy(update={"jury": None}), pairwise_run=summary.pairwise_run)
    for key in ("pairwise_size", "pairwise_ranking"):
        if key in summary.model_fields_set:
            setattr(entries, key, getattr(summary, key))
    model = summary.pairwise_run.judge or "judge"
    base_url = summary.judge.base_url if summary.judge is not None else None
    return _Prior(model, model, base_url, records, entries)


def prior_judges(output: JudgedOutput) -> list[_Prior]:
    """The output's judges, in its order."""
    summary, records = output.summary, output.inputs.pairwise
    jury = summary.pairwise.jury if summary.pairwise is not None else None
    if jury is None:
        return [_sole_judge(summary, list(records))]
    priors = []
    for label in jury.judges:
        m = jury.members[label]
        entries = PairwiseStepSummary(
            pairwise=PairwiseStats(judge_reliability=m.judge_reliability, **m.pairs),
            pairwise_size=m.size_control or {}, pairwise_run=m.run)
        priors.append(_Prior(label, m.model, m.base_url, _own_records(records, label),
                             entries))
    return priors


def _pair_key(task: str, a: str, b: str, attempt_a: int, attempt_b: int
              ) -> tuple[str, str, str, int, int]:
    return (task, a, b, attempt_a, attempt_b)


def _check_plan(pairs: Sequence[PlannedPair], records: Sequence[PairRecord],
                options: PairwiseOptions, path: Path) -> None:
    """The new judges must be asked the very pairs the output's judges were, shown the same."""
    planned = [_pair_key(p.task.id, p.a.arm, p.b.arm, p.a.attempt, p.b.attempt) for p in pairs]
    kept = [_pair_key(r.task_id, r.arm_a, r.arm_b, r.attempt_a, r.attempt_b) for r in records]
    if planned != kept:
        raise ConfigError(
            f"the pairs planned for the new judge ({len(planned)}) are not the {len(kept)} "
            f"pairs of {path / RECORDS}: give the options the output was judged with "
            "(pairs, select, exclude)")
    for pair, rec in zip(pairs, records):
        if rec.identical:
            continue
        if rec.reference_shown and not shows_reference(pair, options):
            raise ConfigError(f"the output's judges were shown the reference fix "
                              f"({rec.task_id}): show it to the new judge too")
        if rec.context_shown and options.repo_root is None:
            raise ConfigError(f"the output's judges were shown code context "
                              f"({rec.task_id}): give the new judge the same checkout")


def _prior_result(prior: _Prior, common: dict[str, Any]) -> PairwiseResult:
    result = PairwiseResult(records=prior.records, judge=prior.model, **common)
    result.keep_summary(prior.entries)  # its statistics as the output has them
    return result


def _ask(configs: Sequence[EngineConfig], labels: Sequence[str], output: JudgedOutput,
         options: PairwiseOptions, exclude: Sequence[str]) -> tuple[list[Juror], list[Engine]]:
    """Each new judge judges every pair in turn; a cost cap holds for them as a whole
    (:mod:`judgekit.engine.jury`). The jurors, and the engines that asked them."""
    from judgekit.pairwise import run_pairwise

    if not configs:
        return [], []
    runner = JuryRunner(configs, labels=labels)
    seats = runner.each(lambda engine: run_pairwise(
        output.inputs.runs, output.inputs.summary.results, engine, options, exclude=exclude))
    return ([Juror(s.label, s.config.model, s.config.base_url, s.result) for s in seats],
            [s.engine for s in seats])


def new_labels(configs: Sequence[Any], priors: Sequence[str]) -> list[str]:
    """A name per judge given: its model id, ``model@url`` where two given judges share a
    model id; a judge whose model id or name is one of ``priors`` takes that name."""
    labels = juror_labels([(c.model, c.base_url) for c in configs])
    return [c.model if c.model in priors else label for c, label in zip(configs, labels)]


def rejudge(output: JudgedOutput, judges: Sequence[Any], *, replace: bool = False,
            options: PairwiseOptions | None = None, rule: JuryRule | None = None,
            exclude: Sequence[str] = DEFAULT_INFRA_PATHS) -> EvalResult:
    """The output with the judges ``judges`` (engine configs) added, or in place of its own
    (``replace``): only judges the output does not have are asked. ``options.select`` of
    None means the output's; ``rule`` None the output's (else majority)."""
    if not judges:
        raise ConfigError("give the judge(s) to add")
    summary, inputs = output.summary, output.inputs
    assert summary.pairwise_run is not None  # checked on loading
    options = options or PairwiseOptions()
    jury = summary.pairwise.jury if summary.pairwise is not None else None
    named = rule or (jury.rule if jury is not None else None)
    chosen: JuryRule = "unanimous" if named == "unanimous" else "majority"

    options = options.model_copy(update={"jury_rule": chosen})
    priors = {p.label: p for p in prior_judges(output)}
    labels = new_labels(judges, list(priors))
    order = labels if replace else list(priors) + [x for x in labels if x not in priors]
    asked = [(label, c) for label, c in zip(labels, judges) if label not in priors]
    tasks, notes = collect(inputs.runs, inputs.summary.results, exclude=exclude)
    pairs = plan_pairs(tasks, pairs=options.pairs, select=options.select)
    _check_plan(pairs, inputs.pairwise, options, output.path)
    new, engines = _ask([c for _, c in asked], [label for label, _ in asked], output,
                        options, exclude)
    if new and new[0].result.dry_run:
        return _result(output, new[0].result if len(new) == 1 else JuryResult(new, rule=chosen))
    common: dict[str, Any] = dict(
        select=summary.pairwise_run.select, notes=list(notes),
        threshold=options.reliability_threshold, seed=options.seed,
        sizes=[(patch_size(p.a.diff), patch_size(p.b.diff)) for p in pairs],
        anchors=[anchor_of(p) for p in pairs])
    made = {j.label: j for j in new}
    jurors = [made[label] if label in made else Juror(
        label, priors[label].model, priors[label].base_url,
        _prior_result(priors[label], common)) for label in order]
    reused = [label for label in order if label not in made]
    part = jurors[0].result if len(jurors) == 1 else JuryResult(
        jurors, rule=chosen, notes=[f"verdicts of {', '.join(reused)} reused from the judged "
                                  "output (no call)"] if reused and new else [],
        reused=reused)
    result = _result(output, part)
    if engines:  # the requests of this run: the first new judge's
        result.judge = engines[0].judge_run()
    return result


def _result(output: JudgedOutput,
            pairwise: StepResult[PairRecord, PairwiseStepSummary]) -> EvalResult:
    """The output's scores, other steps and notes with the new pairwise part (``judge``: the
    output's, until a judge is asked)."""
    summary, inputs = output.summary, output.inputs
    given = summary.model_fields_set
    score = ScoreSummary(**{k: getattr(summary, k) for k in ScoreSummary.model_fields
                            if k in given})
    parts: list[AnyResult] = [pairwise]
    for kind in STEPS:  # every other step the output holds, carried over as it is
        if kind is not pairwise.kind and kind.ran(summary):
            parts.append(kind.kept(inputs.records_of(kind), kind.part_of(summary)))
    return EvalResult(summary=score, runs=list(inputs.runs), parts=parts,
                      notes=list(summary.notes), judge=summary.judge)
