"""Find a verdict in a model's answer and check it against its JSON Schema.

Example:
    >>> extract_json('Here it is:\\n```json\\n{"winner": "A"}\\n```')
    {'winner': 'A'}
    >>> schema_problems({"winner": "C"}, {"type": "object",
    ...     "properties": {"winner": {"enum": ["A", "B"]}}})
    ["winner: 'C' is not one of ['A', 'B']"]
"""

from __future__ import annotations

import json
import re
from typing import Any

from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
from jsonschema.exceptions import SchemaError  # type: ignore[import-untyped]

from judgekit.engine.quickcheck import Check, compile_check
from judgekit.errors import ConfigError

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n(.*?)```", re.DOTALL)
_validators: dict[str, tuple[Draft202012Validator, Check | None]] = {}
_by_id: dict[int, tuple[dict[str, Any], tuple[Draft202012Validator, Check | None]]] = {}
_decoder = json.JSONDecoder()
#: ``{`` positions tried in prose: keeps the search linear in the answer's length.
MAX_OBJECT_STARTS = 64
MAX_FIELD_CHARS = 32_000
"""Longest text of a verdict's field kept whole (a reasoning, a quoted passage); a longer
one keeps its head, marked, and is counted in ``summary["judge"]["fields_truncated"]``."""


def cap_fields(verdict: Any, limit: int | None = None) -> int:
    """Cut in place every string of ``verdict`` (its fields, nested objects and lists)
    longer than ``limit`` characters (default :data:`MAX_FIELD_CHARS`) to its head and a
    note of what was cut; the number of strings cut.

    Example:
        >>> v = {"a": {"reasoning": "x" * 50}, "evidence": ["y" * 5]}
        >>> cap_fields(v, 10), v["a"]["reasoning"]
        (1, 'xxxxxxxxxx [... 40 characters cut by judgekit]')
    """
    limit = MAX_FIELD_CHARS if limit is None else limit
    cut = 0
    stack = [verdict]
    while stack:
        item = stack.pop()
        keys = (list(item) if isinstance(item, dict) else
                range(len(item)) if isinstance(item, list) else ())
        for key in keys:
            value = item[key]
            if isinstance(value, str) and len(value) > limit:
                item[key] = f"{value[:limit]} [... {len(value) - limit} characters cut by judgekit]"
                cut += 1
            elif isinstance(value, (dict, list)):
                stack.append(value)
    return cut


def extract_json(text: str) -> dict[str, Any] | None:
    """Return the first JSON object in ``text``: the whole text, a fenced block, or a bare
    ``{...}`` inside prose. ``None`` when there is none."""
    stripped = text.strip()
    if not stripped:
        return None
    try:
        value = json.loads(stripped)
        if isinstance(value, dict):
            return value
    except ValueError:
        pass
    for block in _FENCE.findall(text):
        try:
            value = json.loads(block)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    start = text.find("{")
    tries = 0
    while start != -1 and tries < MAX_OBJECT_STARTS:
        tries += 1
        try:
            value, end = _decoder.raw_decode(text, start)
        except ValueError:
            value, end = None, start + 1
        if isinstance(value, dict):
            return value
        start = text.find("{", max(end, start + 1))
    return None


def _compiled(schema: dict[str, Any]) -> tuple[Draft202012Validator, Check | None]:
    """The validator of ``schema`` and its quick check, compiled once per schema."""
    by_id = _by_id.get(id(schema))
    if by_id is not None and by_id[0] is schema:
        return by_id[1]
    ident = canonical_json(schema)
    found = _validators.get(ident)
    if found is None:
        try:
            Draft202012Validator.check_schema(schema)
        except SchemaError as exc:
            raise ConfigError(f"invalid verdict schema: {exc.message}") from None
        found = _validators[ident] = (Draft202012Validator(schema), compile_check(schema))
    if len(_by_id) > 1000:
        _by_id.clear()
    _by_id[id(schema)] = (schema, found)
    return found


def schema_problems(verdict: Any, schema: dict[str, Any], limit: int = 10) -> list[str]:
    """Validation errors of ``verdict`` against ``schema``, as short readable lines.

    An answer the schema's quick check accepts has none (:mod:`judgekit.engine.quickcheck`);
    any other is validated in full.
    """
    validator, quick = _compiled(schema)
    if quick is not None and quick(verdict):
        return []
    problems = []
    for err in validator.iter_errors(verdict):
        where = ".".join(str(p) for p in err.absolute_path)
        problems.append(f"{where}: {err.message}" if where else err.message)
        if len(problems) >= limit:
            break
    return sorted(problems)


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical_json(value: Any) -> str:
    """Deterministic JSON text (sorted keys, no spaces): the basis of cache keys."""
    return _CANONICAL.encode(value)
