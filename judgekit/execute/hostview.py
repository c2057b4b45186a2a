"""What of the host's home directories a sandboxed command sees: its toolchains, read-only.

The invoking user's home directory (``$HOME`` and the password database's entry) and
``/root`` are hidden in the sandbox, because they hold credentials (``~/.ssh``, ``~/.aws``,
``~/.netrc``, ``~/.config``, token files). Users also keep their toolchains there, so the
directories of the toolchains on ``PATH`` come back read-only:

- **runtimes**, for every command: version managers and runtime installs (``~/.pyenv``,
  ``~/.rustup`` with ``~/.cargo/bin``, ``~/.nvm``, ``~/.volta``, ``~/.asdf``, ...), a conda
  prefix, and the Python judgekit itself runs on (its base installation);
- **user tools**, for setup and test commands only: virtualenvs on ``PATH`` (with the base
  interpreter named in their ``pyvenv.cfg``), ``~/.local/bin`` and ``~/.local/lib`` (pip's
  user site), and any other ``PATH`` directory under a home. An agent sees these only when
  they are bound for it explicitly, since that is where agent CLIs are installed.

The host's ``/tmp`` is hidden too (the sandbox has a private one), so a virtualenv there
(on ``PATH``, or the one judgekit runs on) is a user tool like one under a home.

A ``PATH`` entry that is a home itself, or lies in a credential directory, is never bound.

Example:
    >>> view = host_view("/h/.pyenv/shims:/h/.local/bin:/usr/bin", homes=(Path("/h"),),
    ...                  interpreter=("/usr", "/usr"), probe=False)
    >>> [str(p) for p in view.runtimes], [str(p) for p in view.user_tools]
    (['/h/.pyenv'], ['/h/.local/bin', '/h/.local/lib'])
"""

from __future__ import annotations

import functools
import os
import pwd
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

RUNTIME_DIRS: tuple[str, ...] = (
    ".pyenv", ".rbenv", ".nodenv", ".goenv", ".nvm", ".volta", ".asdf", ".sdkman", ".rustup",
    ".juliaup", ".ghcup", ".elan", ".bun", ".deno", ".dotnet", ".local/share/uv/python",
    ".local/share/mise", "go",
)
"""Directories under a home that hold runtimes or version managers, bound whole."""

CREDENTIAL_DIRS: tuple[str, ...] = (
    ".ssh", ".aws", ".azure", ".gnupg", ".config", ".docker", ".kube", ".netrc",
    ".git-credentials", ".npmrc", ".pypirc", ".password-store", ".local/share/keyrings",
)
"""Places under a home that are never bound, even when a ``PATH`` entry points into them."""


@dataclass(frozen=True)
class HostView:
    """The homes to hide and the directories under them to show again, read-only."""

    homes: tuple[Path, ...]
    runtimes: tuple[Path, ...]
    """Bound for every command."""
    user_tools: tuple[Path, ...]
    """Bound for setup and test commands only."""
    user_site: Path | None = None
    """``~/.local`` when it holds a user site (``PYTHONUSERBASE`` for setup and tests)."""

    def binds(self, *, agent: bool) -> tuple[Path, ...]:
        """The directories a command sees read-only."""
        return self.runtimes if agent else self.runtimes + self.user_tools


def home_dirs(environ: Mapping[str, str] | None = None) -> tuple[Path, ...]:
    """The invoking user's home directories and ``/root``, as they exist here."""
    env = os.environ if environ is None else environ
    found: list[Path] = []
    candidates = [env.get("HOME"), "/root"]
    try:
        candidates.append(pwd.getpwuid(os.getuid()).pw_dir)
    except KeyError:
        pass
    for text in candidates:
        if not text:
            continue
        path = Path(os.path.abspath(text))
        for one in (path, path.resolve()):
            if one != Path("/") and os.path.isdir(one) and one not in found:
                found.append(one)
    return tuple(found)


def _under(path: Path, homes: Iterable[Path]) -> Path | None:
    for home in homes:
        if path == home or home in path.parents:
            return home
    return None


def _starts(rel: Path, prefix: str) -> bool:
    parts = Path(prefix).parts
    return rel.parts[:len(parts)] == parts


def _venv_base(bin_dir: Path) -> Path | None:
    """The base interpreter's directory of the virtualenv whose ``bin`` is ``bin_dir``."""
    cfg = bin_dir.parent / "pyvenv.cfg"
    try:
        lines = cfg.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    for line in lines:
        key, sep, value = line.partition("=")
        if sep and key.strip() == "home" and value.strip():
            return Path(value.strip())
    return None


class _Collector:
    def __init__(self, homes: tuple[Path, ...], probe: bool) -> None:
        self.homes, self.probe = homes, probe
        self.runtimes: list[Path] = []
        self.user_tools: list[Path] = []
        self.user_site: Path | None = None

    def _add(self, into: list[Path], path: Path) -> None:
        if path not in into and (not self.probe or os.path.exists(path)):
            into.append(path)

    def runtime(self, path: Path) -> bool:
        """Bind the runtime ``path`` belongs to; False when it is not a runtime's."""
        home = _under(path, self.homes)
        if home is None:
            return True  # visible anyway (the host is bound read-only)
        rel = path.relative_to(home)
        for name in RUNTIME_DIRS:
            if _starts(rel, name):
                self._add(self.runtimes, home / name)
                return True
        if rel.parts[:2] == (".cargo", "bin"):
            self._add(self.runtimes, home / ".cargo" / "bin")
            self._add(self.runtimes, home / ".rustup")
            return True
        for parent in [path, *path.parents]:
            if parent == home:
                break
            if os.path.isdir(parent / "conda-meta"):
                self._add(self.runtimes, parent)
                return True
        return False

    def entry(self, path: Path) -> None:
        """One ``PATH`` entry."""
        home = _under(path, self.homes)
        if home is None or self.runtime(path):
            return
        rel = path.relative_to(home)
        if not rel.parts or any(_starts(rel, c) for c in CREDENTIAL_DIRS):
            return
        if _starts(rel, ".local/bin"):
            self._add(self.user_tools, home / ".local" / "bin")
            if os.path.isdir(home / ".local" / "lib") or not self.probe:
                self._add(self.user_tools, home / ".local" / "lib")
                self.user_site = home / ".local"
            return
        base = _venv_base(path)
        if base is not None:
            self._add(self.user_tools, path.parent)
            self.entry(base)
            return
        self._add(self.user_tools, path)


HIDDEN_TMP = Path("/tmp")
"""The host's ``/tmp``, replaced by a private one in the sandbox."""


def host_view(path_var: str, *, homes: tuple[Path, ...],
              interpreter: tuple[str, str] | None = None, probe: bool = True,
              hidden: tuple[Path, ...] = (HIDDEN_TMP,)) -> HostView:
    """The view of ``homes`` (and of the other ``hidden`` places) that commands get, from
    the ``PATH`` value ``path_var``.

    ``interpreter`` is the Python judgekit runs on, ``(base prefix, prefix)`` (default: this
    process's ``sys.base_prefix`` and ``sys.prefix``): its base installation is a runtime, a
    virtualenv of it a user tool.
    ``probe`` False skips the checks that the directories exist (for examples).
    """
    roots = homes + tuple(Path(os.path.realpath(h)) for h in hidden
                          if Path(os.path.realpath(h)) not in homes)
    found = _Collector(roots, probe)
    base, venv = (sys.base_prefix, sys.prefix) if interpreter is None else interpreter
    base_path = Path(os.path.abspath(base))
    if _under(base_path, roots) is not None and not found.runtime(base_path):
        found._add(found.runtimes, base_path)  # an installation of its own: bound whole
    if os.path.abspath(venv) != str(base_path):
        found.entry(Path(os.path.abspath(venv)) / "bin")
    for text in path_var.split(os.pathsep):
        if text and os.path.isabs(text):
            found.entry(Path(os.path.normpath(text)))
    return HostView(homes=homes, runtimes=tuple(found.runtimes),
                    user_tools=tuple(found.user_tools), user_site=found.user_site)


@functools.lru_cache(maxsize=8)
def _cached_view(path_var: str, home: str) -> HostView:
    return host_view(path_var, homes=home_dirs({"HOME": home} if home else {}))


def current_view() -> HostView:
    """The view for this process's ``PATH`` and home (computed once per pair)."""
    return _cached_view(os.environ.get("PATH", ""), os.environ.get("HOME", ""))
