"""``judgekit run --resume`` over a hostile run file: one InputError naming the file (the
CLI's one line, exit 2), never a RecursionError."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgekit.errors import InputError
from judgekit.execute.results import RunWriter, done_keys


@pytest.mark.parametrize("name", ["run.json", "run.jsonl"])
def test_a_deeply_nested_run_file_is_refused_by_name(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text("[" * 100_000 + "\n")
    with pytest.raises(InputError) as caught:
        if name.endswith(".jsonl"):
            done_keys(path)
        else:
            RunWriter(path, resume=True)
    assert str(path) in str(caught.value) and "deeper" in str(caught.value)


def test_a_line_that_is_not_a_result_is_named(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text('{"task": {"id": "t"}, "arm": "a"}\n[1, 2]\n')
    with pytest.raises(InputError, match="line 2"):
        done_keys(path)
