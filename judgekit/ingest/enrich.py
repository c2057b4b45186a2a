"""Fill in what result files left out (descriptions, test commands, gold patches) from task
sources: suite files, a SWE-bench dataset, or a ScienceAgentBench dataset.

Harness result files often omit the task description (bobbin's do), and SWE-bench
predictions hold nothing but the patch. A task source is a suite file (``.yaml``), a
SWE-bench dataset (``.json`` list or ``.jsonl`` of instances with ``instance_id``,
``problem_statement``, ``patch``, ``FAIL_TO_PASS``, ...), a ScienceAgentBench dataset (the
same, with ``instance_id`` and ``task_inst``: a HAL upload's tasks then gain their
instruction, dataset preview and domain knowledge, and the gold program when the rows carry
its text in ``gold_program``) or directories of them. A result
takes the missing fields of the suite task with the same fix commit, or, when the result
names no commit, the task with the same id (a SWE-bench instance id).

Example:
    >>> report = enrich_tasks(results, ["suites"])  # doctest: +SKIP
    >>> report.filled, report.total, report.unmatched  # doctest: +SKIP
    (46, 46, [])
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from judgekit.errors import InputError
from judgekit.io import read_json, read_json_lines
from judgekit.jsonread import loads
from judgekit.ingest.adapters.hal import is_sab_dataset
from judgekit.ingest.adapters.swebench import is_dataset
from judgekit.ingest.models import RunResult, Task

_FILLABLE = ("repo", "description", "test_command", "language", "difficulty")
_SUITE_SUFFIXES = (".yaml", ".yml")
_DATASET_SUFFIXES = (".json", ".jsonl")
#: Dataset fields kept as audit materials, under these names.
_SWEBENCH_MATERIALS = {"test_patch": "test patch", "FAIL_TO_PASS": "FAIL_TO_PASS tests",
                       "PASS_TO_PASS": "PASS_TO_PASS tests", "hints_text": "issue hints"}


class Enrichment(BaseModel):
    """What the task sources filled: results that gained a field, of how many, and the task
    ids of results no task source matched."""

    filled: int = Field(description="Results that gained at least one field.")
    total: int = Field(description="Results looked at.")
    unmatched: list[str] = Field(default_factory=list,
                                 description="Task ids (sorted) that no task source holds.")

    def message(self, limit: int = 10) -> str:
        """One line for the command line; ``{option:tasks}`` in it names the option that
        gave the task sources (:mod:`judgekit.errors` says how it is spelled).

        Example:
            >>> Enrichment(filled=21, total=46, unmatched=["ruff-001", "ruff-002"]).message()
            '{option:tasks}: filled 21 of 46 results; no task found for 2 task ids: ruff-001, ruff-002'
        """
        line = f"{{option:tasks}}: filled {self.filled} of {self.total} results"
        if self.unmatched:
            shown = ", ".join(self.unmatched[:limit])
            more = f" and {len(self.unmatched) - limit} more" if len(self.unmatched) > limit else ""
            line += (f"; no task found for {len(self.unmatched)} task "
                     f"id{'s' if len(self.unmatched) != 1 else ''}: {shown}{more}")
        return line


#: ScienceAgentBench dataset fields kept as audit materials, under these names.
_SAB_MATERIALS = {"dataset_preview": "dataset preview", "dataset_folder_tree": "dataset files",
                  "domain_knowledge": "domain knowledge", "output_fname": "expected output file",
                  "gold_program": "gold program"}


class ScienceAgentBenchInstance(BaseModel):
    """The fields of one ScienceAgentBench dataset row that judgekit uses."""

    instance_id: str
    task_inst: str | None = None
    domain: str | None = None
    dataset_preview: str | None = None
    dataset_folder_tree: str | None = None
    domain_knowledge: str | None = None
    output_fname: str | None = None
    gold_program_name: str | None = None
    eval_script_name: str | None = None
    gold_program: str | None = None


def _sab_instance(item: dict[str, Any], path: Path, where: str) -> ScienceAgentBenchInstance:
    fields: dict[str, Any] = {}
    for name in ScienceAgentBenchInstance.model_fields:
        value = item.get(name)
        if value is None:
            continue
        if name == "instance_id" and isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        if not isinstance(value, str):
            raise InputError(path, f"{where}{name}", f"expected a string, got "
                                                     f"{type(value).__name__}")
        fields[name] = value
    return ScienceAgentBenchInstance(**fields)


class SweBenchInstance(BaseModel):
    """The fields of one SWE-bench dataset instance that judgekit uses."""

    instance_id: str
    repo: str | None = None
    base_commit: str | None = None
    problem_statement: str | None = None
    patch: str | None = None
    test_patch: str | None = None
    hints_text: str | None = None
    version: str | None = None
    FAIL_TO_PASS: list[str] = Field(default_factory=list)
    PASS_TO_PASS: list[str] = Field(default_factory=list)


def _test_list(value: Any, path: Path, where: str) -> list[str]:
    """SWE-bench stores test lists as JSON text (or, in some copies, as lists)."""
    if value in (None, ""):
        return []
    if isinstance(value, str):
        try:
            value = loads(value, path)
        except InputError:
            raise InputError(path, where, "expected a JSON list of test names") from None
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise InputError(path, where, "expected a list of test names")
    return value


def _instance(item: dict[str, Any], path: Path, where: str) -> SweBenchInstance:
    fields = {k: item.get(k) for k in SweBenchInstance.model_fields if k in item}
    for name in ("FAIL_TO_PASS", "PASS_TO_PASS"):
        fields[name] = _test_list(item.get(name), path, f"{where}{name}")
    for name, value in fields.items():
        if name not in ("FAIL_TO_PASS", "PASS_TO_PASS") and value is not None \
                and not isinstance(value, str):
            raise InputError(path, f"{where}{name}", f"expected a string, got "
                                                     f"{type(value).__name__}")
    return SweBenchInstance(**fields)


def _is_any_dataset(items: Any) -> bool:
    return is_dataset(items) or is_sab_dataset(items)


def _read_dataset(path: Path) -> list[tuple[str, Any]] | None:
    """The rows of a SWE-bench or ScienceAgentBench dataset file, each with where it is
    (``line N: `` or ``[i].``), or ``None`` when the file is not a dataset."""
    if path.suffix == ".jsonl":
        numbered = [(f"line {n}: ", data) for n, data in read_json_lines(path)]
        return numbered if _is_any_dataset([d for _, d in numbered]) else None
    items = read_json(path)
    return [(f"[{i}].", item) for i, item in enumerate(items)] if _is_any_dataset(items) \
        else None


def _sources(paths: Sequence[str | Path]) -> Iterable[Path]:
    from judgekit.ingest.suites import find_suite, missing_suite

    for raw in paths:
        path = find_suite(raw)  # a bundled suite by name, where no such path exists
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*")
                              if p.suffix in _SUITE_SUFFIXES + _DATASET_SUFFIXES)
        elif path.is_file():
            yield path
        else:
            raise missing_suite(raw)


class TaskSources:
    """Suite tasks and SWE-bench instances read from task source paths."""

    def __init__(self, paths: Sequence[str | Path]) -> None:
        from judgekit.ingest.suites import find_suite, load_suite

        self.tasks: list[Task] = []
        self.instances: dict[str, SweBenchInstance] = {}
        self.sab: dict[str, ScienceAgentBenchInstance] = {}
        given = {find_suite(p) for p in paths}
        for path in _sources(paths):
            if path.suffix in _DATASET_SUFFIXES:
                items = _read_dataset(path)
                if items is None:
                    if path in given:
                        raise InputError(path, None, "neither a suite file nor a SWE-bench or "
                                                     "ScienceAgentBench dataset (instance_id "
                                                     "with problem_statement or task_inst)")
                    continue
                for where, item in items:
                    if "task_inst" in item:
                        sab = _sab_instance(item, path, where)
                        self.sab[sab.instance_id] = sab
                    else:
                        inst = _instance(item, path, where)
                        self.instances[inst.instance_id] = inst
            else:
                self.tasks += [t.to_task() for t in load_suite(path).tasks]


def load_tasks(paths: Sequence[str | Path]) -> list[Task]:
    """Every task of the suite files (and task files) under ``paths``."""
    return TaskSources(paths).tasks


def _match(task: Task, by_commit: dict[str, Task], by_id: dict[str, Task]) -> Task | None:
    if task.commit:
        commit = task.commit.lower()
        for known, candidate in by_commit.items():
            if known.startswith(commit) or commit.startswith(known):
                return candidate
        return None
    return by_id.get(task.id)


def _fill_from_task(result: RunResult, source: Task) -> bool:
    updates: dict[str, Any] = {f: getattr(source, f) for f in _FILLABLE
                               if getattr(result.task, f) in (None, "") and getattr(source, f)}
    if not result.task.tags and source.tags:
        updates["tags"] = list(source.tags)
    if updates:
        result.task = result.task.model_copy(update=updates)
    return bool(updates)


def _fill_from_instance(result: RunResult, inst: SweBenchInstance) -> bool:
    changed = False
    updates = {k: v for k, v in (("repo", inst.repo), ("description", inst.problem_statement))
               if v and getattr(result.task, k) in (None, "")}
    if updates:
        result.task = result.task.model_copy(update=updates)
        changed = True
    if result.ground_truth_diff is None and inst.patch:
        result.ground_truth_diff = inst.patch
        changed = True
    for field, name in _SWEBENCH_MATERIALS.items():
        value = getattr(inst, field)
        text = "\n".join(value) if isinstance(value, list) else value
        if text and name not in result.materials:
            result.materials[name] = text
            changed = True
    for key in ("base_commit", "version"):
        if getattr(inst, key) and key not in result.metadata:
            result.metadata[key] = getattr(inst, key)
    return _fail_to_pass_not_run(result, inst) or changed


def _fill_from_sab(result: RunResult, row: ScienceAgentBenchInstance) -> bool:
    changed = False
    if row.task_inst and not result.task.description:
        result.task = result.task.model_copy(update={"description": row.task_inst})
        changed = True
    for field, name in _SAB_MATERIALS.items():
        text = getattr(row, field)
        if text and name not in result.materials:
            result.materials[name] = text
            changed = True
    for key in ("domain", "gold_program_name", "eval_script_name"):
        if getattr(row, key) and key not in result.metadata:
            result.metadata[key] = getattr(row, key)
    return changed


def _fail_to_pass_not_run(result: RunResult, inst: SweBenchInstance) -> bool:
    """A resolved SWE-bench result whose dataset FAIL_TO_PASS tests did not all pass (one
    that did not run counts as not passed) is failed."""
    status = result.metadata.get("tests_status")
    if not isinstance(status, dict) or result.test is None or result.test.exit_code != 0:
        return False
    f2p = status.get("FAIL_TO_PASS") or {}
    passed = set(f2p.get("success") or [])
    ran = passed | set(f2p.get("failure") or [])
    not_passed = [t for t in inst.FAIL_TO_PASS if t not in passed]
    if not not_passed:
        return False
    counts = result.test.counts
    missing = sum(1 for t in not_passed if t not in ran)
    new_counts = counts.model_copy(update={
        "failed": counts.failed + missing,
        "total": (counts.total or 0) + missing}) if counts else None
    result.test = result.test.model_copy(update={"exit_code": 1, "counts": new_counts})
    result.success = False
    result.metadata["fail_to_pass_not_passed"] = not_passed
    return True


def enrich_tasks(results: Sequence[RunResult], paths: Sequence[str | Path]) -> Enrichment:
    """Fill missing task fields in place; report how many results gained something and
    which task ids no source matched."""
    sources = TaskSources(paths)
    by_commit = {t.commit.lower(): t for t in sources.tasks if t.commit}
    by_id = {t.id: t for t in sources.tasks}
    filled = 0
    unmatched: set[str] = set()
    for result in results:
        inst = sources.instances.get(result.task_id) if not result.task.commit else None
        sab = sources.sab.get(result.task_id) if not result.task.commit else None
        source = _match(result.task, by_commit, by_id)
        if inst is None and sab is None and source is None:
            unmatched.add(result.task_id)
            continue
        changed = _fill_from_instance(result, inst) if inst is not None else False
        if sab is not None:
            changed = _fill_from_sab(result, sab) or changed
        if source is not None:
            changed = _fill_from_task(result, source) or changed
        filled += changed
    return Enrichment(filled=filled, total=len(results), unmatched=sorted(unmatched))


__all__ = ["Enrichment", "ScienceAgentBenchInstance", "SweBenchInstance", "TaskSources",
           "enrich_tasks", "is_sab_dataset", "load_tasks"]
