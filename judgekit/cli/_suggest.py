""""Did you mean ...?" for a mistyped command, flag or choice.

argparse says what it refused (``invalid choice: 'scroe'``, ``unrecognized arguments:
--jduge X``); :func:`suggestion` finds the closest of what the parser accepts there (the
commands, the running command's flags, an option's choices) by :mod:`difflib`'s ratio,
and says it in a few words, or nothing when no name is close.

Example:
    >>> import argparse
    >>> p = argparse.ArgumentParser(prog="judgekit")
    >>> sub = p.add_subparsers(dest="command")
    >>> judge = sub.add_parser("judge")
    >>> _ = judge.add_argument("--judge")
    >>> suggestion(p, "unrecognized arguments: --jduge x", ["judge", "--jduge", "x"])
    'did you mean --judge?'
    >>> suggestion(p, "argument command: invalid choice: 'jugde' (choose from 'judge')", [])
    "did you mean 'judge'?"
"""

from __future__ import annotations

import argparse
import difflib
import re
from collections.abc import Sequence

#: how alike a name must be to be suggested (difflib's ratio, 0 to 1).
CUTOFF = 0.6

_CHOICE = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)$")
_UNRECOGNIZED = "unrecognized arguments: "


def _closest(word: str, names: Sequence[str]) -> str | None:
    found = difflib.get_close_matches(word, list(names), n=1, cutoff=CUTOFF)
    return found[0] if found else None


def _choices(listed: str) -> list[str]:
    """The names of argparse's ``choose from ...`` list (quoted or not)."""
    return [name.strip().strip("'\"") for name in listed.split(",")]


def _command(parser: argparse.ArgumentParser, argv: Sequence[str]
             ) -> argparse.ArgumentParser:
    """The parser of the sub-command named in ``argv``, else ``parser`` itself."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for word in argv:
                if word in action.choices:
                    return _command(action.choices[word], argv)
    return parser


def _flags(parser: argparse.ArgumentParser) -> list[str]:
    return [flag for action in parser._actions for flag in action.option_strings
            if flag.startswith("--")]


def suggestion(parser: argparse.ArgumentParser, message: str,
               argv: Sequence[str]) -> str | None:
    """``did you mean X?`` for the refused name in argparse's ``message`` (the command
    line being ``argv``), or ``None`` when nothing accepted there is close to it."""
    choice = _CHOICE.search(message)
    if choice is not None:
        close = _closest(choice.group(1), _choices(choice.group(2)))
        return f"did you mean '{close}'?" if close else None
    if not message.startswith(_UNRECOGNIZED):
        return None
    flags = _flags(_command(parser, argv))
    found = []
    for word in message[len(_UNRECOGNIZED):].split():
        if word.startswith("--"):
            close = _closest(word.split("=", 1)[0], flags)
            if close and close not in found:
                found.append(close)
    return f"did you mean {' or '.join(found)}?" if found else None
