"""The exception hierarchy of judgekit.

Every error judgekit raises on purpose derives from :class:`JudgekitError`. The CLI turns
any of them into one line on stderr and exit code 2, never a traceback.

A message that refers to one of the caller's options writes it as ``{option:NAME}``, where
NAME is the option's name as the command line knows it (its argparse destination, e.g.
``max_cost``, usually the keyword of the typed option too); ``str()`` shows NAME, and
the command line shows its own flag instead (:meth:`JudgekitError.render`). Text that is
kept (a warning in ``summary.json``) is spelled when it is made, by :func:`render_options`,
with the speller the caller set (:func:`spelling`; the command line sets its flags). Layers
below the command line never spell a flag.

Example:
    >>> from judgekit.errors import InputError
    >>> str(InputError("runs/a.json", "results[0].arm", "field required"))
    'runs/a.json: results[0].arm: field required'
    >>> err = ConfigError("{option:widgets} must be at least 1")
    >>> str(err), err.render(lambda name: "--" + name.replace("_", "-"))
    ('widgets must be at least 1', '--widgets must be at least 1')
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

#: ``{option:NAME}`` in a message: the caller's option NAME, spelled by whoever shows it.
OPTION_REF = re.compile(r"\{option:([A-Za-z_][A-Za-z0-9_]*)\}")


Speller = Callable[[str], "str | None"]

#: How options are spelled while :func:`spelling` holds (``None``: by their keyword).
_speller: Speller | None = None


@contextmanager
def spelling(spell: Speller | None) -> Iterator[None]:
    """Spell options with ``spell`` in the text made meanwhile (the command line's flags)."""
    global _speller
    before, _speller = _speller, spell
    try:
        yield
    finally:
        _speller = before


def render_options(text: str, spell: Speller | None = None) -> str:
    """``text`` with each ``{option:NAME}`` spelled by ``spell(NAME)``, else by the speller
    :func:`spelling` set, else as NAME itself."""
    chosen = spell or _speller

    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        return (chosen(name) if chosen else None) or name

    return OPTION_REF.sub(one, text)


class JudgekitError(Exception):
    """Base class of every judgekit error."""

    def __str__(self) -> str:
        return render_options(super().__str__())

    def render(self, spell: Speller) -> str:
        """The message with each option reference spelled by ``spell`` (the CLI's flags)."""
        return render_options(super().__str__(), spell)


class InputError(JudgekitError):
    """A file or directory given to judgekit cannot be used.

    Attributes:
        path: the file (or directory) at fault.
        field: the field at fault, as a dotted path, or ``None`` when the whole file is.
        reason: what is wrong, in a few words.
    """

    def __init__(self, path: str | Path, field: str | None, reason: str) -> None:
        self.path = str(path)
        self.field = field
        self.reason = reason
        where = f"{self.path}: {field}" if field else self.path
        super().__init__(f"{where}: {reason}")


class ConfigError(JudgekitError):
    """Options or settings that contradict each other or name something unknown."""


class ProviderError(JudgekitError):
    """A model provider failed in a way retries cannot fix (bad key, bad request)."""


class RunnerError(JudgekitError):
    """A task could not be prepared or run (checkout, setup, agent start)."""
