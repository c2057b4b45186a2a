"""Secrets on the command line never come back in a message.

Values given with ``--agent-env``/``--test-env`` (in any form argparse accepts: the next
word, ``--agent-env=NAME=VALUE``, an abbreviated flag) and judgekit's provider keys are
replaced by ``[REDACTED:NAME]`` in usage errors, error lines, warnings, log records and
tracebacks, whatever else is wrong on the line.

Example:
    >>> pairs = secrets_in_argv(["run", "s.yaml", "--agent-env", "OPENAI_API_KEY=sk-1",
    ...                          "--test-env=BAD NAME=pw-2", "--agent-env", "TOKEN"])
    >>> pairs
    [('OPENAI_API_KEY', 'sk-1'), ('ARGUMENT', 'pw-2')]
"""

from __future__ import annotations

import logging
import re
import sys
import threading
import traceback
import warnings
from collections.abc import Sequence
from typing import Any

from judgekit.engine.redact import Redactor, provider_keys

ENV_FLAGS: tuple[str, ...] = ("--agent-env", "--test-env")
"""Flags whose values are variables, possibly secret."""

UNNAMED = "ARGUMENT"
"""The name shown for a value whose variable name is malformed."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_active = Redactor()
_installed = False


def _env_flag(option: str) -> bool:
    """``option`` is an env flag or a prefix of one that argparse may take for it."""
    for flag in ENV_FLAGS:
        shortest = flag.index("-", 2) + 1  # "--agent-", "--test-"
        if len(option) >= shortest and flag.startswith(option):
            return True
    return False


def _assignment(text: str) -> list[tuple[str, str]]:
    name, sep, value = text.partition("=")
    if sep:
        return [(name if _NAME.fullmatch(name) else UNNAMED, value)] if value else []
    return [] if _NAME.fullmatch(text) else [(UNNAMED, text)]  # a value given as a name


def secrets_in_argv(argv: Sequence[str]) -> list[tuple[str, str]]:
    """``(name, value)`` of every value given to an env flag in ``argv``."""
    found: list[tuple[str, str]] = []
    take_next = False
    for token in argv:
        if take_next:
            found += _assignment(token)
            take_next = False
        elif token == "--":
            break
        elif token.startswith("--"):
            option, sep, rest = token.partition("=")
            if _env_flag(option):
                if sep:
                    found += _assignment(rest)
                else:
                    take_next = True
    return found


def clean(text: str) -> str:
    """``text`` with the secrets of the current command replaced."""
    return _active.plain(text) if _active else text


def guard(argv: Sequence[str]) -> None:
    """Hide the secrets of ``argv`` and the provider keys in everything this process says."""
    global _active
    pairs = secrets_in_argv(argv) + list(provider_keys().items())
    pairs += [(name, repr(value)[1:-1]) for name, value in pairs
              if repr(value)[1:-1] != value]  # as argparse quotes a bad value
    _active = Redactor(pairs)
    if _active:
        _install()


def _install() -> None:
    """Route tracebacks, warnings and log records through :func:`clean` (once)."""
    global _installed
    if _installed:
        return
    _installed = True

    def excepthook(kind: type[BaseException], value: BaseException, tb: Any) -> None:
        sys.stderr.write(clean("".join(traceback.format_exception(kind, value, tb))))

    def thread_hook(hook_args: threading.ExceptHookArgs) -> None:
        name = hook_args.thread.name if hook_args.thread else "?"
        text = "".join(traceback.format_exception(
            hook_args.exc_type, hook_args.exc_value, hook_args.exc_traceback))
        sys.stderr.write(clean(f"Exception in thread {name}:\n{text}"))

    def showwarning(message: Any, category: type[Warning], filename: str, lineno: int,
                    file: Any = None, line: str | None = None) -> None:
        out = file or sys.stderr
        out.write(clean(warnings.formatwarning(message, category, filename, lineno, line)))

    factory = logging.getLogRecordFactory()

    def record(*args: Any, **kwargs: Any) -> logging.LogRecord:
        rec = factory(*args, **kwargs)
        if _active:
            rec.msg, rec.args = clean(rec.getMessage()), None
        return rec

    sys.excepthook = excepthook
    threading.excepthook = thread_hook
    warnings.showwarning = showwarning
    logging.setLogRecordFactory(record)
