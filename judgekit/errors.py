"""The exception hierarchy of judgekit.

Every error judgekit raises on purpose derives from :class:`JudgekitError`. The CLI turns
any of them into one line on stderr and exit code 2, never a traceback.

Example:
    >>> from judgekit.errors import InputError
    >>> str(InputError("runs/a.json", "results[0].arm", "field required"))
    'runs/a.json: results[0].arm: field required'
"""

from __future__ import annotations

from pathlib import Path


class JudgekitError(Exception):
    """Base class of every judgekit error."""


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


class ComparisonError(JudgekitError):
    """Two arms cannot be compared honestly (for example, served by different models)."""


class ProviderError(JudgekitError):
    """A model provider failed in a way retries cannot fix (bad key, bad request)."""


class RunnerError(JudgekitError):
    """A task could not be prepared or run (checkout, setup, agent start)."""
