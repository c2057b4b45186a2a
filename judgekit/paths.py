"""Paths that come from data stay under the root the user gave.

A run file, a suite, a harness's log or an archive names files (``task.repo``, a diff's
paths, an instance id); joined onto a root the user chose, such a name must not lead out of
it: not by ``..``, not by being absolute, not through a symbolic link. :func:`contained`
checks after resolution and answers ``None`` for a path that escapes; callers count and
report what they refused (:class:`Escapes`).

Example:
    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> (root / "src").mkdir()
    >>> contained(root, "src/a.py") == (root / "src" / "a.py").resolve()
    True
    >>> contained(root, "x/..") == root.resolve()
    True
    >>> contained(root, "../etc/passwd"), contained(root, "/etc")
    (None, None)
    >>> e = Escapes()
    >>> e.check(root, "../../secret", where="task t1") is None, e.count, e.examples
    (True, 1, ['task t1: ../../secret'])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

#: examples of refused paths kept for a message (the count is always whole).
MAX_EXAMPLES = 5


def contained(root: str | Path, *parts: str | Path) -> Path | None:
    """``root`` joined with ``parts`` and resolved (symbolic links followed), when it is
    ``root`` or lies under it; ``None`` when it leads out (``..``, an absolute part, a link
    pointing out) or cannot be resolved."""
    try:
        base = Path(root).resolve()
        target = base.joinpath(*parts).resolve()
    except (OSError, RuntimeError, ValueError):  # a loop of links, a NUL byte
        return None
    return target if target.is_relative_to(base) else None


@dataclass
class Escapes:
    """Paths refused because they lead out of their root: how many, and a few of them."""

    count: int = 0
    examples: list[str] = field(default_factory=list)

    def check(self, root: str | Path, *parts: str | Path, where: str = "") -> Path | None:
        """:func:`contained`, counting a refusal (``where`` says whose path it was)."""
        found = contained(root, *parts)
        if found is None:
            self.refuse("/".join(str(p) for p in parts), where)
        return found

    def refuse(self, path: str, where: str = "") -> None:
        self.count += 1
        if len(self.examples) < MAX_EXAMPLES:
            self.examples.append(f"{where}: {path}" if where else path)

    def note(self, what: str) -> str | None:
        """One line saying what was refused (``what``: whose paths, under which root),
        or ``None`` when nothing was."""
        if not self.count:
            return None
        more = ", ..." if self.count > len(self.examples) else ""
        return (f"{self.count} {what} refused: they lead outside the root "
                f"({'; '.join(self.examples)}{more})")
