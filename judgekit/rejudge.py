"""Judge a judged output again: add judges to it, or replace them, without re-running.

An output directory (``judge --out DIR``) keeps what judging needs: the loaded results
with their diffs (``runs.jsonl``), their scores (``summary.json``), and each judge's
verdicts (``pairwise.jsonl``; with a jury, each judge's own under ``judges``). So a judge
can be added later: only the new judge is asked; the verdicts already there, each judge's
summary entries (results, self-audit, size control, cost) and the audit are reused as they
are, and the jury's verdicts and agreement are computed again over the old and the new
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

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgekit.diffs import DEFAULT_INFRA_PATHS
from judgekit.errors import ConfigError, InputError
from judgekit.evaluate import EvalResult, JudgedPart
from judgekit.pairwise.jury import Juror, JuryReport, JuryRule, juror_labels
from judgekit.pairwise.options import PairwiseOptions
from judgekit.pairwise.pairs import PlannedPair, collect, plan_pairs
from judgekit.pairwise.report import PairRecord, PairwiseReport
from judgekit.pairwise.run import shows_reference
from judgekit.pairwise.size import patch_size
from judgekit.report.load import ReportInputs, load_report_dir
from judgekit.scoring.models import ScoreSummary

__all__ = ["JudgedOutput", "is_judged_output", "load_judged_output", "rejudge"]

from judgekit.report.outdir import is_judged_output

RECORDS = "pairwise.jsonl"


@dataclass
class JudgedOutput:
    """A judged output directory, read back."""

    path: Path
    inputs: ReportInputs
    summary: dict[str, Any]
    """``summary.json`` as written (each judge's entries are reused as they are)."""


def load_judged_output(path: str | Path) -> JudgedOutput:
    """Read an output directory for judging again; a missing part is an :class:`InputError`."""
    out = Path(path)
    for name, why in (("runs.jsonl", "the loaded results the judges were shown"),
                      (RECORDS, "the verdicts to reuse")):
        if not (out / name).is_file():
            raise InputError(out / name, None, f"missing: a judged output keeps {why}")
    inputs = load_report_dir(out)
    if not inputs.runs:
        raise InputError(out / "runs.jsonl", None, "holds no results to judge")
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    if inputs.summary.pairwise_run is None:
        raise InputError(out / "summary.json", "pairwise_run", "missing: no pairwise judging "
                                                               "to add a judge to")
    return JudgedOutput(out, inputs, summary)


@dataclass
class _Prior:
    """One judge of the output: its verdicts and its summary entries."""

    label: str
    model: str
    base_url: str | None
    records: list[PairRecord]
    entries: dict[str, Any]


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


def prior_judges(output: JudgedOutput) -> list[_Prior]:
    """The output's judges, in its order."""
    data, records = output.summary, output.inputs.pairwise
    jury = (data.get("pairwise") or {}).get("jury")
    if jury is None:
        pairwise = {k: v for k, v in (data.get("pairwise") or {}).items() if k != "jury"}
        entries = {"pairwise": pairwise, "pairwise_run": data["pairwise_run"]}
        for key in ("pairwise_size", "pairwise_ranking"):
            if key in data:
                entries[key] = data[key]
        model = data["pairwise_run"].get("judge") or "judge"
        judge = data.get("judge") or {}
        return [_Prior(model, model, judge.get("base_url"), list(records), entries)]
    priors = []
    for label in jury["judges"]:
        m = jury["members"][label]
        entries = {"pairwise": {**m["pairs"], "judge_reliability": m["judge_reliability"]},
                   "pairwise_size": m.get("size_control") or {}, "pairwise_run": m["run"]}
        priors.append(_Prior(label, m["model"], m.get("base_url"),
                             _own_records(records, label), entries))
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


@dataclass
class KeptAudit:
    """The output's audit, carried over unchanged (a ``JudgedPart``)."""

    records: list[Any]
    summary: dict[str, Any]
    #: not run now: its failures were told when it ran, and are not this run's.
    carried_over: bool = True

    def summary_entries(self) -> dict[str, Any]:
        return {"audit": json.loads(json.dumps(self.summary))}

    def records_jsonl(self) -> str:
        return "".join(r.model_dump_json() + "\n" for r in self.records)


def _prior_report(prior: _Prior, common: dict[str, Any]) -> PairwiseReport:
    report = PairwiseReport(records=prior.records, judge=prior.model, **common)
    report._entries = prior.entries  # its statistics as the output has them
    return report


def _ask(configs: Sequence[Any], labels: Sequence[str], output: JudgedOutput,
         options: PairwiseOptions, exclude: Sequence[str]) -> tuple[list[Juror], list[Any]]:
    """Each new judge judges every pair in turn; a cost cap holds for them as a whole. The
    jurors, and the engines that asked them."""
    from judgekit.engine import Engine
    from judgekit.pairwise import run_pairwise

    jurors, engines, spent = [], [], 0.0
    for label, config in zip(labels, configs):
        if config.max_cost_usd is not None and spent:
            config = config.model_copy(
                update={"max_cost_usd": max(config.max_cost_usd - spent, 1e-9)})
        engine = Engine(config)
        report = run_pairwise(output.inputs.runs, output.inputs.summary.results, engine,
                              options, exclude=exclude)
        spent += engine.spent_usd
        engines.append(engine)
        jurors.append(Juror(label, config.model, config.base_url, report))
    return jurors, engines


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
    data, inputs = output.summary, output.inputs
    old_run = data["pairwise_run"]
    options = options or PairwiseOptions()
    jury = (data.get("pairwise") or {}).get("jury") or {}
    rule = rule or jury.get("rule") or "majority"
    options = options.model_copy(update={"jury_rule": rule})
    priors = {p.label: p for p in prior_judges(output)}
    labels = new_labels(judges, list(priors))
    if replace:
        order = labels
    else:
        order = list(priors) + [label for label in labels if label not in priors]
    asked = [(label, c) for label, c in zip(labels, judges) if label not in priors]
    tasks, notes = collect(inputs.runs, inputs.summary.results, exclude=exclude)
    pairs = plan_pairs(tasks, pairs=options.pairs, select=options.select)
    _check_plan(pairs, inputs.pairwise, options, output.path)
    new, engines = _ask([c for _, c in asked], [label for label, _ in asked], output,
                        options, exclude)
    if new and new[0].report.dry_run:
        part: JudgedPart = new[0].report if len(new) == 1 else JuryReport(new, rule=rule)
        return _result(output, part)
    common: dict[str, Any] = dict(
        select=old_run.get("select", options.select), notes=list(notes),
        threshold=options.reliability_threshold, seed=options.seed,
        sizes=[(patch_size(p.a.diff), patch_size(p.b.diff)) for p in pairs])
    made = {j.label: j for j in new}
    jurors = [made[label] if label in made else Juror(
        label, priors[label].model, priors[label].base_url,
        _prior_report(priors[label], common)) for label in order]
    reused = [label for label in order if label not in made]
    part = jurors[0].report if len(jurors) == 1 else JuryReport(
        jurors, rule=rule, notes=[f"verdicts of {', '.join(reused)} reused from the judged "
                                  "output (no call)"] if reused and new else [],
        reused=reused)
    result = _result(output, part)
    if engines:  # the requests of this run: the first new judge's
        result.judge = engines[0].judge_run()
    return result


def _result(output: JudgedOutput, pairwise: JudgedPart) -> EvalResult:
    """The output's scores, audit and notes with the new pairwise part (``judge``: the
    output's, until a judge is asked)."""
    data, inputs = output.summary, output.inputs
    score = ScoreSummary.model_validate(
        {k: data[k] for k in ScoreSummary.model_fields if k in data})
    audit = KeptAudit(inputs.audit, data["audit"]) if data.get("audit") is not None else None
    return EvalResult(summary=score, runs=list(inputs.runs), pairwise=pairwise, audit=audit,
                      notes=list(data.get("notes") or []), judge=inputs.summary.judge)
