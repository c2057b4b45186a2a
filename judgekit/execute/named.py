"""The host files a command names, and what the sandbox must show for them to work.

A command names its program (its first word after ``VAR=value`` assignments and wrappers
such as ``exec`` or ``env``; a bare name is looked up on ``PATH``) and, when that program
is an interpreter (:data:`INTERPRETERS`: a shell, ``python``, ``node``, ...), its script:
the first of its arguments that is the absolute path of an existing file. Other arguments
are data, not named here (``cat /home/me/notes`` shows nothing). A named file that is a
script brings the interpreter of its ``#!`` line.
Each simple command of a command line counts (``setup; python -m pytest`` names both
programs); what a program itself runs later is its own business.

What a named file needs in the sandbox (:func:`shown_for`): a file inside a virtualenv
needs the virtualenv's directory and the base installation its ``pyvenv.cfg`` names
(``home``, e.g. a pyenv version under the home directory); any other file needs itself
(and, for a symbolic link, the file it points to). Nothing in a credential directory of a
home (:data:`~judgekit.execute.hostview.CREDENTIAL_DIRS`) is ever shown this way. The
sandbox binds these read-only, at their own paths, where it would otherwise hide them or
its user could not reach them (:class:`~judgekit.execute.sandbox.Bwrap`).

Example:
    >>> first_command("FOO=1 exec bash /srv/agent.sh --fast; echo done")
    ['bash', '/srv/agent.sh', '--fast']
    >>> first_command("echo 'unclosed")
    []
    >>> [w[0] for w in simple_commands("A=1 make 2>/dev/null && env -u X /v/bin/python -m t | tee log")]
    ['make', '/v/bin/python', 'tee']
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from judgekit.execute.hostview import CREDENTIAL_DIRS, home_dirs

WRAPPERS = ("exec", "env", "command", "nohup", "setsid", "nice", "stdbuf", "time")
"""Words that run the next word as the program; their options are skipped."""

INTERPRETERS = re.compile(
    r"(sh|bash|dash|zsh|ksh|mksh|fish|python[0-9.]*|pypy[0-9.]*|node|nodejs|deno|bun|ruby"
    r"|perl|php|Rscript|julia|lua[0-9.]*|tclsh[0-9.]*|osascript)")
"""Programs whose first file argument is a script they run (by the program's file name)."""

_OPTION_ARGS = {"env": ("-u", "--unset", "-C", "--chdir"), "nice": ("-n", "--adjustment"),
                "stdbuf": ("-i", "-o", "-e")}
"""A wrapper's options that take the next word as their value."""
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=.*")
_OPERATORS = set(";&|()<>")
_CONTROL = set(";&|()")


def first_command(command: str) -> list[str]:
    """The words of the first simple command of ``command``, from its program on
    (``[]`` when it cannot be split as the shell would)."""
    found = simple_commands(command)
    return found[0] if found else []


def simple_commands(command: str) -> list[list[str]]:
    """The words of each simple command of ``command`` (split at ``;``, ``&``, ``&&``,
    ``||``, ``|`` and parentheses), each from its program on and up to its first
    redirection; ``[]`` when the line cannot be split as the shell would."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    out: list[list[str]] = []
    words: list[str] = []
    redirected = False
    try:
        for word in lexer:
            if word and set(word) <= _OPERATORS:
                if set(word) <= _CONTROL:  # the simple command ends
                    out.append(words)
                    words, redirected = [], False
                else:  # a redirection: the command's words end here
                    redirected = True
                continue
            if not redirected:
                words.append(word)
    except ValueError:
        return []
    out.append(words)
    return [w for w in map(_program_on, out) if w]


def _program_on(words: list[str]) -> list[str]:
    """A simple command's words from its program on: assignments and wrappers left out."""
    while words and _ASSIGNMENT.fullmatch(words[0]):
        words = words[1:]
    while words and words[0] in WRAPPERS:
        takes = _OPTION_ARGS.get(words[0], ())
        words = words[1:]
        while words and (words[0].startswith("-") or _ASSIGNMENT.fullmatch(words[0])):
            words = words[2:] if words[0] in takes else words[1:]  # options, assignments
    return words


def program_path(word: str, path_var: str) -> str | None:
    """Where the program ``word`` is on this machine: looked up on ``path_var`` when bare,
    as written when absolute, ``None`` when relative (in the workspace) or not found."""
    if "/" not in word:
        return shutil.which(word, path=path_var or None)
    return word if os.path.isabs(word) else None


def interpreter(script: str | Path) -> str | None:
    """The absolute interpreter a script's ``#!`` line names, if any."""
    try:
        with open(script, "rb") as fh:
            first = fh.readline(512)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    parts = first[2:].decode("utf-8", "replace").split()
    return parts[0] if parts and os.path.isabs(parts[0]) else None


Role = Literal["program", "script", "interpreter"]


@dataclass(frozen=True)
class Named:
    """A host file a command names: ``path`` as named; ``role`` what it is to the command
    (its program, the script its interpreter runs, a ``#!`` line's interpreter)."""

    path: Path
    role: Role
    #: the word the command line names it by (a program's bare name, as the shell says it)
    word: str = ""

    @property
    def runs(self) -> bool:
        """The file is executed (it must be executable), not only read."""
        return self.role != "script"


def named_files(command: str, path_var: str) -> tuple[Named, ...]:
    """The existing host files ``command`` names, in this order: each simple command's
    program and its script when the program is an interpreter, then the ``#!``
    interpreters of these."""
    found: list[Named] = []
    for words in simple_commands(command):
        program = program_path(words[0], path_var)
        if program is not None and os.path.isfile(program):
            found.append(Named(Path(os.path.normpath(program)), "program", words[0]))
        if INTERPRETERS.fullmatch(os.path.basename(words[0])):
            script = next((w for w in words[1:] if os.path.isabs(w) and os.path.isfile(w)),
                          None)
            if script is not None:
                found.append(Named(Path(os.path.normpath(script)), "script"))
    for one in list(found):
        shebang = interpreter(one.path)
        if shebang is not None and os.path.isfile(shebang):
            found.append(Named(Path(os.path.normpath(shebang)), "interpreter"))
    unique: list[Named] = []
    for one in found:
        if all(one.path != u.path for u in unique):
            unique.append(one)
    return tuple(unique)


def virtualenv_of(path: Path) -> tuple[Path, Path | None] | None:
    """``(virtualenv, base installation)`` when ``path`` lies in a virtualenv's ``bin``
    directory (the base from its ``pyvenv.cfg`` ``home``, ``None`` when it names none)."""
    venv = path.parent.parent
    cfg = venv / "pyvenv.cfg"
    if path.parent.name not in ("bin", "Scripts") or not os.path.isfile(cfg):
        return None
    try:
        lines = cfg.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return venv, None
    for line in lines:
        key, sep, value = line.partition("=")
        if sep and key.strip() == "home" and value.strip():
            home = Path(os.path.normpath(value.strip()))
            return venv, home.parent if home.name == "bin" else home
    return venv, None


def _credential(path: Path, homes: tuple[Path, ...]) -> bool:
    for home in homes:
        if path == home or home in path.parents:
            rel = path.relative_to(home).parts
            return any(rel[:len(Path(c).parts)] == Path(c).parts for c in CREDENTIAL_DIRS)
    return False


def needs(named: Named) -> list[tuple[Path, Path]]:
    """``(source, destination)`` pairs to show for one named file (see the module)."""
    pairs: list[tuple[Path, Path]] = []
    real = Path(os.path.realpath(named.path))
    for candidate in (named.path, real):
        venv = virtualenv_of(candidate)
        if venv is not None:
            pairs.append((venv[0], venv[0]))
            if venv[1] is not None and venv[1] != Path("/") and os.path.isdir(venv[1]):
                pairs.append((venv[1], venv[1]))
            return pairs
    pairs.append((real, named.path))
    if real != named.path:
        pairs.append((real, real))
    return pairs


def shown_for(command: str, path_var: str,
              homes: tuple[Path, ...] | None = None) -> tuple[tuple[Path, Path], ...]:
    """The ``(source, destination)`` pairs the sandbox shows ``command`` read-only, so
    that what it names can run there (none in a home's credential directories)."""
    homes = home_dirs() if homes is None else homes
    out: list[tuple[Path, Path]] = []
    for one in named_files(command, path_var):
        for source, dest in needs(one):
            if (source, dest) not in out and not _credential(dest, homes) \
                    and not _credential(source, homes):
                out.append((source, dest))
    return tuple(out)


def unreadable(command: str, path_var: str, uid: int, gid: int) -> list[str]:
    """Why the user ``uid``:``gid`` (no supplementary groups) could not run what
    ``command`` names although the sandbox shows it: one line per file, naming it and the
    fix. The directories above it do not matter (the sandbox opens the way to it)."""
    problems = []
    for one in named_files(command, path_var):
        path = Path(os.path.realpath(one.path))
        try:
            st = path.stat()
        except OSError:
            continue
        need = "rx" if one.runs and interpreter(path) else "x" if one.runs else "r"
        if not _allows(st, uid, gid, need):
            problems.append(
                f"the {one.role} {one.path} cannot be {'run' if one.runs else 'read'} by the "
                f"sandbox's unprivileged user (uid {uid}; mode {stat.filemode(st.st_mode)}, "
                f"owner uid {st.st_uid}); {fix(path, need)}, or run judgekit as an ordinary "
                "user")
    return problems


def fix(path: Path, need: str) -> str:
    """How to let others read (``r``) or run (``x``, ``rx``) ``path``."""
    what = {"r": "readable", "x": "executable", "rx": "readable and executable"}[need]
    return f"chmod o+{need} {path} makes it {what} by others"


def _allows(st: os.stat_result, uid: int, gid: int, need: str) -> bool:
    if st.st_uid == uid:
        bits = {"r": stat.S_IRUSR, "x": stat.S_IXUSR}
    elif st.st_gid == gid:
        bits = {"r": stat.S_IRGRP, "x": stat.S_IXGRP}
    else:
        bits = {"r": stat.S_IROTH, "x": stat.S_IXOTH}
    return all(st.st_mode & bits[c] for c in need)
