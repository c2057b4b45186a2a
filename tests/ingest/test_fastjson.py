"""orjson's reading is kept only where it is the strict reader's: same values, same errors."""

from __future__ import annotations

import json
import random

import pytest

from judgekit.errors import InputError
from judgekit.ingest.fastjson import fast_loads, loads, reference_loads

TRICKY = [
    b'{"a": 1, "a": 2, "b": [1.5, -0.0, 0, -0]}', b'18446744073709551615',
    b'18446744073709551616', b'-9223372036854775809', b'[1e400]', b'{"x": -1e309}',
    b'{"x": NaN}', b'[Infinity]', b'"\\ud800"', b'"\\udc00x"', b'"\\ud83d\\ude00"',
    b'"a\x01b"', b'"\x7f"', b' \t{"a": 1}\r\n', b'\xef\xbb\xbf{}', b'"\xff"', b'',
    b'[' * 70 + b']' * 70, b'[' * 63 + b']' * 63, b'[' * 2000 + b']' * 2000,
    b'{"a": ' * 65 + b'1' + b'}' * 65, b'1' * 5000, b'[' + b'1' * 5000 + b']',
    b'{"a": 1,}', b'[01]', b'[1.]', b'{"a": "\\u0000"}', b'9.2e18', b'[-9.3e18]',
    b'{"t": true, "f": false, "n": null}', b'"\\/"', b'[1, 2] x', b'\x0c{}',
]


def _outcome(read, data: bytes):
    try:
        return "value", read(data)
    except InputError as exc:
        return "error", str(exc)


@pytest.mark.parametrize("data", TRICKY)
def test_same_as_the_strict_reader(data):
    fast = _outcome(lambda d: loads(d, "f.jsonl", "line 3: "), data)
    strict = _outcome(lambda d: reference_loads(d, "f.jsonl", "line 3: "), data)
    assert repr(fast) == repr(strict)


def test_random_documents_agree():
    rng = random.Random(5)
    atoms = [0, -1, 2**63 - 1, 2**63, 2**64, -(2**63), -(2**63) - 1, 1.5, 1e-7, 1e300,
             "é", "\u2028", "\\", '"', True, False, None, 10**25]

    def value(depth: int):
        roll = rng.random()
        if depth > 3 or roll < 0.5:
            return rng.choice(atoms)
        if roll < 0.75:
            return [value(depth + 1) for _ in range(rng.randint(0, 3))]
        return {f"k{i}": value(depth + 1) for i in range(rng.randint(0, 3))}

    for _ in range(3000):
        data = json.dumps(value(0), ensure_ascii=rng.random() < 0.5).encode()
        assert repr(_outcome(lambda d: loads(d, "f"), data)) == repr(
            _outcome(lambda d: reference_loads(d, "f"), data))


def test_big_integers_are_left_to_the_strict_reader():
    assert fast_loads(b"[18446744073709551616]") == (False, None)
    assert loads(b"[18446744073709551616]", "f") == [18446744073709551616]
