"""Load run results from files and directory trees, whatever harness wrote them.

Example:
    >>> results = load_runs(["examples/bobbin"])  # doctest: +SKIP
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from judgekit.errors import InputError
from judgekit.io import json_lines
from judgekit.runs.adapters import ADAPTERS, Adapter
from judgekit.runs.models import RunResult
from judgekit.runs.validation import validate

RUN_SUFFIXES = (".json", ".jsonl")
_OUTPUT_NAMES = {"summary.json", "pairwise.jsonl", "audit.jsonl"}


def _read_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(path, None, f"cannot read: {exc.__class__.__name__}: {exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(path, None, f"malformed JSON at line {exc.lineno} column {exc.colno}: "
                                     f"{exc.msg}") from None


def read_jsonl(path: str | Path) -> list[RunResult]:
    """Read a ``.jsonl`` file of results; an InputError names the line and field at fault."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(path, None, f"cannot read: {exc.__class__.__name__}: {exc}") from None
    return [validate(RunResult, data, path, f"line {number}: ")
            for number, data in json_lines(text, path)]


def _adapter_for(path: Path, document: Any) -> Adapter | None:
    return next((a for a in ADAPTERS if a.detect(path, document)), None)


def load_file(path: str | Path, *, strict: bool = True) -> list[RunResult]:
    """Load one run file. With ``strict=False`` an unrecognised JSON document yields ``[]``."""
    path = Path(path)
    if path.suffix == ".jsonl":
        return read_jsonl(path)
    document = _read_json(path)
    adapter = _adapter_for(path, document)
    if adapter is None:
        if strict:
            raise InputError(path, None, "not a run file of any known format (judgekit, bobbin)")
        return []
    return adapter.load(path, document)


def _walk(directory: Path) -> Iterable[Path]:
    def fail(exc: OSError) -> None:
        raise InputError(exc.filename or directory, None,
                         f"cannot read: {exc.__class__.__name__}: {exc.strerror}")

    for root, dirs, files in os.walk(directory, onerror=fail):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.endswith(RUN_SUFFIXES) and name not in _OUTPUT_NAMES:
                yield Path(root) / name


def load_runs(paths: str | Path | Sequence[str | Path]) -> list[RunResult]:
    """Load every result from files and directories (searched recursively).

    Raises :class:`~judgekit.errors.InputError` for unreadable or malformed input and for a
    directory that holds no run file.
    """
    if isinstance(paths, (str, Path)):
        paths = [paths]
    if not paths:
        raise InputError("(arguments)", None, "no path given")
    results: list[RunResult] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = [r for f in _walk(path) for r in load_file(f, strict=False)]
        elif path.is_file():
            found = load_file(path)
        else:
            raise InputError(path, None, "no such file or directory")
        if not found:
            kind = "directory" if path.is_dir() else "file"
            raise InputError(path, None, f"{kind} holds no run results")
        results.extend(found)
    return results


def write_jsonl(results: Iterable[RunResult], path: str | Path) -> None:
    """Write results as JSONL atomically (temp file, fsync, rename)."""
    from judgekit.io import atomic_write_text

    text = "".join(r.model_dump_json(exclude_none=True) + "\n" for r in results)
    atomic_write_text(path, text)


__all__ = ["load_file", "load_runs", "read_jsonl", "validate", "write_jsonl"]
