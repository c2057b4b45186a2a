"""judgekit's own run format (``.json`` run files and ``.jsonl`` result streams)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judgekit.runs.models import RunFile, RunResult
from judgekit.runs.validation import validate


def _looks_like_result(item: Any) -> bool:
    return isinstance(item, dict) and "task" in item and "arm" in item


class NativeAdapter:
    """Reads :class:`RunFile` objects, bare lists of results, and JSONL result lines."""

    name = "judgekit"

    def detect(self, path: Path, document: Any) -> bool:
        if isinstance(document, dict):
            fmt = document.get("format")
            return (isinstance(fmt, str) and fmt.startswith("judgekit.run")) or (
                "results" in document and "approach" not in document
            ) or _looks_like_result(document)
        if isinstance(document, list):
            return bool(document) and all(_looks_like_result(x) for x in document[:5])
        return False

    def is_auxiliary(self, path: Path, document: Any) -> bool:
        return False

    def load(self, path: Path, document: Any) -> list[RunResult]:
        if isinstance(document, list):
            return [validate(RunResult, item, path, f"[{i}]") for i, item in enumerate(document)]
        if _looks_like_result(document) and "results" not in document:
            return [validate(RunResult, document, path)]
        run = validate(RunFile, document, path)
        if run.run_id:
            for r in run.results:
                if r.run_id is None:
                    r.run_id = run.run_id
        return run.results
