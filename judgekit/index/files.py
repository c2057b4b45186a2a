"""Which files of a source tree get indexed.

In a git work tree the candidates are what ``git ls-files`` reports (tracked files plus
untracked ones that ``.gitignore`` does not exclude); elsewhere a walk that honours the
``.gitignore`` files it meets. Either way binaries, vendored trees, generated files and
big files are dropped.

Example:
    >>> is_vendored("node_modules/left-pad/index.js")
    True
"""

from __future__ import annotations

import fnmatch
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

from judgekit.paths import Escapes

#: Directory names whose contents are third-party or tool state, never project code.
VENDORED_DIRS = frozenset(
    {
        "vendor", "vendored", "third_party", "third-party", "node_modules", "bower_components",
        ".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", "__pycache__", "site-packages",
        ".mypy_cache", ".pytest_cache", ".ruff_cache", "dist", "build", ".eggs", "target",
    }
)
#: File names that tools write (lock files and the like).
GENERATED_NAMES = frozenset(
    {
        "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "poetry.lock", "Pipfile.lock",
        "Cargo.lock", "uv.lock", "go.sum", "composer.lock", "Gemfile.lock", "pdm.lock",
    }
)
GENERATED_PATTERNS = ("*.min.js", "*.min.css", "*.map", "*_pb2.py", "*_pb2_grpc.py", "*.pb.go", "*.lock")
#: Extensions of files that are never source text.
BINARY_SUFFIXES = frozenset(
    {
        ".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".webp", ".pdf", ".zip", ".gz", ".tgz",
        ".bz2", ".xz", ".7z", ".tar", ".whl", ".egg", ".so", ".dylib", ".dll", ".exe", ".o", ".a",
        ".pyc", ".pyo", ".class", ".jar", ".bin", ".npy", ".npz", ".pt", ".pth", ".safetensors",
        ".onnx", ".woff", ".woff2", ".ttf", ".otf", ".eot", ".mp3", ".mp4", ".wav", ".mov",
        ".sqlite", ".db", ".parquet", ".pkl", ".ipynb", ".svg",
    }
)
GENERATED_MARKERS = (b"@generated", b"DO NOT EDIT", b"do not edit")
MAX_BYTES = 512 * 1024
_HEAD = 4096


def is_vendored(rel: str) -> bool:
    """True when a relative path runs through a vendored or tool-state directory."""
    return any(part in VENDORED_DIRS or part.endswith(".egg-info") for part in rel.split("/")[:-1])


def is_generated_name(rel: str) -> bool:
    """True when the file name alone says a tool wrote it."""
    name = rel.rsplit("/", 1)[-1]
    return name in GENERATED_NAMES or any(fnmatch.fnmatch(name, p) for p in GENERATED_PATTERNS)


def read_source(path: Path) -> str | None:
    """Return the text of a source file, or ``None`` when it should not be indexed.

    ``None`` for binaries (a NUL byte or undecodable UTF-8), big files, and files whose head
    carries a generated-code marker.
    """
    try:
        if path.stat().st_size > MAX_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    head = data[:_HEAD]
    if b"\0" in head or any(marker in head for marker in GENERATED_MARKERS):
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def candidate_files(root: Path, escapes: Escapes | None = None) -> list[str]:
    """Relative paths (``/`` separators, sorted) of the files worth reading under ``root``;
    a link that leads out of ``root`` is left out and counted in ``escapes``."""
    listed = _git_files(root)
    paths = listed if listed is not None else list(_walk(root))
    escapes = escapes if escapes is not None else Escapes()
    keep = []
    for rel in paths:
        if is_vendored(rel) or is_generated_name(rel):
            continue
        if Path(rel).suffix.lower() in BINARY_SUFFIXES:
            continue
        found = escapes.check(root, rel)
        if found is not None and found.is_file():
            keep.append(rel)
    return sorted(set(keep))


def _git_files(root: Path) -> list[str] | None:
    """``git ls-files`` of a work tree; ``None`` outside one or when git ignores ``root`` itself."""
    try:
        top = Path(_git(root, "rev-parse", "--show-toplevel").decode().strip()).resolve()
        rel = root.resolve().relative_to(top).as_posix()
        if rel != "." and subprocess.run(
            ["git", "-C", str(top), "check-ignore", "-q", "--", rel + "/"], check=False, capture_output=True
        ).returncode == 0:
            return None
        out = _git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    except (OSError, ValueError, subprocess.CalledProcessError):
        return None
    return [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]


def _git(root: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=True).stdout


def _walk(root: Path) -> Iterator[str]:
    rules: list[tuple[str, list[str]]] = []  # (directory prefix, patterns)
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
        rel_dir = "" if rel_dir == "." else rel_dir
        if ".gitignore" in filenames:
            rules.append((rel_dir, _read_patterns(Path(dirpath) / ".gitignore")))
        dirnames[:] = sorted(
            d for d in dirnames
            if d not in VENDORED_DIRS and not _ignored(_join(rel_dir, d), True, rules)
        )
        for name in sorted(filenames):
            rel = _join(rel_dir, name)
            if not _ignored(rel, False, rules):
                yield rel


def _join(a: str, b: str) -> str:
    return f"{a}/{b}" if a else b


def _read_patterns(path: Path) -> list[str]:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    return [ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]


def _ignored(rel: str, is_dir: bool, rules: list[tuple[str, list[str]]]) -> bool:
    """Apply gitignore rules (a common subset: globs, anchors, ``dir/``, ``!negation``)."""
    ignored = False
    for base, patterns in rules:
        if base and not rel.startswith(base + "/"):
            continue
        sub = rel[len(base) + 1 :] if base else rel
        for pat in patterns:
            negate = pat.startswith("!")
            pat = pat[1:] if negate else pat
            if pat.endswith("/"):
                if not is_dir:
                    continue
                pat = pat.rstrip("/")
            if _match(sub, pat):
                ignored = not negate
    return ignored


def _match(sub: str, pat: str) -> bool:
    if pat.startswith("/") or "/" in pat.rstrip("/"):
        return fnmatch.fnmatchcase(sub, pat.lstrip("/"))
    return any(fnmatch.fnmatchcase(part, pat) for part in sub.split("/")[-1:])
