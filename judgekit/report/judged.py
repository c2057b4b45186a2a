"""What the reports say about the judged parts: pairwise judging and the audit.

Written against the documented shapes of ``summary["pairwise"]``, ``summary["pairwise_ranking"]``,
``summary["pairwise_run"]``, ``summary["audit"]`` and the records of ``pairwise.jsonl`` and
``audit.jsonl``; every function tolerates missing keys.

Example:
    >>> win_rate({"win_rate_a": 0.5, "win_rate_a_ci": [0.3, 0.7]})
    '50.0% [30.0%, 70.0%]'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from judgekit.report.format import interval, pct
from judgekit.report.load import ReportInputs

DIMENSION_ORDER = ("consistency", "completeness", "minimality")


@dataclass
class PairView:
    """Pairwise statistics of one arm pair, by dimension."""

    name: str
    arm_a: str
    arm_b: str
    dimensions: list[tuple[str, dict[str, Any]]]


def pairwise_views(summary: dict[str, Any]) -> list[PairView]:
    """Arm pairs of ``summary["pairwise"]`` whose entries carry win counts."""
    views = []
    for name, dims in (summary.get("pairwise") or {}).items():
        if not isinstance(dims, dict) or " vs " not in name:
            continue
        items = [(d, s) for d, s in dims.items() if isinstance(s, dict) and "wins_a" in s]
        if not items:
            continue
        items.sort(key=lambda it: (DIMENSION_ORDER.index(it[0])
                                   if it[0] in DIMENSION_ORDER else 99, it[0]))
        arm_a, arm_b = name.split(" vs ", 1)
        views.append(PairView(name, arm_a, arm_b, items))
    return views


def win_rate(stats: dict[str, Any]) -> str:
    """``"62.5% [40.1%, 80.2%]"`` from whichever win-rate keys the statistics carry."""
    for key in ("win_rate_a", "win_rate"):
        if stats.get(key) is not None:
            ci = stats.get(f"{key}_ci")
            return f"{pct(stats[key])} {interval(ci, True)}" if ci else pct(stats[key])
    return "–"


def rankings(summary: dict[str, Any]) -> dict[str, list[tuple[str, float]]]:
    """Bradley–Terry strengths per dimension, best first, from ``pairwise_ranking``."""
    raw = summary.get("pairwise_ranking") or {}
    out: dict[str, list[tuple[str, float]]] = {}
    for dim, entry in raw.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("strength"), dict):
            continue
        strengths = {str(a): float(v) for a, v in entry["strength"].items()
                     if isinstance(v, (int, float))}
        out[dim] = sorted(strengths.items(), key=lambda kv: (-kv[1], kv[0]))
    return out


def unscored_count(stats: dict[str, Any]) -> int:
    """Pairs of one dimension without a verdict (unscored or failed)."""
    if "n_unscored" in stats:
        return int(stats.get("n_unscored") or 0)
    return int(stats.get("unscored") or 0) + int(stats.get("error") or 0)


def pairwise_run_line(summary: dict[str, Any]) -> str:
    """One sentence on how the pairwise judging ran (judge, pairs, calls, cost)."""
    run = summary.get("pairwise_run")
    if not isinstance(run, dict):
        return ""
    bits = [f"judge {run['judge']}" if run.get("judge") else "",
            f"{run.get('n_pairs', 0)} pairs" if "n_pairs" in run else "",
            f"{run.get('n_identical')} identical (draws without a call)"
            if run.get("n_identical") else "",
            f"{run.get('n_calls')} calls" if "n_calls" in run else "",
            f"{run.get('n_cached')} answers from the cache" if run.get("n_cached") else "",
            f"cost ${run['cost_usd']:.2f}" if isinstance(run.get("cost_usd"), (int, float))
            else "", "dry run: no call was made" if run.get("dry_run") else ""]
    return "Pairwise judging: " + "; ".join(b for b in bits if b) + "."


def judge_answers(records: list[dict[str, Any]]) -> tuple[int, int] | None:
    """``(answers, from_cache)``: judge answers the audit records used, and how many of them
    came from the cache (records whose every sample was cached); ``None`` without records.

    Example:
        >>> judge_answers([{"tries": 2, "cached": True}, {"tries": 1, "cached": False}])
        (3, 2)
    """
    if not records:
        return None
    answers = sum(int(r.get("tries") or 0) for r in records)
    cached = sum(int(r.get("tries") or 0) for r in records if r.get("cached") is True)
    return answers, cached


def _calls_bits(audit: dict[str, Any], records: list[dict[str, Any]] | None) -> list[str]:
    counted = judge_answers(records or [])
    if counted is None:
        # Without the records the summary cannot tell calls from cached answers.
        return [f"{audit['tries_total']} judge answers" if audit.get("tries_total") else ""]
    answers, cached = counted
    calls = answers - cached
    if not answers:
        return ["0 judge calls"]
    # With several samples per result a record not wholly cached may still hold cached
    # samples, so its answers bound the calls from above.
    partial = (audit.get("samples") or 1) > 1 and any(
        r.get("cached") is not True and int(r.get("tries") or 0) > 0 for r in records or [])
    call_text = f"{'at most ' if partial and calls else ''}{calls} judge calls"
    if not cached:
        return [call_text]
    if not calls:
        return [f"0 judge calls; all {answers} answers from the cache"]
    return [f"{call_text}; {cached} of {answers} answers from the cache"]


def audit_run_line(audit: dict[str, Any], records: list[dict[str, Any]] | None = None) -> str:
    """One sentence on how the audit ran (rubric, judge, samples, calls, cache, cost).

    With the records of ``audit.jsonl`` it tells calls made from answers served by the cache
    (their ``cached`` and ``tries`` fields); without them it only counts answers.

    Example:
        >>> audit_run_line({"judge": "m", "cost_usd": 0.0}, [{"tries": 2, "cached": True}])
        'Audit: judge m; 0 judge calls; all 2 answers from the cache; cost $0.00.'
    """
    bits = [f"rubric {audit['rubric']}" if audit.get("rubric") else "",
            f"judge {audit['judge']}" if audit.get("judge") else "",
            f"{audit['samples']} samples per result (majority)"
            if (audit.get("samples") or 1) > 1 else "",
            *_calls_bits(audit, records),
            f"cost ${audit['cost_usd']:.2f}" if isinstance(audit.get("cost_usd"), (int, float))
            else ""]
    text = "; ".join(b for b in bits if b)
    return f"Audit: {text}." if text else ""


def repeated_keys(records: list[dict[str, Any]]) -> set[tuple[str, str, int]]:
    """(task, arm, attempt) keys that records of more than one run share: their titles
    need the run id to tell them apart."""
    runs: dict[tuple[str, str, int], set[str]] = {}
    for r in records:
        runs.setdefault(record_key(r), set()).add(str(r.get("run_id") or ""))
    return {k for k, ids in runs.items() if len(ids) > 1}


def record_key(rec: dict[str, Any]) -> tuple[str, str, int]:
    return (str(rec.get("task_id")), str(rec.get("arm")), int(rec.get("attempt") or 0))


def short_run_id(run_id: object, width: int = 24) -> str:
    """A run id cut to ``width`` characters, keeping its end (where ids usually differ).

    Example:
        >>> short_run_id("20260210-194843-a327")
        '20260210-194843-a327'
    """
    text = str(run_id or "?")
    return text if len(text) <= width else "…" + text[-(width - 1):]


def record_title(rec: dict[str, Any], with_run: bool, sep: str = " · ") -> str:
    """``task · arm · attempt N`` and, when ``with_run``, ``· run ID``."""
    parts = [str(rec.get("task_id")), str(rec.get("arm")), f"attempt {rec.get('attempt', 0)}"]
    if with_run:
        parts.append(f"run {short_run_id(rec.get('run_id'))}")
    return sep.join(parts)


def suspected_types(audit: dict[str, Any]) -> dict[str, str]:
    """Task id → the defect category several runs blamed (from ``audit["tasks"]``)."""
    out = {}
    for t in audit.get("tasks") or []:
        if isinstance(t, dict) and t.get("suspected") and t.get("suspected_type"):
            out[str(t.get("task_id"))] = str(t["suspected_type"])
    return out


def suspected_ids(audit: dict[str, Any]) -> list[str]:
    """Task ids of ``suspected_tasks`` (plain ids or objects with ``task_id``)."""
    out = []
    for t in audit.get("suspected_tasks") or []:
        tid = t.get("task_id") if isinstance(t, dict) else t
        if tid is not None:
            out.append(str(tid))
    return out


def sorted_audit(inputs: ReportInputs) -> list[dict[str, Any]]:
    """Audit records: suspected tasks first, then defects found, then the rest."""
    suspected = suspected_ids(inputs.summary.get("audit") or {})

    def key(rec: dict[str, Any]) -> tuple[int, int, str, str, int, str]:
        tid = str(rec.get("task_id"))
        v = rec.get("verdict") or {}
        rank = suspected.index(tid) if tid in suspected else len(suspected)
        return (rank, 0 if v.get("score") == 1 else 1 if rec.get("state") == "valid" else 2,
                tid, str(rec.get("arm")), int(rec.get("attempt") or 0),
                str(rec.get("run_id") or ""))

    return sorted(inputs.audit, key=key)


def evidence_list(verdict: dict[str, Any]) -> list[str]:
    ev = verdict.get("evidence")
    if ev is None or ev == "":
        return []
    if isinstance(ev, str):
        return [ev]
    if isinstance(ev, (list, tuple)):
        return [e if isinstance(e, str) else str(e) for e in ev]
    return [str(ev)]
