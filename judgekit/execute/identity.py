"""Who a sandboxed command runs as when root runs judgekit, and how it gets to its paths.

A user namespace does not make root's commands unprivileged: its users are root outside, so
every file only root may read would be readable. So root's commands drop to a real
unprivileged user (:data:`SANDBOX_USER`) with util-linux's ``setpriv`` (:class:`Identity`),
the paths they may write are handed to that user (:func:`hand_over`), and the way to what
the sandbox shows them is opened (:class:`Reach`).

Example:
    >>> Identity(65534, 65534, "/usr/bin/setpriv").drop()[:3]
    ['/usr/bin/setpriv', '--reuid=65534', '--regid=65534']
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

SANDBOX_USER = (65534, 65534)
"""``(uid, gid)`` commands run as when root runs judgekit: ``nobody`` and ``nogroup``."""


def inside(path: Path, other: Path) -> bool:
    """``path`` is ``other`` or lies under it."""
    return path == other or other in path.parents


@dataclass(frozen=True)
class Identity:
    """The unprivileged user and group a command of root's drops to, and the tool that does."""

    uid: int
    gid: int
    setpriv: str

    def drop(self) -> list[str]:
        """The command prefix that becomes this user: no supplementary groups, no
        capabilities (inheritable and bounding sets emptied)."""
        return [self.setpriv, f"--reuid={self.uid}", f"--regid={self.gid}", "--clear-groups",
                "--inh-caps=-all", "--bounding-set=-all", "--"]


def hand_over(root: Path, uid: int, gid: int) -> None:
    """Make ``root`` and everything under it owned by ``uid``:``gid``.

    Symbolic links are neither followed nor changed, and a file with more than one link is
    left alone (a hard link to a file elsewhere must not hand that file over).
    """
    def one(path: str, *, directory: bool) -> None:
        try:
            st = os.lstat(path)
        except OSError:
            return
        if (st.st_uid, st.st_gid) == (uid, gid) or stat.S_ISLNK(st.st_mode):
            return
        if not directory and st.st_nlink > 1:
            return
        try:
            os.chown(path, uid, gid, follow_symlinks=False)
        except OSError:
            pass

    if not root.is_dir() or root.is_symlink():
        return
    one(str(root), directory=True)
    for top, dirs, files in os.walk(root):
        for name in dirs:
            one(os.path.join(top, name), directory=True)
        for name in files:
            one(os.path.join(top, name), directory=False)


class Reach:
    """Lets the user commands drop to reach what is mounted for them (run by root only).

    bwrap creates the missing directories above a mount point with mode 0700, and a
    directory of the host's that only its owner may pass through (``mkdtemp``'s) stays
    closed to that user; so, above each path shown or writable, a directory in an empty
    mount is made with mode 0755 first, and an empty mount replaces a host directory the
    user may not pass through (nothing else in it was reachable anyway).
    """

    def __init__(self, user: Identity | None, fresh: list[Path]) -> None:
        self.user = user
        self.fresh = list(fresh)
        """Empty mounts made so far, and the directories made in them."""
        self.bound: list[Path] = []
        """Mount points of directories of the host's."""

    def bind(self, dest: Path) -> None:
        """A directory of the host's is now mounted at ``dest``."""
        self.bound.append(Path(dest))

    def emptied(self, path: Path) -> None:
        """``path`` is now an empty mount: what was made under it is gone."""
        self.fresh = [p for p in self.fresh if not inside(p, path)] + [path]
        self.bound = [p for p in self.bound if not inside(p, path)]

    def reach(self, dest: Path) -> list[str]:
        """bwrap arguments that open the way to ``dest``."""
        if self.user is None:
            return []
        out: list[str] = []
        in_empty = False
        for parent in reversed(Path(dest).parents):
            if parent == Path("/"):
                continue
            if parent in self.fresh:
                in_empty = True
            elif parent in self.bound:
                in_empty = False  # the host's directories again
            elif in_empty:  # a directory bwrap would make 0700
                out += ["--perms", "0755", "--dir", str(parent)]
                self.fresh.append(parent)
            elif not passable(parent, self.user):
                out += ["--tmpfs", str(parent)]
                self.emptied(parent)
                in_empty = True
        return out


def passable(path: Path, user: Identity) -> bool:
    """``user`` (no supplementary groups) may pass through the directory ``path``."""
    try:
        st = path.stat()
    except OSError:
        return True  # bwrap makes it (under a mount of ours) or fails on the mount itself
    return bool(st.st_mode & stat.S_IXOTH) or st.st_uid == user.uid
