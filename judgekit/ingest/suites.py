"""Task suites: YAML files listing commit-revert tasks (read without importing the runner).

A suite file has a ``name``, optional ``defaults`` merged into every task, and ``tasks``.
A single task mapping (a file with an ``id`` at top level) is read as a suite of one.
:func:`find_suite` finds the suites that ship with judgekit by name from any directory
(``suites``: all of them, ``flask`` or ``flask.yaml``: one, ``suites/flask.yaml`` too); a
file or directory of that name, where it exists, wins.

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "s.yaml"
    >>> _ = p.write_text("name: demo\\ndefaults: {language: python}\\ntasks:\\n"
    ...                  "  - {id: t1, repo: pallets/flask, commit: abc1234, description: d,"
    ...                  " test_command: pytest}\\n")
    >>> suite = load_suite(p)
    >>> suite.tasks[0].language, suite.tasks[0].repo_source().url
    ('python', 'https://github.com/pallets/flask.git')
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator

from judgekit._resources import data_dir
from judgekit.errors import InputError
from judgekit.io import read_text
from judgekit.ingest.models import Task
from judgekit.ingest.validation import validate

_OWNER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$")
_URL = re.compile(r"^(?:[a-z][a-z0-9+.-]*://|[\w.-]+@[\w.-]+:)")


@dataclass(frozen=True)
class RepoSource:
    """Where a task's repository comes from: a remote ``url`` or a ``local`` path."""

    url: str
    local: bool

    @property
    def key(self) -> str:
        """A file-system-safe name for the cached mirror of this source."""
        tail = re.sub(r"\.git$", "", self.url.rstrip("/"))
        tail = re.sub(r"^[a-z][a-z0-9+.-]*://", "", tail)
        return re.sub(r"[^A-Za-z0-9_.-]+", "+", tail).strip("+")


class SuiteTask(BaseModel):
    """One commit-revert task: the agent starts at the parent of ``commit``."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    repo: str = Field(min_length=1, description="owner/name, git URL or local path.")
    commit: str = Field(min_length=7, description="The upstream fix commit.")
    description: str = Field(min_length=1, description="The bug, as given to the agent.")
    test_command: str = Field(min_length=1)
    setup_command: str | None = None
    language: str | None = None
    difficulty: str | None = None
    tags: list[str] = Field(default_factory=list)
    fail_to_pass: list[str] = Field(default_factory=list)
    pass_to_pass: list[str] = Field(default_factory=list)
    test_files: list[str] | None = Field(
        None, description="Globs of the fix's test files; a path heuristic when omitted."
    )
    timeout_s: float | None = Field(None, gt=0, description="Limit for setup and test runs.")
    env: dict[str, str] = Field(
        default_factory=dict, description="Variables of the task's own, given to its setup, "
                                          "agent and test commands.")
    base_dir: str | None = Field(None, exclude=True, description="Directory of the suite file.")

    @field_validator("commit")
    @classmethod
    def _hex(cls, value: str) -> str:
        if not re.fullmatch(r"[0-9a-fA-F]{7,40}", value):
            raise ValueError("must be a hexadecimal commit id")
        return value.lower()

    def repo_source(self) -> RepoSource:
        """Resolve ``repo``: local path (relative to the suite file), URL, or owner/name."""
        repo = self.repo.strip()
        base = Path(self.base_dir) if self.base_dir else Path.cwd()
        candidate = Path(repo).expanduser()
        if not candidate.is_absolute():
            candidate = base / candidate
        looks_local = repo.startswith(("/", "./", "../", "~")) or candidate.is_dir()
        if looks_local:
            return RepoSource(str(candidate.resolve()), local=True)
        if _URL.match(repo):
            return RepoSource(repo, local=False)
        if _OWNER_NAME.match(repo):
            return RepoSource(f"https://github.com/{repo.removesuffix('.git')}.git", local=False)
        return RepoSource(str(candidate.resolve()), local=True)

    def to_task(self) -> Task:
        """The run-format :class:`Task` recorded with each result."""
        return Task(id=self.id, repo=self.repo, commit=self.commit,
                    description=self.description, test_command=self.test_command,
                    language=self.language, difficulty=self.difficulty, tags=list(self.tags),
                    test_files=self.test_files)


class Suite(BaseModel):
    """A named list of tasks."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    defaults: dict[str, Any] = Field(default_factory=dict)
    tasks: list[SuiteTask] = Field(min_length=1)

    def select(self, ids: list[str] | None) -> list[SuiteTask]:
        """The tasks named in ``ids`` (all when ``None``); unknown ids are an error."""
        if not ids:
            return list(self.tasks)
        known = {t.id for t in self.tasks}
        unknown = [i for i in ids if i not in known]
        if unknown:
            raise InputError(self.name, "tasks", f"unknown task id(s): {', '.join(unknown)}")
        return [t for t in self.tasks if t.id in ids]


def _read_yaml(path: Path) -> Any:
    text = read_text(path)
    try:
        return yaml.safe_load(text)
    except RecursionError:
        raise InputError(path, None, "invalid YAML: nested too deeply") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise InputError(path, None, f"invalid YAML{where}") from None


def bundled_suites() -> list[str]:
    """The names of the suites that ship with judgekit (``flask``, ``polars``, ``ruff``)."""
    return sorted(p.stem for p in data_dir("suites").glob("*.yaml"))


def find_suite(path: str | Path) -> Path:
    """``path`` itself when it exists; else the bundled suite it names: ``suites`` (the
    directory of them all), ``NAME`` or ``NAME.yaml``, or ``suites/NAME.yaml``; else
    ``path`` unchanged (its reader says it is missing, see :func:`missing_suite`).

    Example:
        >>> find_suite("flask").name, find_suite("suites").name
        ('flask.yaml', 'suites')
    """
    given = Path(path)
    if given.exists():
        return given
    parts = given.parts
    if parts and parts[0] == "suites" and not given.is_absolute():
        parts = parts[1:]
    bundled = data_dir("suites")
    if not parts:
        return bundled
    if len(parts) == 1:
        name = parts[0] if parts[0].endswith((".yaml", ".yml")) else f"{parts[0]}.yaml"
        if (bundled / name).is_file():
            return bundled / name
    return given


def missing_suite(path: str | Path) -> InputError:
    """The error for a suite path that is neither a file nor a bundled suite's name."""
    return InputError(path, None, "no such file or directory, nor a bundled suite ("
                                  f"{', '.join(['suites', *bundled_suites()])})")


def load_suite(path: str | Path) -> Suite:
    """Read and validate a suite file (or a single task file, or a bundled suite named as
    :func:`find_suite` says) into a :class:`Suite`."""
    if not Path(path).exists() and find_suite(path) == Path(path):
        raise missing_suite(path)
    path = find_suite(path)
    doc = _read_yaml(path)
    if not isinstance(doc, dict):
        raise InputError(path, None, "expected a mapping with 'name' and 'tasks' (or a task)")
    if "id" in doc and "tasks" not in doc:
        doc = {"name": path.stem, "tasks": [doc]}
    defaults = doc.get("defaults") or {}
    if not isinstance(defaults, dict):
        raise InputError(path, "defaults", "must be a mapping")
    tasks = doc.get("tasks")
    if not isinstance(tasks, list):
        raise InputError(path, "tasks", "required list is missing" if tasks is None
                         else "must be a list of task mappings")
    merged = []
    for i, entry in enumerate(tasks):
        if not isinstance(entry, dict):
            raise InputError(path, f"tasks[{i}]", "must be a mapping")
        merged.append({**defaults, **entry, "base_dir": str(path.resolve().parent)})
    suite = validate(Suite, {**doc, "tasks": merged}, path)
    seen: set[str] = set()
    for i, task in enumerate(suite.tasks):
        if task.id in seen:
            raise InputError(path, f"tasks[{i}].id", f"duplicate task id {task.id!r}")
        seen.add(task.id)
    return suite
