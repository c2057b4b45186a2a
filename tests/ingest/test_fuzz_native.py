"""judgekit's own run format gets the same care as bobbin's: every mutant of a real result is
exit 0 with finite JSON or exit 2 naming the file and the field."""

from __future__ import annotations

import json

import pytest

from judgekit import load_runs
from judgekit.cli import main

RUN = "20260210-205259-0f6c"

MUTANTS = [
    ('"duration_s": NaN', "duration_s"),
    ('"duration_s": 1e400', "duration_s"),
    ('"duration_s": -2', "duration_s"),
    ('"attempt": "1"', "attempt"),
    ('"attempt": -1', "attempt"),
    ('"attempt": 99999999999999999999999', "attempt"),
    ('"arm": ""', "arm"),
    ('"arm": 5', "arm"),
    ('"usage": {"cost_usd": Infinity}', "usage.cost_usd"),
    ('"usage": {"input_tokens": -5}', "usage.input_tokens"),
    ('"usage": {"input_tokens": 1.5}', "usage.input_tokens"),
    ('"test": {"exit_code": "0"}', "test.exit_code"),
    ('"test": {"counts": {"total": -1}}', "test.counts.total"),
    ('"metadata": {"x": ' + "[" * 500 + "]" * 500 + "}", "metadata"),
    ('"metadata": {"big": ' + "7" * 5001 + "}", "metadata.big"),
    ('"metadata": {"v": -Infinity}', "metadata.v"),
    ('"success": "yes"', "success"),
    ('"materials": {"log": 5}', "materials.log"),
]


@pytest.fixture
def result_line(bobbin_dir) -> str:
    (result,) = [r for r in load_runs(bobbin_dir / RUN) if r.arm == "no-bobbin"]
    return result.model_dump_json(exclude={"duration_s", "attempt", "arm", "usage", "test",
                                           "metadata", "success", "materials"})


@pytest.mark.parametrize("fragment,field", MUTANTS, ids=[m[1] + ":" + m[0][:30] for m in MUTANTS])
def test_native_mutant(tmp_path, capsys, result_line, fragment, field):
    line = result_line[:-1] + ", " + fragment + ', "arm": "a"}' if '"arm"' not in fragment \
        else result_line[:-1] + ", " + fragment + "}"
    path = tmp_path / "run.jsonl"
    path.write_text(line + "\n")
    code = main(["score", str(path), "--json", "--no-similarity"])
    out, err = capsys.readouterr()
    assert code == 2, out[:500]
    (message,) = err.strip().splitlines()
    assert str(path) in message and f"line 1: {field}" in message, message


def test_valid_line_scores(tmp_path, capsys, result_line):
    path = tmp_path / "run.jsonl"
    path.write_text(result_line[:-1] + ', "arm": "a", "duration_s": 3.5}\n')
    assert main(["score", str(path), "--json", "--no-similarity"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["results"][0]["duration_s"] == 3.5
