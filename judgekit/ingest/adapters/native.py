"""judgekit's own run format (``.json`` run files and ``.jsonl`` result streams).

The adapter claims a document only when it really is one: a :class:`RunFile` object (its
``format`` tag, or nothing but run-file keys around a ``results`` list), one result object,
or a list of result objects. A document of another tool that merely has a ``results`` key is
left to the other adapters.

Example:
    >>> a = NativeAdapter()
    >>> a.detect(None, {"results": []}), a.detect(None, {"config": {}, "results": {}})
    (True, False)
    >>> a.detect(None, {"results": [{"command": "sleep 1", "mean": 1.0}]})
    False
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judgekit.ingest.models import RunFile, RunResult
from judgekit.ingest.transcripts.link import link_named, named_in_metadata
from judgekit.ingest.validation import validate

_RUN_FILE_KEYS = frozenset(RunFile.model_fields)


def _looks_like_result(item: Any) -> bool:
    return isinstance(item, dict) and "task" in item and "arm" in item


def _may_be_result(item: Any) -> bool:
    """A result, perhaps a malformed one: an object naming a task or an arm."""
    return isinstance(item, dict) and ("task" in item or "arm" in item)


def is_run_file(document: Any) -> bool:
    """A ``RunFile``-shaped object: tagged, or only run-file keys around a ``results`` list
    that is empty or holds results (another tool's list of records is not one)."""
    if not isinstance(document, dict):
        return False
    fmt = document.get("format")
    if isinstance(fmt, str) and fmt.startswith("judgekit.run"):
        return True
    results = document.get("results")
    return (isinstance(results, list) and set(document) <= _RUN_FILE_KEYS
            and (not results or any(_may_be_result(x) for x in results[:5])))


class NativeAdapter:
    """Reads :class:`RunFile` objects, bare lists of results, and JSONL result lines."""

    name = "judgekit"

    def detect(self, path: Path | None, document: Any) -> bool:
        if isinstance(document, dict):
            return is_run_file(document) or (
                _looks_like_result(document) and "results" not in document)
        if isinstance(document, list):
            return bool(document) and all(_looks_like_result(x) for x in document[:5])
        return False

    def is_auxiliary(self, path: Path, document: Any) -> bool:
        return False

    def load(self, path: Path, document: Any) -> list[RunResult]:
        if isinstance(document, list):
            return [link_named(path, validate(RunResult, item, path, f"[{i}]"))
                    for i, item in enumerate(document)]
        if _looks_like_result(document) and "results" not in document:
            return [link_named(path, validate(RunResult, document, path))]
        run = validate(RunFile, document, path)
        if run.run_id:
            for r in run.results:
                if r.run_id is None:
                    r.run_id = run.run_id
        named_in_metadata(path, run.results)  # sessions kept beside the run file
        return run.results
