"""The environment setup, agent and test commands start from: clean, with nothing of the host.

A command gets ``PATH``, ``LANG``, ``LC_*``, ``TERM`` and ``TZ`` from judgekit's
environment, the toolchain selectors that make ``PATH`` work with the host's home hidden
(``RUSTUP_HOME``, ``RUSTUP_TOOLCHAIN``, ``PYENV_VERSION``, and ``PYTHONUSERBASE`` for setup
and tests when ``~/.local`` holds a user site), then the task's own variables (its suite
file), then the variables given for it (:class:`CommandEnv`). The sandbox sets the private
``HOME`` and ``TMPDIR``. Nothing else of judgekit's environment is passed: no provider keys,
cloud credentials or tokens unless they are named.

Example:
    >>> env = clean_environment({"PATH": "/usr/bin", "LC_ALL": "C", "AWS_SECRET": "x",
    ...                          "HOME": "/nonexistent"})
    >>> sorted(env)
    ['LC_ALL', 'PATH']
    >>> CommandEnv(agent={"OPENAI_API_KEY": "k", "MODE": "fast"}).secrets()
    [('OPENAI_API_KEY', 'k')]
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from judgekit.engine.redact import looks_secret

BASE_VARS: tuple[str, ...] = ("PATH", "LANG", "TERM", "TZ")
"""Passed from judgekit's environment as they are (with every ``LC_*``)."""

SELECTOR_VARS: tuple[str, ...] = ("RUSTUP_HOME", "RUSTUP_TOOLCHAIN", "PYENV_VERSION")
"""Toolchain selectors passed as they are: which of the host's toolchains ``PATH`` runs."""


@dataclass(frozen=True)
class CommandEnv:
    """Variables given to commands on top of the clean environment.

    ``agent`` goes to the agent command only, ``test`` to setup and test commands.
    """

    agent: Mapping[str, str] = field(default_factory=dict)
    test: Mapping[str, str] = field(default_factory=dict)

    def secrets(self) -> list[tuple[str, str]]:
        """``(name, value)`` of every given variable whose name looks secret."""
        pairs = [*self.agent.items(), *self.test.items()]
        return [(name, value) for name, value in pairs if looks_secret(name) and value]


def clean_environment(host: Mapping[str, str] | None = None, *,
                      user_site: Path | None = None) -> dict[str, str]:
    """The start of every command's environment, taken from ``host`` (this process's).

    ``user_site`` becomes ``PYTHONUSERBASE`` (pip's user packages, for setup and tests).
    """
    host = os.environ if host is None else host
    env = {k: v for k, v in host.items() if k in BASE_VARS or k.startswith("LC_")}
    env.setdefault("PATH", os.defpath)
    env.update({k: host[k] for k in SELECTOR_VARS if host.get(k)})
    home = host.get("HOME")
    if "RUSTUP_HOME" not in env and home and (Path(home) / ".rustup").is_dir():
        env["RUSTUP_HOME"] = str(Path(home) / ".rustup")  # installed toolchains, read-only
    if user_site is not None:
        env["PYTHONUSERBASE"] = str(user_site)
    return env
