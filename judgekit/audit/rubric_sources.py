"""Where rubric files come from: judgekit's rubric directory, and other installed packages.

judgekit's own rubrics are the files of its rubric directory (``data/rubrics/`` in the
package, or the one ``JUDGEKIT_DATA`` points at). Each shipped file is also declared in the
``judgekit.rubrics`` entry-point group, naming the constant of this module that finds it
(:data:`BUILTIN`; a test keeps the package metadata, this table and the shipped files
equal). Other packages declare theirs in the same group: an entry point names a rubric file
(a path, or an :mod:`importlib.resources` file), a function of no arguments that returns
one, or a parsed rubric. :func:`plugin_sources` reads them; :mod:`judgekit.audit.rubric`
parses them.

Example:
    >>> list(BUILTIN)
    ['commit-revert', 'scienceagentbench', 'swe-bench']
    >>> SWE_BENCH().name
    'swe-bench.md'
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgekit._resources import data_dir
from judgekit.plugins import GROUPS, Plugin, PluginProblem, load_group

GROUP = GROUPS["rubrics"]


def rubric_dir() -> Path:
    """The directory of judgekit's own rubric files."""
    return data_dir("rubrics")


@dataclass(frozen=True)
class ShippedRubric:
    """One of judgekit's own rubrics: called, it gives its file in the rubric directory."""

    id: str

    def __call__(self) -> Path:
        return rubric_dir() / f"{self.id}.md"


COMMIT_REVERT = ShippedRubric("commit-revert")
SCIENCEAGENTBENCH = ShippedRubric("scienceagentbench")
SWE_BENCH = ShippedRubric("swe-bench")

#: judgekit's own rubrics by id, as its ``judgekit.rubrics`` entry points declare them.
BUILTIN: dict[str, ShippedRubric] = {r.id: r for r in (COMMIT_REVERT, SCIENCEAGENTBENCH,
                                                          SWE_BENCH)}


@dataclass(frozen=True)
class SuppliedRubric:
    """What one plug-in gave: a rubric file's text and where it is, or a parsed rubric."""

    plugin: Plugin
    where: str
    text: str | None = None
    parsed: Any = None

    def problem(self, reason: str) -> str:
        """The warning line for this plug-in, left out for ``reason``."""
        return str(PluginProblem(GROUP, self.plugin.name, self.plugin.distribution, reason))


def _supplied(plugin: Plugin, obj: Any) -> SuppliedRubric:
    """Read what an entry point names; a function is called first."""
    if callable(obj):
        obj = obj()
    if isinstance(obj, (str, os.PathLike)):
        obj = Path(obj)
    if hasattr(obj, "read_text") and hasattr(obj, "is_file"):
        return SuppliedRubric(plugin, str(obj), text=obj.read_text(encoding="utf-8"))
    return SuppliedRubric(plugin, f"{plugin.value}", parsed=obj)


def plugin_sources() -> tuple[list[SuppliedRubric], list[str]]:
    """The rubrics other packages declare, in discovery order, and one line for each
    plug-in that could not be loaded or read."""
    loaded, problems = load_group(GROUP, own=False)
    found: list[SuppliedRubric] = []
    lines = [str(p) for p in problems]
    for plugin, obj in loaded:
        try:
            found.append(_supplied(plugin, obj))
        except Exception as exc:  # a third party's error must not stop the others
            lines.append(str(PluginProblem(GROUP, plugin.name, plugin.distribution,
                                           f"{type(exc).__name__}: {exc}")))
    return found, lines


__all__ = ["BUILTIN", "COMMIT_REVERT", "GROUP", "SCIENCEAGENTBENCH", "SWE_BENCH",
           "ShippedRubric", "SuppliedRubric", "plugin_sources", "rubric_dir"]
