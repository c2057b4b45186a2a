"""A fast yes for answers that plainly satisfy a verdict schema.

Validating every answer with :mod:`jsonschema` costs a fraction of a millisecond, as much
as the rest of judgekit's work on a call. Verdict schemas use a small part of JSON
Schema, so :func:`compile_check` turns such a schema into a plain predicate once.

The predicate only ever says "valid" when JSON Schema would: it is conservative (a float
such as ``1.0`` where an integer is asked, an ``enum`` of mixed types, any keyword it
does not know) and answers ``False`` whenever it is unsure. ``False`` means "ask
:mod:`jsonschema`", which stays the judge of what is wrong and says it in words.

Example:
    >>> ok = compile_check({"type": "object", "required": ["winner"],
    ...                     "properties": {"winner": {"enum": ["A", "B", "tie"]}}})
    >>> ok({"winner": "A"}), ok({"winner": "C"}), ok({})
    (True, False, False)
    >>> compile_check({"type": "object", "patternProperties": {}}) is None
    True
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sized
from typing import Any, Literal

Check = Callable[[Any], bool]

#: Keywords that say nothing about validity.
_ANNOTATIONS = frozenset({"title", "description", "default", "examples", "$comment", "$schema",
                          "$id", "deprecated", "readOnly", "writeOnly"})
_KNOWN = _ANNOTATIONS | {"type", "properties", "required", "additionalProperties", "enum",
                         "const", "items", "minLength", "maxLength", "minItems", "maxItems",
                         "minimum", "maximum", "anyOf"}
_SCALARS = (str, int, bool, type(None))
#: Size keywords: the kind of value they bound, and how.
_SIZES = (("minLength", str, operator.ge), ("maxLength", str, operator.le),
          ("minItems", list, operator.ge), ("maxItems", list, operator.le))


def _is_type(value: Any, name: str) -> bool:
    kind = type(value)
    if name == "integer":
        return kind is int
    if name == "number":
        return kind is int or kind is float
    return kind is {"object": dict, "array": list, "string": str, "boolean": bool,
                    "null": type(None)}.get(name, object)


def _of_type(names: tuple[str, ...]) -> Check:
    return lambda v: any(_is_type(v, n) for n in names)


def _one_of(typed: frozenset[tuple[type, Any]]) -> Check:
    return lambda v: type(v) in _SCALARS and (type(v), v) in typed


def _sized(bound: int, kind: type[Sized], test: Callable[[int, int], bool]) -> Check:
    return lambda v: not isinstance(v, kind) or test(len(v), bound)


def _bounded(bound: float, test: Callable[[float, float], bool]) -> Check:
    return lambda v: type(v) not in (int, float) or test(v, bound)


def _any_of(checks: tuple[Check, ...]) -> Check:
    return lambda v: any(c(v) for c in checks)


def _each(item: Check) -> Check:
    return lambda v: not isinstance(v, list) or all(map(item, v))


def _all_of(checks: tuple[Check, ...]) -> Check:
    return lambda v: all(c(v) for c in checks)


def compile_check(schema: Any) -> Check | None:
    """A predicate that is ``True`` only for values valid under ``schema``; ``None`` when
    the schema uses something the predicate does not cover."""
    if schema is True:
        return lambda _: True
    if not isinstance(schema, dict) or not set(schema) <= _KNOWN:
        return None
    checks: list[Check] = []
    kind = schema.get("type")
    if kind is not None:
        names = [kind] if isinstance(kind, str) else kind
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            return None
        checks.append(_of_type(tuple(names)))
    for word in ("enum", "const"):
        if word in schema:
            allowed = schema[word] if word == "enum" else [schema[word]]
            if not isinstance(allowed, list) or not all(type(a) in _SCALARS for a in allowed):
                return None
            typed = frozenset((type(a), a) for a in allowed)  # 1 and True stay apart
            checks.append(_one_of(typed))
    for word, kind, test in _SIZES:
        if word in schema:
            if type(schema[word]) is not int:
                return None
            checks.append(_sized(schema[word], kind, test))
    for word, test in (("minimum", operator.ge), ("maximum", operator.le)):
        if word in schema:
            if type(schema[word]) not in (int, float):
                return None
            checks.append(_bounded(schema[word], test))
    if "anyOf" in schema:
        branches = schema["anyOf"]
        if not isinstance(branches, list) or not branches:
            return None
        compiled = [compile_check(b) for b in branches]
        alternatives = tuple(c for c in compiled if c is not None)
        if len(alternatives) < len(compiled):
            return None
        checks.append(_any_of(alternatives))
    if "items" in schema:
        item = compile_check(schema["items"])
        if item is None:
            return None
        checks.append(_each(item))
    obj = _object_check(schema)
    if obj is False:
        return None
    if obj is not None:
        checks.append(obj)
    return _all_of(tuple(checks))


def _object_check(schema: dict[str, Any]) -> Check | None | Literal[False]:
    """The object keywords' predicate, ``None`` when there are none, ``False`` when they
    cannot be compiled."""
    if not {"properties", "required", "additionalProperties"} & set(schema):
        return None
    props = schema.get("properties", {})
    required = schema.get("required", [])
    extra = schema.get("additionalProperties", True)
    if (not isinstance(props, dict) or not isinstance(required, list)
            or not all(isinstance(r, str) for r in required) or not isinstance(extra, bool)):
        return False
    compiled: dict[str, Check] = {}
    for name, sub in props.items():
        c = compile_check(sub)
        if c is None:
            return False
        compiled[name] = c
    need = tuple(required)

    def check(v: Any) -> bool:
        if not isinstance(v, dict):
            return True  # object keywords apply to objects only
        for name in need:
            if name not in v:
                return False
        for key, value in v.items():
            c = compiled.get(key)
            if c is None:
                if not extra:
                    return False
            elif not c(value):
                return False
        return True

    return check
