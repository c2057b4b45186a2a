"""The command-line reference, ``docs/cli.md``, generated from the argument parser.

:func:`judgekit.cli.write_reference` writes it (``python -c "import judgekit.cli as c;
c.write_reference('docs/cli.md')"``); ``tests/cli/test_cli_reference.py`` checks that the
committed file is what the parser generates, so the reference never drifts from the flags.

Example:
    >>> parser = argparse.ArgumentParser(prog="judgekit")
    >>> sub = parser.add_subparsers().add_parser("hello", help="say hello")
    >>> _ = sub.add_argument("--name", metavar="WHO", help="whom to greet")
    >>> text = reference(parser)
    >>> text.startswith("# Command-line reference")
    True
    >>> "## judgekit hello" in text and "| `--name WHO` | whom to greet |" in text
    True
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator

#: the width help is formatted at (fixed, so the file does not depend on a terminal).
WIDTH = 96

_HEAD = """# Command-line reference

Every `judgekit` command and flag, generated from the argument parser (`python -c "import
judgekit.cli as c; c.write_reference('docs/cli.md')"`; a test keeps this file equal to what
the parser generates). `judgekit COMMAND --help` prints the same; `python -m judgekit` works
the same as `judgekit`. Bad input or a bad flag value ends with one line on stderr and exit code 2; a
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
    # the usage line is made here, not by argparse, whose wrapping differs between versions
    positionals = [formatter._format_args(a, a.dest) for a in parser._actions
                   if not a.option_strings and a.help != argparse.SUPPRESS]
    usage = " ".join([parser.prog, "[options]", *positionals])
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


def reference(parser: argparse.ArgumentParser) -> str:
    """The Markdown reference of every command of ``parser``."""
    lines = [_HEAD]
    sections = list(_subcommands(parser, ""))
    lines += ["| command | what it does |", "|---|---|"]
    lines += [f"| [`judgekit {path}`](#judgekit-{path.replace(' ', '-')}) | {_cell(summary)} |"
              for path, summary, _ in sections]
    lines.append("")
    for path, summary, sub in sections:
        lines += _section(path, summary, sub)
    return "\n".join(lines).rstrip() + "\n"
