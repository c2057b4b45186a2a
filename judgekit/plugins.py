"""Plug-in points: what other installed packages add to judgekit through entry points.

Four groups are read: ``judgekit.adapters`` (readers of other harnesses' run files),
``judgekit.providers`` (model providers), ``judgekit.rubrics`` (audit rubrics) and
``judgekit.transcripts`` (readers of agents' session files). judgekit's
own adapters, providers and rubrics are declared in the same groups by its own package
metadata; :func:`discover` lists every entry of a group, judgekit's first, then the others by
distribution and name, so the order does not depend on how packages happen to be installed.

A plug-in that cannot be loaded (its module fails to import, its object is missing) is not
fatal to the rest: :func:`load_group` returns it among the problems, which the caller reports.

Example:
    >>> sorted(GROUPS)
    ['adapters', 'providers', 'rubrics', 'transcripts']
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import metadata
from typing import Any

#: Short name of each plug-in point → its entry-point group.
GROUPS: dict[str, str] = {
    "adapters": "judgekit.adapters",
    "providers": "judgekit.providers",
    "rubrics": "judgekit.rubrics",
    "transcripts": "judgekit.transcripts",
}

#: The distribution whose entry points are judgekit's own.
OWN_DISTRIBUTION = "judgekit"


@dataclass(frozen=True)
class Plugin:
    """One entry point of a group: its name, what it points at, and who declared it."""

    name: str
    value: str
    distribution: str | None
    entry_point: metadata.EntryPoint

    @property
    def builtin(self) -> bool:
        return (self.distribution or "").lower() == OWN_DISTRIBUTION

    def load(self) -> Any:
        return self.entry_point.load()


@dataclass(frozen=True)
class PluginProblem:
    """A plug-in that could not be loaded, and why."""

    group: str
    name: str
    distribution: str | None
    reason: str

    def __str__(self) -> str:
        who = f" (from {self.distribution})" if self.distribution else ""
        return f"plug-in {self.group}:{self.name}{who} not loaded: {self.reason}"


def _distribution(ep: metadata.EntryPoint) -> str | None:
    dist = getattr(ep, "dist", None)
    return None if dist is None else dist.metadata["Name"]


def discover(group: str) -> list[Plugin]:
    """Every entry point of ``group``: judgekit's own first, then by distribution and name.
    An entry declared twice under one name (two installs of one package) is listed once."""
    seen: set[tuple[str | None, str]] = set()
    found: list[Plugin] = []
    for ep in metadata.entry_points(group=group):
        dist = _distribution(ep)
        if (dist, ep.name) in seen:
            continue
        seen.add((dist, ep.name))
        found.append(Plugin(ep.name, ep.value, dist, ep))
    found.sort(key=lambda p: (not p.builtin, (p.distribution or "").lower(), p.name))
    return found


def load_group(group: str, *, own: bool = True
               ) -> tuple[list[tuple[Plugin, Any]], list[PluginProblem]]:
    """Load every plug-in of ``group``: those that loaded, with their objects, and those
    that did not, with the reason. ``own=False`` leaves judgekit's own entries out (for a
    registry that holds its built-ins itself)."""
    loaded: list[tuple[Plugin, Any]] = []
    problems: list[PluginProblem] = []
    for plugin in discover(group):
        if plugin.builtin and not own:
            continue
        try:
            loaded.append((plugin, plugin.load()))
        except Exception as exc:  # a third party's import error must not stop judgekit
            problems.append(PluginProblem(group, plugin.name, plugin.distribution,
                                          f"{type(exc).__name__}: {exc}"))
    return loaded, problems


__all__ = ["GROUPS", "Plugin", "PluginProblem", "discover", "load_group"]
