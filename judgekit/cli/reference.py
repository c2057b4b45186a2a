"""The command-line reference, ``docs/cli.md``, generated from the argument parser.

``python -m judgekit.cli.reference docs/cli.md`` writes it; ``tests/cli/test_cli_reference.py``
checks that the committed file is what the parser generates, so the reference never drifts
from the flags.

Example:
    >>> text = reference()
    >>> text.startswith("# Command-line reference")
    True
    >>> "## judgekit judge" in text and "`--base-url URL`" in text
    True
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

#: the width usage lines are wrapped at (fixed, so the file does not depend on a terminal).
WIDTH = 96

_HEAD = """# Command-line reference

Every `judgekit` command and flag, generated from the argument parser (`python -m
judgekit.cli.reference docs/cli.md`; a test keeps this file equal to what the parser
generates). `judgekit COMMAND --help` prints the same; `python -m judgekit` works the same as
`judgekit`. Bad input or a bad flag value ends with one line on stderr and exit code 2; a
judging run the cost cap cut short exits 3.
"""


def _subcommands(parser: argparse.ArgumentParser, path: str
                 ) -> Iterator[tuple[str, str, argparse.ArgumentParser]]:
    """``(command path, its one-line help, its parser)`` for every sub-command, depth first."""
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        helps = {a.dest: a.help or "" for a in action._get_subactions()}
        for name, sub in action.choices.items():
            full = f"{path} {name}".strip()
            yield full, helps.get(name, ""), sub
            yield from _subcommands(sub, full)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _invocation(action: argparse.Action, formatter: argparse.HelpFormatter) -> str:
    if not action.option_strings:
        return _cell(f"`{formatter._metavar_formatter(action, action.dest)(1)[0]}`")
    if action.nargs == 0:
        return ", ".join(f"`{o}`" for o in action.option_strings)
    metavar = formatter._format_args(action, action.dest.upper())
    return _cell(", ".join(f"`{o} {metavar}`" for o in action.option_strings))


def _section(path: str, summary: str, parser: argparse.ArgumentParser) -> list[str]:
    parser.formatter_class = lambda prog: argparse.HelpFormatter(prog, width=WIDTH)
    formatter = parser._get_formatter()
    usage = parser.format_usage().removeprefix("usage: ").rstrip()
    lines = [f"## judgekit {path}", ""]
    text = parser.description or summary
    if text:
        lines += [_cell(text), ""]
    lines += ["```", usage, "```", ""]
    for group in parser._action_groups:
        actions = [a for a in group._group_actions
                   if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))
                   and a.help != argparse.SUPPRESS]
        if not actions:
            continue
        lines += [f"**{group.title}**", "", "| argument | what it does |", "|---|---|"]
        for action in actions:
            help_text = formatter._expand_help(action) if action.help else ""
            lines.append(f"| {_invocation(action, formatter)} | {_cell(help_text)} |")
        lines.append("")
    return lines


def reference(parser: argparse.ArgumentParser | None = None) -> str:
    """The Markdown reference of every command of ``parser`` (judgekit's by default)."""
    if parser is None:
        from judgekit.cli import build_parser

        parser = build_parser()
    lines = [_HEAD]
    sections = list(_subcommands(parser, ""))
    lines += ["| command | what it does |", "|---|---|"]
    lines += [f"| [`judgekit {path}`](#judgekit-{path.replace(' ', '-')}) | {_cell(summary)} |"
              for path, summary, _ in sections]
    lines.append("")
    for path, summary, sub in sections:
        lines += _section(path, summary, sub)
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the reference to the file named (``docs/cli.md``), or print it."""
    args = sys.argv[1:] if argv is None else argv
    text = reference()
    if args:
        Path(args[0]).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
