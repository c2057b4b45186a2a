"""What happened in one attempt, in a few words, for progress lines and failure notices.

Example:
    >>> from judgekit.ingest.models import RunResult, Task
    >>> r = RunResult(task=Task(id="t1"), arm="a", harness_status="agent_not_started",
    ...               harness_error="agent command exited 127: sh: my-agent: not found")
    >>> describe(r)
    'agent never started (agent command exited 127: sh: my-agent: not found)'
"""

from __future__ import annotations

from collections import Counter

from judgekit.ingest.models import RunResult

HARNESS_LABELS = {
    "checkout_failed": "checkout failed",
    "setup_failed": "setup failed",
    "agent_not_started": "agent never started",
    "runner_error": "runner error",
}


def _short(text: str | None, limit: int = 160) -> str:
    line = " ".join((text or "").split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def harness_reason(result: RunResult) -> str:
    """The harness failure of ``result`` as ``label (detail)``."""
    label = HARNESS_LABELS.get(result.harness_status, result.harness_status.replace("_", " "))
    detail = _short(result.harness_error)
    return f"{label} ({detail})" if detail else label


def describe(result: RunResult) -> str:
    """One line: the agent's fate, then the verdict of the tests."""
    if result.harness_failed:
        return harness_reason(result)
    from judgekit.scoring.outcomes import classify

    parts = []
    meta = result.metadata
    if meta.get("agent_timed_out"):
        parts.append(f"agent timed out after {result.duration_s or 0:.0f}s")
    elif meta.get("agent_exit_code") not in (None, 0):
        parts.append(f"agent exited {meta['agent_exit_code']}")
    if not (result.agent_diff or "").strip():
        parts.append("no change")
    if result.test is None:
        parts.append("no test run")
    else:
        outcome = classify(result.test, test_command=result.task.test_command)
        words = {"passed": "tests passed", "failed": "tests failed",
                 "vacuous": "tests vacuous (zero tests ran)", "timeout": "tests timed out",
                 "error": "tests errored", "unknown": "test outcome unknown"}
        verdict = words.get(outcome.status, f"tests {outcome.status}")
        if outcome.tests_run is not None and outcome.status in ("passed", "failed"):
            verdict += f" ({outcome.tests_run} run)"
        parts.append(verdict)
    return "; ".join(parts)


def all_failed_notice(results: list[RunResult]) -> str | None:
    """One line when every result is a harness failure, naming the most common reason."""
    if not results or not all(r.harness_failed for r in results):
        return None
    reasons = Counter(harness_reason(r) for r in results)
    reason, count = reasons.most_common(1)[0]
    more = f" ({count} of {len(results)})" if len(reasons) > 1 else ""
    return (f"every attempt ({len(results)}) failed before its agent could be judged: "
            f"{reason}{more}")
