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


def _get(doc: dict[str, Any], key: str, kind: type, path: Path) -> Any:
    value = doc.get(key)
    if value is None:
        return None
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise InputError(path, key, f"expected {kind.__name__}, got {type(value).__name__}")
    return value


def _test_result(doc: dict[str, Any], path: Path) -> TestResult | None:
    tr = _get(doc, "test_result", dict, path)
    if tr is None:
        return None
    parsed = tr.get("parsed") if isinstance(tr.get("parsed"), dict) else {}
    passed_flag = tr.get("passed")
    if not isinstance(passed_flag, bool):
        raise InputError(path, "test_result.passed", "expected a boolean")
    total = tr.get("total", parsed.get("total"))
    failures = tr.get("failures", parsed.get("failed", 0))
    counts = TestCounts(
        passed=int(parsed.get("passed") or 0),
        failed=int(failures or 0),
        skipped=int(parsed.get("skipped") or 0),
        total=int(total) if isinstance(total, int) else None,
    )
    return TestResult(
        exit_code=0 if passed_flag else 1,
        output=tr.get("output") if isinstance(tr.get("output"), str) else None,
        timed_out=bool(tr.get("timed_out", False)),
        counts=counts,
    )


class BobbinAdapter:
    """Reads bobbin result files; the run's model comes from the file or its manifest."""

    name = "bobbin"

    def detect(self, path: Path, document: Any) -> bool:
        return isinstance(document, dict) and (
            ("task_id" in document and "approach" in document) or self.is_auxiliary(path, document)
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
        duration = agent.get("duration_seconds")
        cost = agent.get("cost_usd", agent.get("total_cost_usd"))
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
            duration_s=float(duration) if isinstance(duration, (int, float)) else None,
            usage=Usage(cost_usd=float(cost)) if isinstance(cost, (int, float)) else None,
            model=model,
            harness_status=status,
            harness_error=doc.get("error") if isinstance(doc.get("error"), str) else None,
            injected_files=metrics.get("injected_files"),
            timestamp=doc.get("timestamp"),
            metadata={"source_format": "bobbin",
                      "agent_exit_code": agent.get("exit_code"),
                      "agent_timed_out": agent.get("timed_out"),
                      "bobbin_diff_result": diff_result or None},
        )]
