"""An evaluation of the bundled bobbin runs with constructed pairwise and audit parts.

The judged parts follow the documented shapes of ``summary.json`` and the JSONL records
(no model is called). Some text is hostile on purpose: reports must escape it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from judgekit.evaluate import EvalResult, evaluate
from judgekit.report import write_reports
from tests.conftest import EXAMPLE_BOBBIN

HOSTILE = '<script>alert("pwned")</script><img src="https://evil.example/x.png">'
PAIR = "no-bobbin vs with-bobbin"


@dataclass
class Part:
    """A judged part as evaluate() attaches it: summary entries plus JSONL records."""

    entries: dict[str, Any]
    records: list[dict[str, Any]]

    def summary_entries(self) -> dict[str, Any]:
        return self.entries

    def records_jsonl(self) -> str:
        return "".join(json.dumps(r) + "\n" for r in self.records)


def _dim(wins_a: int, wins_b: int, draws: int, consistency: float, first: float) -> dict:
    n = wins_a + wins_b + draws
    return {"wins_a": wins_a, "wins_b": wins_b, "draws": draws, "n": n,
            "win_rate_a": wins_a / n, "win_rate_a_ci": [0.05, 0.4],
            "position_consistency": consistency, "first_slot_preference": first,
            "n_unscored": 0}


def pairwise_part() -> Part:
    dims = {"consistency": _dim(3, 7, 10, 0.65, 0.6), "completeness": _dim(2, 5, 13, 0.5, 0.7),
            "minimality": _dim(6, 4, 10, 0.8, 0.55)}
    records = []
    for i, task in enumerate(("ruff-001", "ruff-002", "ruff-003")):
        records.append({"task_id": task, "arm_a": "no-bobbin", "arm_b": "with-bobbin",
                        "dimensions": {
                            d: {"winner": "with-bobbin" if i else "draw", "order1": "B",
                                "order2": "A" if i else "B", "position_bias": not i,
                                "state": "unscored" if (i, d) == (2, "minimality") else "valid",
                                "reasoning": f"{d} reasoning {HOSTILE}"}
                            for d in dims}})
    return Part({"pairwise": {PAIR: dims}}, records)


def _verdict(score: int, kind: str, quote: str) -> dict[str, Any]:
    return {"score": score, "deficiency_exists": bool(score), "deficiency_caused_failure":
            bool(score), "deficiency_type": kind,
            "existence_reasoning": f"The test command selects no test. {HOSTILE}",
            "causation_reasoning": "So no run of this task can pass.", "evidence": [quote]}


def audit_part() -> Part:
    records = [
        {"task_id": "ruff-003", "arm": "no-bobbin", "attempt": 0, "state": "valid",
         "verdict": _verdict(0, "none", "error[E0599]"), "evidence_verified": False, "tries": 2},
        {"task_id": "ruff-002", "arm": "no-bobbin", "attempt": 0, "state": "valid",
         "verdict": _verdict(1, "test command selects no tests", "running 0 tests"),
         "evidence_verified": True, "tries": 1},
        {"task_id": "ruff-002", "arm": "with-bobbin", "attempt": 0, "state": "valid",
         "verdict": _verdict(1, "test command selects no tests", "running 0 tests"),
         "evidence_verified": True, "tries": 1},
        {"task_id": "ruff-004", "arm": "no-bobbin", "attempt": 0, "state": "unscored",
         "verdict": None, "evidence_verified": False, "tries": 3},
    ]
    summary = {"audit": {"n_failed": 36, "n_valid": 3, "n_unscored": 1, "n_error": 0,
                         "n_ife": 2, "by_type": {"test command selects no tests": 2, "none": 1},
                         "suspected_tasks": ["ruff-002"]}}
    return Part(summary, records)


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
