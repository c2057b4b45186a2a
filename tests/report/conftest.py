"""An evaluation of the bundled bobbin runs with constructed pairwise and audit parts.

The judged parts follow the documented shapes of ``summary.json`` and the JSONL records
(no model is called). Some text is hostile on purpose: reports must escape it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from judgekit.audit.kind import AUDIT
from judgekit.evaluate import EvalResult, evaluate
from judgekit.pairwise.kind import PAIRWISE
from judgekit.report import write_reports
from judgekit.steps import StepKind, StepResult
from tests.conftest import EXAMPLE_BOBBIN

HOSTILE = '<script>alert("pwned")</script><img src="https://evil.example/x.png">'
PAIR = "no-bobbin vs with-bobbin"


class Part(StepResult[BaseModel, BaseModel]):
    """A judged part as evaluate() attaches it: its step's summary plus its records, each
    validated into the step's models (its descriptor, ``kind``)."""

    def __init__(self, entries: dict[str, Any], records: list[dict[str, Any]],
                 kind: StepKind[Any, Any]) -> None:
        self.kind = kind  # type: ignore[misc]
        self.entries = entries
        self.records = [kind.read_record(r) for r in records]

    def _summarise(self) -> BaseModel:
        return self.kind.summary.model_validate(self.entries)


def _dim(wins_a: int, wins_b: int, draws: int, consistency: float, first: float) -> dict:
    n = wins_a + wins_b + draws
    return {"wins_a": wins_a, "wins_b": wins_b, "draws": draws, "losses_a": wins_b, "n": n,
            "identical": 0, "unscored": 0, "error": 0, "win_rate_a": wins_a / n,
            "win_rate_a_ci": [0.05, 0.4], "position_consistency": consistency,
            "position_bias": 1, "first_slot_preference": first, "n_judged": n,
            "n_decisive_answers": n}


def pairwise_part() -> Part:
    dims = {"consistency": _dim(3, 7, 10, 0.65, 0.6), "completeness": _dim(2, 5, 13, 0.5, 0.7),
            "minimality": _dim(6, 4, 10, 0.8, 0.55)}
    records = []
    for i, task in enumerate(("ruff-001", "ruff-002", "ruff-003")):
        state = "unscored" if i == 2 else "valid"
        records.append({
            "task_id": task, "arm_a": "no-bobbin", "arm_b": "with-bobbin", "attempt_a": 0,
            "attempt_b": 0, "identical": False,
            "dimensions": {d: {"winner": "with-bobbin" if i == 1 else "draw",
                               "order1": None if state != "valid" else "B",
                               "order2": None if state != "valid" else ("A" if i else "B"),
                               "position_bias": i == 0, "state": state,
                               "reasoning1": f"{d} reasoning {HOSTILE}",
                               "reasoning2": f"{d} second order"} for d in dims},
            "orders": []})
    reliability = {
        "flagged": True, "reasons": ["position consistency 0.65 is fine, but preference "
                                     "fairness +0.30 [+0.10, +0.50] excludes 0"],
        "message": f"The judge leans to the first slot. {HOSTILE}", "threshold": 0.6,
        "position_consistency": 0.65, "preference_fairness": 0.3,
        "preference_fairness_ci": [0.1, 0.5],
        "by_dimension": {d: {"position_consistency": s["position_consistency"],
                             "preference_fairness": 2 * s["first_slot_preference"] - 1,
                             "preference_fairness_ci": [0.0, 0.6], "n": s["n"]}
                         for d, s in dims.items()},
        "repetition_stability": None, "n_repeats": 0, "n_repeat_calls": 0}
    entries = {"pairwise": {PAIR: dims, "judge_reliability": reliability},
               "pairwise_ranking": {"method": "Bradley-Terry (MM), draws as half wins",
                                    **{d: {"ranking": ["with-bobbin", "no-bobbin"],
                                           "strength": {"with-bobbin": 0.62, "no-bobbin": 0.38}}
                                       for d in dims}},
               "pairwise_run": {"judge": "anthropic:judge-model", "select": "best",
                                "n_pairs": 20, "n_identical": 1, "n_calls": 38, "n_cached": 0,
                                "cost_usd": 1.25, "states": {"valid": 19, "unscored": 1,
                                                             "error": 0}, "dry_run": False,
                                "notes": []}}
    return Part(entries, records, PAIRWISE)


def _verdict(score: int, kind: str, quote: str) -> dict[str, Any]:
    return {"score": score, "deficiency_exists": bool(score), "deficiency_caused_failure":
            bool(score), "deficiency_type": kind,
            "existence_reasoning": f"The test command selects no test. {HOSTILE}",
            "causation_reasoning": "So no run of this task can pass.", "evidence": [quote]}


def _record(task: str, arm: str, state: str, verdict: dict | None, verified: bool,
            tries: int, **extra: Any) -> dict[str, Any]:
    v = verdict or {}
    return {"task_id": task, "arm": arm, "attempt": 0, "run_id": None,
            "test_status": "vacuous", "state": state, "verdict": verdict,
            "deficiency_type": v.get("deficiency_type"), "evidence_verified": verified,
            "quotes_not_found": [], "tries": tries, "reason": None, "samples": 1,
            "agreement": None, "sample_scores": [v.get("score")], "materials_cut": False,
            "cached": False, "cost_usd": 0.01} | extra


def audit_part() -> Part:
    kind = "test command selects no tests"
    records = [
        _record("ruff-003", "no-bobbin", "valid", _verdict(0, "none", "error[E0599]"), False, 2,
                quotes_not_found=["error[E0599]"]),
        _record("ruff-002", "no-bobbin", "valid", _verdict(1, kind, "running 0 tests"), True, 1),
        _record("ruff-002", "with-bobbin", "valid", _verdict(1, kind, "running 0 tests"), True,
                3, samples=3, agreement=2 / 3),
        _record("ruff-004", "no-bobbin", "unscored", None, False, 3,
                reason="the answer failed the checks after 2 re-asks"),
    ]
    summary = {"audit": {
        "rubric": "commit-revert", "rubric_version": "1", "judge": "anthropic:judge-model",
        "samples": 1, "n_failed": 36, "n_valid": 3, "n_unscored": 1, "n_error": 0, "n_ife": 2,
        "by_type": {kind: 2}, "n_evidence_unverified": 1, "n_materials_cut": 0,
        "suspected_tasks": ["ruff-002"],
        "tasks": [{"task_id": "ruff-002", "n_audited": 2, "n_valid": 2, "n_ife": 2,
                   "suspected": True, "suspected_type": kind, "runs": []}],
        "tries_total": 9, "cost_usd": 0.04}}
    return Part(summary, records, AUDIT)


def judged_result() -> EvalResult:
    result = evaluate([EXAMPLE_BOBBIN], similarity=False)
    result.runs[0] = result.runs[0].model_copy(update={"agent_diff": (
        result.runs[0].agent_diff or "") + f"\n+# {HOSTILE}\n+x = '```'\n"})
    result.pairwise = pairwise_part()
    result.audit = audit_part()
    return result


@pytest.fixture(scope="session")
def judged_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An --out directory as `judgekit judge` would leave it (constructed verdicts)."""
    out = tmp_path_factory.mktemp("judged")
    write_reports(judged_result(), out)
    return out


@pytest.fixture(scope="session")
def scored_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An --out directory of `judgekit score examples/bobbin`, written by the real CLI."""
    from tests.clirun import judgekit

    out = tmp_path_factory.mktemp("scored")
    proc = judgekit("score", EXAMPLE_BOBBIN, "--out", out, "--no-similarity")
    assert proc.returncode == 0, proc.stderr
    return out
