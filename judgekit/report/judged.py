"""What the reports say about the judged parts: pairwise judging and the audit.

Read from the typed summary (``pairwise``, ``pairwise_ranking``, ``pairwise_run``, ``audit``
of :class:`~judgekit.summary.EvalSummary`) and the typed records of ``pairwise.jsonl``
(:class:`~judgekit.pairwise.PairRecord`) and ``audit.jsonl``
(:class:`~judgekit.audit.AuditRecord`).

Example:
    >>> win_rate(PairDimensionStats(win_rate_a=0.5, win_rate_a_ci=(0.3, 0.7)))
    '50.0% [30.0%, 70.0%]'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from judgekit.audit import AuditRecord, extract_quotes
from judgekit.corrected import EffectiveJudges
from judgekit.ingest.models import ResultKey
from judgekit.report.format import interval, pct, spend
from judgekit.report.load import ReportInputs
from judgekit.summary import (
    AuditStats,
    DimensionReliability,
    EvalSummary,
    JudgeReliability,
    PairDimensionStats,
    SizeBias,
)

DIMENSION_ORDER = ("consistency", "completeness", "minimality")


@dataclass
class PairView:
    """Pairwise statistics of one arm pair, by dimension."""

    name: str
    arm_a: str
    arm_b: str
    dimensions: list[tuple[str, PairDimensionStats]]


def _dim_key(dim: str) -> tuple[int, str]:
    return (DIMENSION_ORDER.index(dim) if dim in DIMENSION_ORDER else 99, dim)


def in_dimension_order(dims: Iterable[str]) -> list[str]:
    """Dimensions in their usual order, others after them by name.

    Example:
        >>> in_dimension_order(["style", "minimality", "consistency"])
        ['consistency', 'minimality', 'style']
    """
    return sorted(dims, key=_dim_key)


def pairwise_views(summary: EvalSummary) -> list[PairView]:
    """Arm pairs of the pairwise summary, dimensions in their usual order."""
    if summary.pairwise is None:
        return []
    views = []
    for name, dims in summary.pairwise.pairs().items():
        if " vs " not in name or not dims:
            continue
        arm_a, arm_b = name.split(" vs ", 1)
        items = sorted(dims.items(), key=lambda it: _dim_key(it[0]))
        views.append(PairView(name, arm_a, arm_b, items))
    return views


def win_rate(stats: PairDimensionStats) -> str:
    """``"62.5% [40.1%, 80.2%]"``: arm_a's win rate with its interval."""
    if stats.win_rate_a is None:
        return "–"
    ci = stats.win_rate_a_ci
    return f"{pct(stats.win_rate_a)} {interval(ci, True)}" if ci else pct(stats.win_rate_a)


def rankings(summary: EvalSummary) -> dict[str, list[tuple[str, float]]]:
    """Bradley–Terry strengths per dimension, best first."""
    if summary.pairwise_ranking is None:
        return {}
    return {dim: sorted(entry.strength.items(), key=lambda kv: (-kv[1], kv[0]))
            for dim, entry in summary.pairwise_ranking.dimensions().items() if entry.strength}


def ranking_cell(summary: EvalSummary, dim: str, arm: str) -> str:
    """``"#1 (0.620)"`` and, when the ranking has one, the strength's interval."""
    ranked = rankings(summary).get(dim, [])
    order = [a for a, _ in ranked]
    if arm not in order:
        return "–"
    text = f"#{order.index(arm) + 1} ({dict(ranked)[arm]:.3f}"
    entry = summary.pairwise_ranking.dimensions()[dim] if summary.pairwise_ranking else None
    ci = (entry.ci or {}).get(arm) if entry is not None else None
    return text + (f", 95% CI {ci[0]:.3f}–{ci[1]:.3f})" if ci else ")")


def unscored_count(stats: PairDimensionStats) -> int:
    """Pairs of one dimension without a verdict (unscored or failed)."""
    return stats.n_unscored or stats.unscored + stats.error


def pairwise_run_line(summary: EvalSummary) -> str:
    """One sentence on how the pairwise judging ran (judge, pairs, calls, cost)."""
    run = summary.pairwise_run
    if run is None:
        return ""
    bits = [f"judge {run.judge}" if run.judge else "", f"{run.n_pairs} pairs",
            f"{run.n_identical} identical (draws without a call)" if run.n_identical else "",
            f"{run.n_calls} calls",
            f"{run.n_cached} answers from the cache" if run.n_cached else "",
            f"{run.n_skipped_cost} not judged: the cost cap was reached"
            if run.n_skipped_cost else "",
            f"cost {spend(run.cost_usd)}",
            "dry run: no call was made" if run.dry_run else ""]
    return "Pairwise judging: " + "; ".join(b for b in bits if b) + "."


# --- judge reliability --------------------------------------------------------------------

def by_dimension(rel: JudgeReliability) -> list[tuple[str, DimensionReliability]]:
    """The reliability per dimension, dimensions in their usual order."""
    return sorted(rel.by_dimension.items(), key=lambda it: _dim_key(it[0]))


def reliability_headline(rel: JudgeReliability) -> str:
    """The verdict on the pairwise judge in one sentence, then its own message."""
    head = ("The pairwise judge is NOT reliable here" if rel.flagged
            else "The pairwise judge passed its reliability checks")
    reasons = f" ({'; '.join(rel.reasons)})" if rel.flagged and rel.reasons else ""
    tail = f" {rel.message}" if rel.message else ""
    return f"{head}{reasons}.{tail}"


def reliability_facts(rel: JudgeReliability) -> list[str]:
    """Plain sentences on each reliability metric that was measured."""
    out = []
    if rel.position_consistency is not None:
        out.append(f"Position consistency {pct(rel.position_consistency)}: the share of "
                   "comparisons whose winner survived swapping the two solutions (flagged "
                   f"below {pct(rel.threshold)}).")
    if rel.preference_fairness is not None:
        f, ci = rel.preference_fairness, rel.preference_fairness_ci
        span = f" (95% interval {ci[0]:+.2f} to {ci[1]:+.2f})" if ci else ""
        clear = ci is not None and (ci[0] > 0 or ci[1] < 0)
        side = "the solution shown first" if f > 0 else "the solution shown second"
        lean = (f"the judge leans to {side}, and the interval excludes 0" if clear else
                f"the judge leans to {side}, within what chance allows" if ci and f else
                "no lean to either slot was found" if ci or not f else
                f"the judge leans to {side} (no interval)")
        out.append(f"Preference fairness {f:+.2f}{span}: 0 is fair, +1 always the first slot, "
                   f"-1 always the second; {lean}.")
    if rel.repetition_stability is not None:
        out.append(f"Repetition stability {pct(rel.repetition_stability)}: {rel.n_repeat_calls} "
                   f"repeated calls ({rel.n_repeats} per request) gave the first answer again "
                   "this often.")
    size = size_fact(rel.size_bias)
    if size:
        out.append(size)
    out += anchor_facts(rel)
    return out


def anchor_facts(rel: JudgeReliability) -> list[str]:
    """One sentence per anchor with anchored pairs: how often the verdicts agree with the
    tests (completeness) and the fix (minimality)."""
    anchors = rel.anchors
    if anchors is None:
        return []
    out = []
    for what, check in (("Tests", anchors.tests), ("Fix", anchors.fix)):
        if not check.n_pairs:
            continue
        shares = ("no verdict" if not check.n else
                  f"{pct(check.share_right)} favoured the right side, {pct(check.share_draw)} "
                  f"were draws, {pct(check.share_wrong)} favoured the wrong side"
                  + (f" (95% interval {pct(check.share_wrong_ci[0])}–"
                     f"{pct(check.share_wrong_ci[1])})" if check.share_wrong_ci else ""))
        flag = "flagged" if check.flagged else "not flagged"
        out.append(f"{what} anchor on {check.dimension}: {check.n_pairs} anchored pairs "
                   f"(right side: {check.right_side}); of the {check.n} with a verdict "
                   f"{shares}; {flag} ({anchors.rule}).")
    return out


def size_fact(bias: SizeBias | None) -> str | None:
    """One sentence on a judge's lean to the larger patch (None when not measured)."""
    if bias is None:
        return None
    if bias.share_larger is None or not bias.n:
        return ("Size bias: no decisive verdict between patches of unequal size, so the "
                "lean to the larger patch could not be measured.")
    ci = bias.share_larger_ci
    span = f" (95% interval {pct(ci[0])}–{pct(ci[1])})" if ci else ""
    verdict = (f"flagged on {', '.join(bias.flagged_dimensions)}: the verdicts follow size"
               if bias.flagged else "not flagged")
    return (f"Size bias: the larger patch won {pct(bias.share_larger)} of {bias.n} decisive "
            f"verdicts between patches of unequal size{span}; 50% is blind to size. A "
            f"dimension is flagged at {pct(bias.threshold)} or more over at least "
            f"{bias.min_n} verdicts with the interval above 50%: {verdict}.")


# --- the audit ----------------------------------------------------------------------------

@dataclass(frozen=True)
class AuditWords:
    """How the reports speak of an audit: of results that did not pass, or of benchmark
    items audited with no run (an item audit), which have no result, run or arm."""

    #: the section's heading.
    title: str
    #: what one record is of, singular and plural.
    one: str
    many: str
    #: the counts' sentence starts "N {audited}".
    audited: str
    #: a verdict of score 1, and one of score 0.
    blamed: str
    cleared: str
    #: the second question of the rubric.
    caused: str
    #: the mark of a suspected one, the heading of them all, why they are suspected, and
    #: the line when there are none.
    suspect: str
    suspected: str
    why_suspected: str
    none_suspected: str
    #: whether a record's title names its arm and attempt, and shows its test status.
    per_result: bool


RESULT_WORDS = AuditWords(
    title="Audit of failed results", one="result", many="results",
    audited="failed results audited", blamed="task defect caused the failure",
    cleared="agent's failure", caused="Did it cause the failure?",
    suspect="suspected defective task", suspected="Suspected defective tasks",
    why_suspected="Several independent runs blame these tasks on the same defect. Check "
                  "them before trusting their results.",
    none_suspected="No task is suspected of being defective.", per_result=True)
ITEM_WORDS = AuditWords(
    title="Audit of benchmark items", one="item", many="items", audited="items audited",
    blamed="item defect would fail a correct fix", cleared="no defect that fails a correct fix",
    caused="Would it make a correct fix fail?", suspect="suspected defective item",
    suspected="Suspected defective items",
    why_suspected="The judge blames these items on a defect, with every quote it gives "
                  "found in the item's texts. Check them before using them.",
    none_suspected="No item is suspected of being defective (a verdict whose quotes are not "
                   "found in the item's texts suspects nothing).", per_result=False)


def audit_words(audit: AuditStats | None) -> AuditWords:
    """The words of ``audit``'s kind."""
    return ITEM_WORDS if audit is not None and audit.audited == "items" else RESULT_WORDS


def item_audit(summary: EvalSummary) -> bool:
    """The output of an item audit: benchmark items audited, no result scored."""
    return (summary.audit is not None and summary.audit.audited == "items"
            and not summary.results)


def item_audit_line(summary: EvalSummary) -> str:
    """The report's first line for an audit of benchmark items."""
    audit = summary.audit
    n = audit.n_failed if audit is not None else 0
    rubric = f" with rubric {audit.rubric}" if audit is not None and audit.rubric else ""
    return (f"{n} benchmark item{'s' if n != 1 else ''} audited{rubric}; nothing was "
            f"scored (an item audit judges each item's texts, with no agent).")


class VerdictView(BaseModel):
    """The fields of a record's verdict a report shows: the verdict's, or every one empty
    for a record without a verdict (unscored, error)."""

    model_config = ConfigDict(extra="ignore")

    score: int | None = None
    deficiency_exists: bool | None = None
    deficiency_caused_failure: bool | None = None
    deficiency_type: str | None = None
    existence_reasoning: str = ""
    causation_reasoning: str = ""
    evidence: str | list[str] | None = None


def verdict_of(rec: AuditRecord) -> VerdictView:
    """The record's verdict (empty when it has none)."""
    return VerdictView.model_validate(rec.verdict.model_dump() if rec.verdict else {})


def answers_of(rec: AuditRecord) -> int:
    """Judge answers a record used: its tries, or, for a record served without a call of
    its own (an identical request of the same run was asked), one per sample."""
    return rec.tries or (rec.samples if rec.cached else 0)


def judge_answers(records: list[AuditRecord]) -> tuple[int, int] | None:
    """``(answers, from_cache)``: judge answers the audit records used, and how many of them
    came from the cache (records whose every sample was cached); ``None`` without records."""
    if not records:
        return None
    answers = sum(r.tries for r in records)
    cached = sum(r.tries for r in records if r.cached)
    return answers, cached


def _calls_bits(audit: AuditStats, records: list[AuditRecord] | None) -> list[str]:
    counted = judge_answers(records or [])
    if counted is None:
        # Without the records the summary cannot tell calls from cached answers.
        return [f"{audit.tries_total} judge answers" if audit.tries_total else ""]
    answers, cached = counted
    calls = answers - cached
    if not answers:
        return ["0 judge calls"]
    # With several samples per result a record not wholly cached may still hold cached
    # samples, so its answers bound the calls from above.
    partial = audit.samples > 1 and any(not r.cached and r.tries > 0 for r in records or [])
    call_text = f"{'at most ' if partial and calls else ''}{calls} judge calls"
    if not cached:
        return [call_text]
    if not calls:
        return [f"0 judge calls; all {answers} answers from the cache"]
    return [f"{call_text}; {cached} of {answers} answers from the cache"]


def audit_run_line(audit: AuditStats, records: list[AuditRecord] | None = None) -> str:
    """One sentence on how the audit ran (rubric, judge, samples, calls, cache, cost).

    With the records of ``audit.jsonl`` it tells calls made from answers served by the cache;
    without them it only counts answers.

    Example:
        >>> audit_run_line(AuditStats(judge="m", cost_usd=0.0),
        ...                [AuditRecord(task_id="t", arm="a", attempt=0, test_status="failed",
        ...                             state="valid", tries=2, cached=True)])
        'Audit: judge m; 0 judge calls; all 2 answers from the cache; cost $0.00.'
    """
    bits = [f"rubric {audit.rubric}" if audit.rubric else "",
            f"judge {audit.judge}" if audit.judge else "",
            f"{audit.samples} samples per {audit_words(audit).one} (majority)"
            if audit.samples > 1 else "",
            *_calls_bits(audit, records),
            f"{audit.n_skipped_cost} not audited: the cost cap was reached"
            if audit.n_skipped_cost else "",
            f"cost {spend(audit.cost_usd)}" if audit.cost_usd is not None else ""]
    text = "; ".join(b for b in bits if b)
    return f"Audit: {text}." if text else ""


def effective_text(ej: EffectiveJudges | None) -> str:
    """The jury's effective number of judges, with its formula.

    Example:
        >>> effective_text(EffectiveJudges(n_judges=3, n_effective=1.5, mean_correlation=0.5,
        ...                                n_judge_pairs=3, n_items=10))[:52]
        'The 3 judges amount to 1.5 independent ones (mean co'
    """
    if ej is None:
        return ""
    if ej.n_effective is None:
        return (f"The {ej.n_judges} judges' {ej.of} have no correlation to measure (none "
                "varies): no effective number of judges.")
    return (f"The {ej.n_judges} judges amount to {ej.n_effective:.1f} independent ones (mean "
            f"correlation of their {ej.of} {ej.mean_correlation:.2f} over {ej.n_items} "
            f"items; {ej.formula}).")


def audit_jury_lines(audit: AuditStats) -> tuple[str, list[str]]:
    """With an audit jury: one sentence on its judges, and the results they disagree on.

    Example:
        >>> from judgekit.summary import AuditJury, AuditJuryMember
        >>> jury = AuditJury(judges=["m1", "m2"], n_disagreements=1,
        ...                  disagreements=["t / x / attempt 0: m1 1 (Flaky Tests), m2 0"],
        ...                  members={"m1": AuditJuryMember(model="m1", n_valid=2, n_ife=1),
        ...                           "m2": AuditJuryMember(model="m2", n_valid=2, n_ife=0)})
        >>> head, listed = audit_jury_lines(AuditStats(jury=jury))
        >>> head.split(": ", 1)[1], len(listed)
        ('m1 1 of 2 valid verdicts blame the item; m2 0 of 2. They disagree on 1 result.', 1)
    """
    jury = audit.jury
    if jury is None:
        return "", []
    one = audit_words(audit).one
    members = [f"{label} {m.n_ife} of {m.n_valid}" + (" valid verdicts blame the item"
                                                       if not n else "")
               for n, (label, m) in enumerate(jury.members.items())]
    n = jury.n_disagreements
    head = (f"Audit jury of {len(jury.judges)} judges, each {one} classified by the "
            f"majority of their scores (a tie is 0): {'; '.join(members)}. "
            + (f"They disagree on {n} {one}{'s' if n != 1 else ''}." if n
               else f"They agree on every {one}.")
            + (f" {effective_text(jury.effective_judges)}" if jury.effective_judges else ""))
    return head, list(jury.disagreements)


def record_key(rec: AuditRecord) -> ResultKey:
    """The result a verdict is of, whichever run it came from."""
    return ResultKey(rec.task_id, rec.arm, rec.attempt)


def repeated_keys(records: list[AuditRecord]) -> set[ResultKey]:
    """(task, arm, attempt) keys that records of more than one run share: their titles
    need the run id to tell them apart."""
    runs: dict[ResultKey, set[str]] = {}
    for r in records:
        runs.setdefault(record_key(r), set()).add(r.run_id or "")
    return {k for k, ids in runs.items() if len(ids) > 1}


def short_run_id(run_id: object, width: int = 24) -> str:
    """A run id cut to ``width`` characters, keeping its end (where ids usually differ).

    Example:
        >>> short_run_id("20260210-194843-a327")
        '20260210-194843-a327'
    """
    text = str(run_id or "?")
    return text if len(text) <= width else "…" + text[-(width - 1):]


def record_title(rec: AuditRecord, with_run: bool, sep: str = " · ") -> str:
    """``task · arm · attempt N`` and, when ``with_run``, ``· run ID``; a benchmark item's
    id alone."""
    if rec.is_item:
        return rec.task_id
    parts = [rec.task_id, rec.arm, f"attempt {rec.attempt}"]
    if with_run:
        parts.append(f"run {short_run_id(rec.run_id)}")
    return sep.join(parts)


def suspected_types(audit: AuditStats) -> dict[str, str]:
    """Task id → the defect category the suspecting verdicts blamed."""
    return {t.task_id: t.suspected_type for t in audit.tasks
            if t.suspected and t.suspected_type}


def sorted_audit(inputs: ReportInputs) -> list[AuditRecord]:
    """Audit records: suspected tasks first, then defects found, then the rest."""
    audit = inputs.summary.audit
    suspected = audit.suspected_tasks if audit is not None else []

    def key(rec: AuditRecord) -> tuple[int, int, str, str, int, str]:
        rank = suspected.index(rec.task_id) if rec.task_id in suspected else len(suspected)
        return (rank, 0 if rec.score == 1 else 1 if rec.state == "valid" else 2,
                rec.task_id, rec.arm, rec.attempt, rec.run_id or "")

    return sorted(inputs.audit, key=key)


def missing_in(passage: str, not_found: Sequence[str]) -> list[str]:
    """The quotes of one evidence passage that the audit did not find in the materials
    (a passage is shown with its quote marks; the check looked up what is inside them)."""
    inside = {passage, *extract_quotes(passage)}
    return [q for q in not_found if q in inside]


def evidence_list(verdict: VerdictView) -> list[str]:
    ev = verdict.evidence
    if not ev:
        return []
    return [ev] if isinstance(ev, str) else list(ev)
