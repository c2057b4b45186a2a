"""The JSON the CLI prints is, byte for byte, what json.dumps(indent=2, default=str) writes."""

from __future__ import annotations

import json
import random
from datetime import date

from judgekit.jsontext import dumps

ATOMS = [0, 1, -1, 2**63 - 1, 2**63, -(2**64), 0.0, -0.0, 0.5, 1e-4, 9.99e-5, 1e-5, 3e-7,
         1e15, 1e16, 9999999999999998.0, 1.5e300, float("nan"), float("inf"), -float("inf"),
         0.1 + 0.2, 2 / 3, "", "plain", "é", "\x7f", "\x00\x1f\n\t\"\\/", "\u2028",
         "emoji 😀", True, False, None, date(2026, 1, 2)]


def _value(rng: random.Random, depth: int):
    roll = rng.random()
    if depth > 3 or roll < 0.45:
        return rng.choice(ATOMS)
    if roll < 0.6:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    if roll < 0.65:
        return tuple(_value(rng, depth + 1) for _ in range(rng.randint(0, 3)))
    if roll < 0.7:
        return {1: "int key", None: "none key"}
    return {rng.choice(["a", "b", "é", "k\n"]) + str(i): _value(rng, depth + 1)
            for i in range(rng.randint(0, 4))}


def test_random_values_print_as_json_prints_them():
    rng = random.Random(11)
    for _ in range(4000):
        value = _value(rng, 0)
        assert dumps(value) == json.dumps(value, indent=2, default=str)


def test_large_plain_list():
    rows = [{"task": f"t{i}", "p": i / 7, "files": [f"a{i}.py"], "n": None}
            for i in range(2000)]
    rows[700]["task"] = "tâche"
    data = {"results": rows, "seed": 3, "empty": [], "none": {}}
    assert dumps(data) == json.dumps(data, indent=2, default=str)
