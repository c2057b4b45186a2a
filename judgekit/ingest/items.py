"""Benchmark items without any run: what an item audit is shown.

An *item* is one task of a benchmark as its maintainers publish it: the issue text, the
fix, the tests that check it and any hints. :func:`load_items` reads SWE-bench dataset rows
(a JSON array of rows, or JSON Lines, one row a line) as SWE-bench publishes them:
``instance_id``, ``repo``, ``base_commit``, ``problem_statement``, ``patch``,
``test_patch``, ``FAIL_TO_PASS`` and ``PASS_TO_PASS`` (lists, or JSON text of lists) and
``hints_text``; other keys are ignored.

Example:
    >>> item = BenchmarkItem.from_row({"instance_id": "a__b-1", "problem_statement": "x",
    ...                                "FAIL_TO_PASS": '["t::a"]'})
    >>> item.instance_id, item.fail_to_pass
    ('a__b-1', ['t::a'])
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from judgekit.errors import InputError
from judgekit.jsonread import loads

#: the largest item file read (bytes): a dataset of thousands of rows is far below it.
MAX_ITEMS_BYTES = 512 * 1024 * 1024


def _tests(value: Any) -> list[str]:
    """A list of test names from a list, or from JSON text of one (SWE-bench's form)."""
    if value is None or value == "":
        return []
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            raise ValueError("not a list of test names (nor JSON text of one)") from None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError("not a list of test names")
    return list(value)


class BenchmarkItem(BaseModel):
    """One benchmark item: the issue, the fix and the tests that check it."""

    instance_id: str = Field(min_length=1)
    repo: str | None = None
    base_commit: str | None = None
    problem_statement: str = ""
    patch: str = Field("", description="The fix.")
    test_patch: str = Field("", description="The tests the fix's pull request added or changed.")
    fail_to_pass: list[str] = Field(default_factory=list)
    pass_to_pass: list[str] = Field(default_factory=list)
    hints_text: str = ""
    test_command: str = Field("", description="How the tests run (a judgekit suite's).")

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> BenchmarkItem:
        """An item from a SWE-bench dataset row (``FAIL_TO_PASS`` and ``PASS_TO_PASS`` as
        lists or JSON text of lists)."""
        data = {k: row.get(k) for k in ("instance_id", "repo", "base_commit",
                                        "problem_statement", "patch", "test_patch",
                                        "hints_text") if row.get(k) is not None}
        for key in ("FAIL_TO_PASS", "PASS_TO_PASS"):
            try:
                data[key.lower()] = _tests(row.get(key, row.get(key.lower())))
            except ValueError as exc:
                raise RowError(key, str(exc)) from None
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            err = exc.errors()[0]
            raise RowError(".".join(str(x) for x in err["loc"]) or "(row)", err["msg"]) from None


class RowError(ValueError):
    """A dataset row that is not an item: the field, and why."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field, self.reason = field, reason


def _rows(path: Path, text: str) -> list[tuple[str, Any]]:
    """``(where, row)`` of every row: a JSON array, one object, or JSON Lines (each read by
    the strict reader: depth, numbers and encoding guarded)."""
    stripped = text.lstrip()
    if stripped.startswith("["):
        data = loads(text, path)
        return [(f"[{i}]", row) for i, row in enumerate(data)]
    lines = [(n, line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if stripped.startswith("{") and len(lines) > 1 and not lines[0][1].rstrip().endswith("}"):
        return [("(file)", loads(text, path))]  # one object over several lines
    return [(f"line {n}", loads(line, path, f"line {n}: ")) for n, line in lines]


def suite_items(path: str | Path) -> list[BenchmarkItem]:
    """The tasks of a judgekit suite file (or a bundled suite's name) as items: the bug
    description as the issue text, the fix named by its commit (its diff is not in the
    suite), the test command and the suite's test lists."""
    from judgekit.ingest.suites import load_suite

    return [BenchmarkItem(instance_id=t.id, repo=t.repo, base_commit=t.commit,
                          problem_statement=t.description, test_command=t.test_command,
                          fail_to_pass=list(t.fail_to_pass), pass_to_pass=list(t.pass_to_pass),
                          hints_text=f"The fix is commit {t.commit} of {t.repo} (its diff is "
                                     "not part of the suite).")
            for t in load_suite(path).tasks]


def load_items(path: str | Path) -> list[BenchmarkItem]:
    """Every item of a SWE-bench dataset file (JSON or JSON Lines), or of a judgekit suite
    (a ``.yaml`` file, or a bundled suite's name: :func:`suite_items`).

    Raises :class:`~judgekit.errors.InputError` naming the row and the field for a row
    that is not an item, and for an instance id given twice: nothing is guessed.
    """
    path = Path(path)
    if path.suffix in (".yaml", ".yml") or (not path.exists() and not path.suffix):
        return suite_items(path)
    try:
        if path.stat().st_size > MAX_ITEMS_BYTES:
            raise InputError(path, "(file)", f"larger than {MAX_ITEMS_BYTES} bytes")
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as exc:
        raise InputError(path, "(file)", f"cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise InputError(path, "(file)", "not UTF-8 text") from None
    items: list[BenchmarkItem] = []
    seen: set[str] = set()
    for where, row in _rows(path, text):
        if not isinstance(row, dict):
            raise InputError(path, where, "not an object (a dataset row)")
        try:
            item = BenchmarkItem.from_row(row)
        except RowError as exc:
            raise InputError(path, f"{where}.{exc.field}", exc.reason) from None
        if item.instance_id in seen:
            raise InputError(path, f"{where}.instance_id",
                             f"{item.instance_id!r} is given twice")
        seen.add(item.instance_id)
        items.append(item)
    if not items:
        raise InputError(path, "(file)", "no dataset rows")
    return items


__all__ = ["BenchmarkItem", "load_items"]
