"""Where judgekit's data files (prompts, rubrics, suites, schemas) live."""

from __future__ import annotations

import os
from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent


def data_dir(name: str) -> Path:
    """Return the directory of a data family: ``prompts``, ``rubrics``, ``suites``, ``schemas``.

    ``JUDGEKIT_DATA`` overrides the root that holds them.

    Example:
        >>> data_dir("prompts").name
        'prompts'
    """
    root = Path(os.environ.get("JUDGEKIT_DATA", _ROOT))
    return root / name
