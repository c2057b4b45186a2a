"""Where judgekit's data files (prompts, rubrics, suites, schemas) live.

They ship inside the package (``judgekit/data/``) and are read through
:mod:`importlib.resources`, so an installed wheel finds them wherever it is installed.
``JUDGEKIT_DATA`` points at a folder of your own that holds some of the families
(``prompts/``, ``rubrics/``, ...); a family missing there comes from the package.

Example:
    >>> data_dir("prompts").name
    'prompts'
    >>> "${repository}" in read_template("pairwise_item.md").template
    True
"""

from __future__ import annotations

import os
from functools import lru_cache
from importlib import resources
from pathlib import Path
from string import Template

from judgekit.errors import ConfigError

FAMILIES = ("prompts", "rubrics", "suites", "schemas")


@lru_cache(maxsize=None)
def package_data_dir(name: str) -> Path:
    """The directory of a data family inside the installed package (found once)."""
    return Path(str(resources.files("judgekit") / "data" / name))


def data_dir(name: str) -> Path:
    """Return the directory of a data family: ``prompts``, ``rubrics``, ``suites``, ``schemas``.

    ``JUDGEKIT_DATA`` overrides the root that holds them, family by family.
    """
    override = os.environ.get("JUDGEKIT_DATA")
    if override:
        candidate = Path(override) / name
        if candidate.is_dir():
            return candidate
    return package_data_dir(name)


def read_template(name: str) -> Template:
    """A prompt template from the ``prompts`` family, as a :class:`string.Template`."""
    path = data_dir("prompts") / name
    try:
        return Template(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read prompt template {path}: {exc.strerror}") from None
