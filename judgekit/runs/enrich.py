"""Fill in what result files left out (descriptions, test commands) from suite files.

Harness result files often omit the task description (bobbin's do). ``--tasks PATH``
names suite files or directories of them; a result takes the missing fields of the suite
task with the same fix commit, or, when the result names no commit, the same task id.

Example:
    >>> enrich_tasks(results, ["suites"])  # doctest: +SKIP
    5
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from judgekit.errors import InputError
from judgekit.runs.models import RunResult, Task

_FILLABLE = ("repo", "description", "test_command", "language", "difficulty")


def _suite_files(paths: Sequence[str | Path]) -> Iterable[Path]:
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*") if p.suffix in (".yaml", ".yml"))
        elif path.is_file():
            yield path
        else:
            raise InputError(path, None, "no such file or directory")


def load_tasks(paths: Sequence[str | Path]) -> list[Task]:
    """Every task of the suite files (and task files) under ``paths``."""
    from judgekit.runner.suite import load_suite

    return [t.to_task() for f in _suite_files(paths) for t in load_suite(f).tasks]


def _match(task: Task, by_commit: dict[str, Task], by_id: dict[str, Task]) -> Task | None:
    if task.commit:
        commit = task.commit.lower()
        for known, candidate in by_commit.items():
            if known.startswith(commit) or commit.startswith(known):
                return candidate
        return None
    return by_id.get(task.id)


def enrich_tasks(results: Sequence[RunResult], paths: Sequence[str | Path]) -> int:
    """Fill missing task fields in place; return how many results gained something."""
    tasks = load_tasks(paths)
    by_commit = {t.commit.lower(): t for t in tasks if t.commit}
    by_id = {t.id: t for t in tasks}
    changed = 0
    for result in results:
        source = _match(result.task, by_commit, by_id)
        if source is None:
            continue
        updates = {f: getattr(source, f) for f in _FILLABLE
                   if getattr(result.task, f) in (None, "") and getattr(source, f)}
        if not result.task.tags and source.tags:
            updates["tags"] = list(source.tags)
        if updates:
            result.task = result.task.model_copy(update=updates)
            changed += 1
    return changed
