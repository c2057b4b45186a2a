"""The Markdown report, rendered from the ``summary.json`` dictionary."""

from __future__ import annotations

from typing import Any

from judgekit.report.format import interval, money, num, pct, seconds


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return lines + [""]


def _arms(summary: dict[str, Any]) -> list[str]:
    rows = []
    for name, a in summary["arms"].items():
        statuses = ", ".join(f"{k} {v}" for k, v in sorted(a["status_counts"].items()))
        rows.append([name, str(a["n"]), f"{pct(a['pass_rate'])} {interval(a['pass_rate_ci'], True)}",
                     num(a["precision"]), num(a["recall"]),
                     f"{num(a['f1'])} {interval(a['f1_ci'])}",
                     seconds(a["duration_median_s"]), money(a["cost_total_usd"]), statuses])
    return _table(["arm", "n", "pass rate [95% CI]", "precision", "recall", "F1 [95% CI]",
                   "median duration", "cost", "test statuses"], rows)


def _comparisons(summary: dict[str, Any]) -> list[str]:
    lines = []
    for c in summary["comparisons"]:
        if not c["n_paired"]:
            lines.append(f"- **{c['arm_a']} vs {c['arm_b']}**: no task ran on both arms.")
            continue
        lines.append(
            f"- **{c['arm_a']} vs {c['arm_b']}** over {c['n_paired']} paired results "
            f"(paired by {c['paired_by']}): pass rate {pct(c['pass_rate_a'])} vs "
            f"{pct(c['pass_rate_b'])} (difference {pct(c['delta_pass_rate'])}, exact McNemar "
            f"p = {num(c['mcnemar_p'])}); mean F1 difference {num(c['delta_f1'])}, 95% CI "
            f"{interval(c['delta_f1_ci'])}.")
    return lines + [""] if lines else ["No two arms to compare.", ""]


def _results(summary: dict[str, Any]) -> list[str]:
    rows = [[r["task_id"], r["arm"], str(r["attempt"]), r["test_status"], num(r["precision"]),
             num(r["recall"]), num(r["f1"]), seconds(r["duration_s"]), r.get("run_id") or "–"]
            for r in summary["results"]]
    return _table(["task", "arm", "attempt", "test", "precision", "recall", "F1", "duration",
                   "run"], rows)


def render_markdown(summary: dict[str, Any]) -> str:
    """Render the report; sections for judging and audits appear when present."""
    lines = ["# judgekit report", ""]
    if summary.get("warnings"):
        lines += ["## Warnings", ""] + [f"- {w}" for w in summary["warnings"]] + [""]
    for note in summary.get("notes", []):
        lines += [f"> {note}", ""]
    lines += ["## Arms", ""] + _arms(summary)
    lines += ["## Paired comparisons", ""] + _comparisons(summary)
    lines += ["## Results", ""] + _results(summary)
    return "\n".join(lines)
