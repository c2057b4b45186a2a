"""The registry of run adapters: judgekit's own, then those other installed packages add.

Adapters are declared in the ``judgekit.adapters`` entry-point group. judgekit declares its
own there too, naming exactly the classes of :data:`BUILTIN` (a test keeps the package
metadata and this table equal); they are taken from the table, so a source tree that was
never installed, or an install whose metadata is older, has the same built-ins. They are
tried first, in this order; the adapters of other packages follow, in the order
:func:`judgekit.plugins.discover` lists them.

An entry point names an adapter class, an adapter instance, or a function of no arguments
that returns one. One that cannot be loaded or made, that is not an adapter, or whose format
name is taken already, is left out and named in :attr:`AdapterList.problems`; the loader
turns those into warnings.

Example:
    >>> list(BUILTIN)
    ['judgekit', 'harbor', 'bobbin', 'hal', 'swebench', 'inspect']
    >>> [a.name for a in make_adapters()][:6] == list(BUILTIN)
    True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from judgekit.plugins import GROUPS, Plugin, PluginProblem, load_group
from judgekit.ingest.adapters.bobbin import BobbinAdapter
from judgekit.ingest.adapters.hal import HalAdapter
from judgekit.ingest.adapters.harbor import HarborAdapter
from judgekit.ingest.adapters.inspect_log import InspectAdapter
from judgekit.ingest.adapters.inspect_options import InspectOptions
from judgekit.ingest.adapters.native import NativeAdapter
from judgekit.ingest.adapters.protocol import Adapter
from judgekit.ingest.adapters.swebench import SweBenchAdapter

GROUP = GROUPS["adapters"]

#: judgekit's own adapters by format name, in the order they are tried.
BUILTIN: dict[str, Callable[..., Adapter]] = {
    "judgekit": NativeAdapter,
    "harbor": HarborAdapter,
    "bobbin": BobbinAdapter,
    "hal": HalAdapter,
    "swebench": SweBenchAdapter,
    "inspect": InspectAdapter,
}


class AdapterList(list[Adapter]):
    """Adapters in the order they are tried, with the plug-ins left out and why."""

    def __init__(self, adapters: Iterable[Adapter] = (), problems: Iterable[str] = ()) -> None:
        super().__init__(adapters)
        #: one line per plug-in that could not be used
        self.problems: list[str] = list(problems)


Factory = Callable[[], Any]


@lru_cache(maxsize=1)
def _plugin_factories() -> tuple[tuple[tuple[Plugin, Factory], ...], tuple[str, ...]]:
    """What other packages' entry points name, as makers of adapters (read once)."""
    loaded, problems = load_group(GROUP, own=False)
    return (tuple((plugin, _factory(obj)) for plugin, obj in loaded),
            tuple(str(p) for p in problems))


def _factory(obj: Any) -> Factory:
    """A class or function is called for each new list; an instance is used as it is."""
    if isinstance(obj, type) or (callable(obj) and not isinstance(obj, Adapter)):
        return obj
    return lambda: obj


def _problem(plugin: Plugin, reason: str) -> str:
    return str(PluginProblem(GROUP, plugin.name, plugin.distribution, reason))


def plugin_adapters(taken: Sequence[str]) -> AdapterList:
    """A fresh adapter of each plug-in, those whose format name is in ``taken`` (or an
    earlier plug-in's) left out, with what was left out."""
    factories, problems = _plugin_factories()
    out = AdapterList(problems=problems)
    names = set(taken)
    for plugin, make in factories:
        try:
            adapter = make()
        except Exception as exc:  # a third party's error must not stop the others
            out.problems.append(_problem(plugin, f"{type(exc).__name__}: {exc}"))
            continue
        if not isinstance(adapter, Adapter):
            out.problems.append(_problem(plugin, "not an adapter (it needs name, detect, load "
                                                 "and is_auxiliary)"))
        elif adapter.name in names:
            out.problems.append(_problem(plugin, f"format name {adapter.name!r} is taken "
                                                 "already"))
        else:
            names.add(adapter.name)
            out.append(adapter)
    return out


def make_adapters(*, swebench_logs: Path | str | None = None,
                  inspect: InspectOptions | None = None) -> AdapterList:
    """The adapters in the order they are tried: judgekit's own, then the plug-ins'.

    ``swebench_logs`` is the SWE-bench harness's ``logs/run_evaluation`` directory (or a
    directory holding it); without it, ``logs/run_evaluation`` beside each predictions file
    is used when it exists. ``inspect`` says where Inspect AI logs keep the agent's patch
    and the fix, and what names their arms.
    """
    options: dict[str, dict[str, Any]] = {
        "swebench": {"logs": Path(swebench_logs) if swebench_logs else None},
        "inspect": {"options": inspect},
    }
    builtins = [make(**options.get(name, {})) for name, make in BUILTIN.items()]
    plugins = plugin_adapters([a.name for a in builtins])
    return AdapterList([*builtins, *plugins], plugins.problems)


@lru_cache(maxsize=1)
def default_adapters() -> AdapterList:
    """The adapters used when none are given (made once, then shared)."""
    return make_adapters()


def load_problems(adapters: Sequence[Adapter]) -> list[str]:
    """The plug-ins left out of ``adapters``, one line each (none for a plain list)."""
    return list(adapters.problems) if isinstance(adapters, AdapterList) else []


__all__ = ["BUILTIN", "GROUP", "AdapterList", "default_adapters", "load_problems",
           "make_adapters", "plugin_adapters"]
