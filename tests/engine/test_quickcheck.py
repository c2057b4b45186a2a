"""The quick schema check never accepts what JSON Schema refuses, and accepts plain valid
verdicts (so the full validator runs only for answers that need its messages)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from judgekit._resources import data_dir
from judgekit.engine.quickcheck import compile_check
from judgekit.engine.structured import schema_problems
from judgekit.pairwise.verdict import verdict_schema

ALL_KEYWORDS = {
    "type": "object", "additionalProperties": False, "required": ["n", "tags"],
    "properties": {
        "n": {"type": "integer", "minimum": 0, "maximum": 5},
        "x": {"type": ["number", "null"], "minimum": -1.5},
        "flag": {"type": "boolean"},
        "pick": {"enum": [0, 1]},
        "word": {"const": "yes"},
        "name": {"type": "string", "minLength": 1, "maxLength": 4},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3},
        "either": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "integer"}}]},
        "free": True,
    },
}


def _schemas() -> list[dict[str, Any]]:
    audit = json.loads((data_dir("schemas") / "audit-verdict.schema.json").read_text())
    return [verdict_schema(), audit, ALL_KEYWORDS]


ODD_VALUES: list[Any] = [None, True, False, 0, 1, -1, 1.0, 0.5, 2**70, float("inf"), "",
                         "A", "tie", "yes", "abcde", [], [1], ["a"], ["a", 1], {}, {"a": 1},
                         "x" * 10]


def _sample_valid(schema: Any, rng: random.Random) -> Any:
    """A value built to satisfy ``schema`` (the generator's own guess; JSON Schema decides)."""
    if schema is True:
        return rng.choice(ODD_VALUES)
    if "enum" in schema:
        return rng.choice(schema["enum"])
    if "const" in schema:
        return schema["const"]
    if "anyOf" in schema:
        return _sample_valid(rng.choice(schema["anyOf"]), rng)
    kind = schema.get("type", "object")
    kind = rng.choice(kind) if isinstance(kind, list) else kind
    if kind == "object":
        props = schema.get("properties", {})
        keys = set(schema.get("required", [])) | {k for k in props if rng.random() < 0.5}
        return {k: _sample_valid(props.get(k, True), rng) for k in keys}
    if kind == "array":
        return [_sample_valid(schema.get("items", True), rng) for _ in range(rng.randint(1, 3))]
    if kind == "string":
        return "".join(rng.choice("ab\u00e9\"") for _ in range(rng.randint(1, 4)))
    if kind == "integer":
        return rng.randint(0, 5)
    if kind == "number":
        return rng.choice([0, 1.5, 3])
    if kind == "boolean":
        return rng.random() < 0.5
    return None


def _mutate(value: Any, rng: random.Random) -> Any:
    """``value`` with one part replaced, dropped or added."""
    if isinstance(value, dict) and value and rng.random() < 0.8:
        key = rng.choice(sorted(value))
        out = dict(value)
        roll = rng.random()
        if roll < 0.3:
            del out[key]
        elif roll < 0.4:
            out["unexpected"] = rng.choice(ODD_VALUES)
        else:
            out[key] = _mutate(out[key], rng)
        return out
    if isinstance(value, list) and value and rng.random() < 0.7:
        out = list(value)
        out[rng.randrange(len(out))] = _mutate(out[0], rng)
        return out
    return rng.choice(ODD_VALUES)


@pytest.mark.parametrize("schema", _schemas(), ids=["pairwise", "audit", "all-keywords"])
def test_quick_yes_is_always_a_json_schema_yes(schema: dict[str, Any]) -> None:
    check = compile_check(schema)
    assert check is not None, "the verdict schemas are covered by the quick check"
    validator = Draft202012Validator(schema)
    rng = random.Random(7)
    accepted = refused_by_both = 0
    for n in range(3000):
        value = _sample_valid(schema, rng)
        for _ in range(n % 3):
            value = _mutate(value, rng)
        valid = validator.is_valid(value)
        if check(value):
            assert valid, f"quick check accepted an invalid value: {value!r}"
            accepted += 1
        elif not valid:
            refused_by_both += 1
    assert accepted > 500 and refused_by_both > 500  # both sides were exercised


def test_unsure_values_go_to_the_full_validator() -> None:
    check = compile_check({"type": "object", "properties": {"n": {"type": "integer"}}})
    assert check is not None
    # JSON Schema counts 1.0 as an integer; the quick check is unsure and says no ...
    assert not check({"n": 1.0})
    # ... and the full validation that follows finds nothing wrong.
    assert schema_problems({"n": 1.0}, {"type": "object",
                                        "properties": {"n": {"type": "integer"}}}) == []
    assert not check({"n": True})  # a boolean is not an integer in JSON Schema


def test_schemas_beyond_the_subset_are_left_to_jsonschema() -> None:
    assert compile_check({"type": "string", "pattern": "^a"}) is None
    assert compile_check({"properties": {"a": {"$ref": "#/x"}}}) is None
    assert compile_check({"enum": [1.5]}) is None
    assert schema_problems("b", {"type": "string", "pattern": "^a"}) == ["'b' does not match '^a'"]


def test_invalid_answers_still_get_their_messages() -> None:
    problems = schema_problems({"consistency": {"winner": "C"}}, verdict_schema())
    assert any("'C' is not one of" in p for p in problems)
    assert any("'completeness' is a required property" in p for p in problems)
