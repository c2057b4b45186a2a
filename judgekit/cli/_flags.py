"""Spelling the caller's options as this command line's flags.

Layers below the command line refer to an option in a message as ``{option:NAME}``, NAME
being the option's keyword (:mod:`judgekit.errors`). The command line knows its flags: each
argparse action's ``dest`` is that keyword, so ``{option:max_cost}`` is shown as
``--max-cost``. Names no flag of the running command has stay as they are.
"""

from __future__ import annotations

import argparse

from judgekit.errors import render_options

_FLAGS: dict[str, str] = {}


def learn(parser: argparse.ArgumentParser, command: str | None = None) -> None:
    """Remember the flag of every option of ``parser``'s sub-commands; those of
    ``command`` (the one running) win where two commands name one option differently."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            subs = list(action.choices.items())
            subs.sort(key=lambda item: item[0] == command)  # the running command last
            for name, sub in subs:
                _learn_options(sub, override=name == command)


def _learn_options(parser: argparse.ArgumentParser, *, override: bool) -> None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                _learn_options(sub, override=override)
        elif action.option_strings and action.dest not in ("help", "version"):
            long = [o for o in action.option_strings if o.startswith("--")]
            flag = (long or action.option_strings)[0]
            if override:
                _FLAGS[action.dest] = flag
            else:
                _FLAGS.setdefault(action.dest, flag)


def spell(name: str) -> str | None:
    """The flag of option ``name``, or ``None`` when no command has it."""
    return _FLAGS.get(name)


def flags(text: str) -> str:
    """``text`` with each ``{option:NAME}`` written as the flag."""
    return render_options(text, spell)
