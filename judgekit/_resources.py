"""Where judgekit's data files (prompts, rubrics, suites, schemas, the example runs) live.

They ship inside the package (``judgekit/data/``) and are read through
:mod:`importlib.resources`, so an installed wheel finds them wherever it is installed
(:func:`example_path`: the bundled example runs, from any directory).
``JUDGEKIT_DATA`` points at a folder of your own that holds some of the families
(``prompts/``, ``rubrics/``, ...); a family missing there comes from the package.

Example:
    >>> data_dir("prompts").name
    'prompts'
    >>> "${repository}" in read_template("pairwise_item.md").template
    True
    >>> example_path().name
    'bobbin'
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


#: the bundled example runs (``judgekit/data/examples/``), by name.
EXAMPLES = ("bobbin",)


def example_path(name: str = "bobbin") -> Path:
    """The directory of a bundled example: ``bobbin`` holds 46 real results of the bobbin
    harness (ten flask and ruff tasks, two arms), as ``examples/bobbin`` in the source
    tree. It works from any directory and from an installed wheel::

        judgekit.score(judgekit.load_runs([judgekit.example_path()]))
    """
    if name not in EXAMPLES:
        raise ConfigError(f"no bundled example {name!r} (there is {', '.join(EXAMPLES)})")
    return package_data_dir("examples") / name


def template_at(path: str | Path) -> Template:
    """The prompt template in the file ``path``: the one loader of templates."""
    try:
        return Template(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read prompt template {path}: {exc.strerror}") from None


def read_template(name: str) -> Template:
    """A prompt template from the ``prompts`` family, as a :class:`string.Template` (read
    once per data folder)."""
    return _template(str(data_dir("prompts")), name)


@lru_cache(maxsize=32)
def _template(root: str, name: str) -> Template:
    return template_at(Path(root) / name)