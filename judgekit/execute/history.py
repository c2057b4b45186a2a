"""What history an attempt's workspace holds, checked rather than assumed: whether the fix
commit can be reached from the agent's repository by any git command (every ref, the
reflog, an object looked up by its id). ``judgekit run`` records the answer in each
result's ``metadata["workspace_history"]``.

Example:
    >>> BASE_ONLY, FIX_REACHABLE
    ('base only', 'fix reachable')
"""

from __future__ import annotations

import subprocess
from pathlib import Path

BASE_ONLY = "base only"
FIX_REACHABLE = "fix reachable"
HISTORY_KEY = "workspace_history"
"""The key of a result's ``metadata`` saying what history its workspace held."""

#: git commands that would show the fix if the repository held it
PROBES: tuple[tuple[str, ...], ...] = (
    ("cat-file", "-e", "{fix}^{{commit}}"),
    ("rev-list", "--all", "--reflog"),
    ("log", "--all", "--format=%H"),
    ("reflog", "--all", "--format=%H"),
    ("for-each-ref", "--format=%(objectname)"),
)


def fix_reachable(repo: Path, fix: str) -> bool:
    """Whether any of :data:`PROBES` finds the commit ``fix`` in the repository ``repo``."""
    for probe in PROBES:
        args = [a.format(fix=fix) for a in probe]
        done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True,
                              text=True, timeout=60, check=False)
        if probe[0] == "cat-file":
            if done.returncode == 0:
                return True
        elif fix in done.stdout:
            return True
    return False


def workspace_history(repo: Path, fix: str) -> str:
    """:data:`BASE_ONLY` or :data:`FIX_REACHABLE`, as the repository shows."""
    return FIX_REACHABLE if fix_reachable(repo, fix) else BASE_ONLY


__all__ = ["BASE_ONLY", "FIX_REACHABLE", "HISTORY_KEY", "PROBES", "fix_reachable",
           "workspace_history"]
