"""docs/cli.md is the command-line reference the argument parser generates."""

from __future__ import annotations

import argparse

from judgekit.cli import COMMANDS, build_parser, write_reference
from tests.clirun import ROOT


def test_committed_reference_is_what_the_parser_generates() -> None:
    committed = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert committed == write_reference(), "docs/cli.md is stale: run python -c \"import " \
        "judgekit.cli as c; c.write_reference('docs/cli.md')\""


def test_reference_names_every_command_and_flag() -> None:
    text = write_reference()
    for name in (*COMMANDS, "search"):
        assert f"## judgekit {name}\n" in text, name
    commands = next(a for a in build_parser()._actions
                    if isinstance(a, argparse._SubParsersAction))
    flags = {o for sub in commands.choices.values()
             for a in sub._actions for o in a.option_strings if o.startswith("--")}
    assert {"--judge", "--base-url", "--tasks", "--out", "--agent-bind"} <= flags
    assert all(f"`{f}" in text for f in flags - {"--help"}), sorted(
        f for f in flags if f"`{f}" not in text)
