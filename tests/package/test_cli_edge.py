"""Options are parsed once, at the command line's edge.

No module below :mod:`judgekit.cli` imports ``argparse`` or spells one of the command line's
flags, in code, messages, docstrings or comments: a message that refers to an option writes
``{option:NAME}`` and the command line shows the flag (:mod:`judgekit.cli._flags`).
"""

from __future__ import annotations

import argparse
import ast
import re
from pathlib import Path

from judgekit.cli import build_parser
from judgekit.cli._flags import flags, learn
from judgekit.errors import ConfigError

PACKAGE = Path(__file__).resolve().parents[2] / "judgekit"
BELOW_CLI = [p for p in sorted(PACKAGE.rglob("*.py")) if "cli" not in p.relative_to(PACKAGE).parts]


def _flags_of(parser: argparse.ArgumentParser) -> set[str]:
    found: set[str] = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found |= _flags_of(sub)
        found |= {o for o in action.option_strings if o.startswith("--")}
    return found - {"--help", "--version"}


CLI_FLAGS = _flags_of(build_parser())

#: Arguments of other programs that happen to share a name with one of judgekit's flags.
OTHER_PROGRAMS = {("judgekit/execute/workspace.py", "--depth")}  # git fetch --depth


def test_the_command_line_has_flags_to_look_for() -> None:
    assert {"--judge", "--out", "--max-cost", "--resume", "--jobs"} <= CLI_FLAGS


def test_no_module_below_the_cli_imports_argparse() -> None:
    found = []
    for path in BELOW_CLI:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(n.split(".")[0] == "argparse" for n in names):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}")
    assert not found, found


def test_no_module_below_the_cli_spells_a_flag() -> None:
    pattern = re.compile(r"(?<![\w-])(" + "|".join(
        re.escape(f) for f in sorted(CLI_FLAGS, key=len, reverse=True)) + r")(?![\w-])")
    found = []
    for path in BELOW_CLI:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in pattern.finditer(line):
                if (str(path.relative_to(PACKAGE.parent)), match.group(1)) in OTHER_PROGRAMS:
                    continue
                found.append(f"{path.relative_to(PACKAGE.parent)}:{number} {match.group(1)}")
    assert not found, "flags spelled below the command line:\n" + "\n".join(found)


def test_the_command_line_spells_an_option_as_its_flag() -> None:
    parser = build_parser()
    learn(parser, "run")
    err = ConfigError("{option:jobs} must be at least 1; {option:no_such_option} stays")
    assert str(err) == "jobs must be at least 1; no_such_option stays"
    assert flags(err.args[0]) == "--jobs must be at least 1; no_such_option stays"
    assert err.render({"jobs": "--jobs"}.get) == flags(err.args[0])
