"""The bobbin evaluation harness: ``<task>_<approach>_<attempt>.json`` plus ``manifest.json``.

Bobbin keeps no raw test output, only counts, and labels every run ``pytest`` whatever the
runner was; judgekit ignores that label and decides the status from the counts (a run with
zero executed tests is ``vacuous``, not passed). Results bobbin marked as failed runs
(``workspace_error``, ``bobbin_setup_error``, ...) are kept with status ``error``.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from judgekit.errors import InputError
from judgekit.runs.models import RunResult, Task, TestCounts, TestResult, Usage

_REQUIRED = {"task_id": str, "approach": str, "attempt": int}


@lru_cache(maxsize=256)
def _manifest(directory: Path) -> dict[str, Any]:
    path = directory / "manifest.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _get(doc: dict[str, Any], key: str, kind: type | tuple[type, ...], path: Path,
         where: str = "") -> Any:
    """``doc[key]`` when it is of ``kind`` (or absent/null); else an InputError naming it."""
    value = doc.get(key)
    if value is None:
        return None
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if float in kinds and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        names = " or ".join(k.__name__ for k in kinds)
        raise InputError(path, where + key, f"expected {names}, got {type(value).__name__}")
    return value


def _test_result(doc: dict[str, Any], path: Path) -> TestResult | None:
    tr = _get(doc, "test_result", dict, path)
    if tr is None:
        return None
    parsed = _get(tr, "parsed", dict, path, "test_result.") or {}
    passed_flag = _get(tr, "passed", bool, path, "test_result.")
    if passed_flag is None:
        raise InputError(path, "test_result.passed", "required field is missing")
    total = _get(tr, "total", int, path, "test_result.")
    failures = _get(tr, "failures", int, path, "test_result.")
    counts = {k: _get(parsed, k, int, path, "test_result.parsed.") or 0
              for k in ("passed", "failed", "skipped")}
    if total is None:
        total = _get(parsed, "total", int, path, "test_result.parsed.")
    return TestResult(
        exit_code=0 if passed_flag else 1,
        output=_get(tr, "output", str, path, "test_result."),
        timed_out=bool(_get(tr, "timed_out", bool, path, "test_result.")),
        counts=TestCounts(passed=counts["passed"],
                          failed=failures if failures is not None else counts["failed"],
                          skipped=counts["skipped"], total=total),
    )


class BobbinAdapter:
    """Reads bobbin result files; the run's model comes from the file or its manifest."""

    name = "bobbin"

    def detect(self, path: Path, document: Any) -> bool:
        return isinstance(document, dict) and (
            "task_id" in document or "approach" in document or self.is_auxiliary(path, document)
        )

    def is_auxiliary(self, path: Path, document: Any) -> bool:
        return (isinstance(document, dict) and "approaches" in document
                and "run_id" in document and "tasks" in document)

    def load(self, path: Path, document: Any) -> list[RunResult]:
        if self.is_auxiliary(path, document):
            return []
        doc: dict[str, Any] = document
        for key, kind in _REQUIRED.items():
            if key not in doc:
                raise InputError(path, key, "required field is missing")
            _get(doc, key, kind, path)
        task_doc = _get(doc, "task", dict, path) or {}
        agent = _get(doc, "agent_result", dict, path) or {}
        config = _get(doc, "agent_config", dict, path) or {}
        manifest = _manifest(path.parent)
        model = config.get("model") or (manifest.get("agent_config") or {}).get("model") \
            or manifest.get("model")
        diff_result = _get(doc, "diff_result", dict, path) or {}
        agent_diff = _get(doc, "agent_diff", str, path)
        truth_diff = _get(doc, "ground_truth_diff", str, path)
        metrics = _get(doc, "bobbin_metrics", dict, path) or {}
        status = _get(doc, "status", str, path) or "completed"
        duration = _get(agent, "duration_seconds", float, path, "agent_result.")
        cost = _get(agent, "cost_usd", float, path, "agent_result.")
        if cost is None:
            cost = _get(agent, "total_cost_usd", float, path, "agent_result.")
        return [RunResult(
            run_id=doc.get("run_id") or manifest.get("run_id"),
            task=Task(
                id=doc["task_id"],
                repo=task_doc.get("repo"),
                commit=task_doc.get("commit"),
                description=task_doc.get("description"),
                test_command=task_doc.get("test_command"),
                language=task_doc.get("language"),
                difficulty=task_doc.get("difficulty"),
                tags=list(task_doc.get("tags") or []),
            ),
            arm=doc["approach"],
            attempt=doc["attempt"],
            agent_diff=agent_diff,
            ground_truth_diff=truth_diff,
            agent_files=None if agent_diff is not None else diff_result.get("files_touched"),
            ground_truth_files=None if truth_diff is not None
            else diff_result.get("ground_truth_files"),
            test=_test_result(doc, path),
            duration_s=duration,
            usage=Usage(cost_usd=cost) if cost is not None else None,
            model=model,
            harness_status=status,
            harness_error=_get(doc, "error", str, path),
            injected_files=metrics.get("injected_files"),
            timestamp=doc.get("timestamp"),
            metadata={"source_format": "bobbin",
                      "agent_exit_code": agent.get("exit_code"),
                      "agent_timed_out": agent.get("timed_out"),
                      "bobbin_diff_result": diff_result or None},
        )]
