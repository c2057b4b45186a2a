"""A mistyped command, flag or choice is one line, exit 2, naming the closest accepted name."""

from __future__ import annotations

import pytest

from judgekit.cli import main


def _refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as stopped:
        main(list(argv))
    assert stopped.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def test_a_mistyped_command_names_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    line = _refused(capsys, "scroe", "runs/")
    assert "invalid choice: 'scroe'" in line and "did you mean 'score'?" in line


def test_a_mistyped_flag_names_the_running_commands_flag(
        capsys: pytest.CaptureFixture[str]) -> None:
    line = _refused(capsys, "judge", "runs/", "--jduge", "openai:m", "--no-audti")
    assert "unrecognized arguments: --jduge openai:m --no-audti" in line
    assert "did you mean --judge or --no-audit?" in line
    # the flag is the command's own: score has no --judge to suggest
    line = _refused(capsys, "score", "runs/", "--taks=suites")
    assert "did you mean --tasks?" in line


def test_a_mistyped_choice_names_the_choice(capsys: pytest.CaptureFixture[str]) -> None:
    line = _refused(capsys, "judge", "runs/", "--structured-output", "jsonschema")
    assert "did you mean 'json_schema'?" in line


def test_nothing_close_suggests_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    line = _refused(capsys, "judge", "runs/", "--zzzzzz")
    assert "did you mean" not in line and "unrecognized arguments: --zzzzzz" in line
