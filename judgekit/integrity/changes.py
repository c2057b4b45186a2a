"""What an attempt changed, as the checks read it: each patch hunk with its removed and added
lines, and each edit a tool call made (an edit tool's old and new text, a file written from
the shell, a ``sed -i`` substitution, a file removed), in one shape.

Example:
    >>> diff = ("diff --git a/t/test_a.py b/t/test_a.py\\n--- a/t/test_a.py\\n"
    ...         "+++ b/t/test_a.py\\n@@ -1,2 +1,2 @@\\n def test_a():\\n"
    ...         "-    assert f() == 2\\n+    assert True\\n")
    >>> [(c.path, c.removed, c.added) for c in patch_changes(diff)]
    [('t/test_a.py', ['    assert f() == 2'], ['    assert True'])]
"""

from __future__ import annotations

import re
import shlex
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from judgekit.ingest.transcripts.model import ToolCall, Transcript

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@")


@dataclass
class Change:
    """One hunk of a patch, or one edit a tool call made."""

    path: str
    removed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    #: lines around the change (a hunk's context lines), for where an added line stands
    context: list[str] = field(default_factory=list)
    #: the hunk's ``@@`` header (a patch), or None (a tool call)
    hunk: str | None = None
    #: the tool call's index (an edit), or None (a patch)
    tool_call: int | None = None
    command: str | None = None
    deleted: bool = False
    #: the file was written whole (its old lines are not known)
    whole: bool = False
    #: every line of the hunk in order, each with its mark (' ', '-', '+')
    lines: list[tuple[str, str]] = field(default_factory=list)


def _path(raw: str) -> str | None:
    raw = raw.split("\t")[0].strip()
    if raw == "/dev/null":
        return None
    if raw.startswith('"') and raw.endswith('"'):
        raw = raw[1:-1]
    return raw[2:] if raw[:2] in ("a/", "b/") else raw


_NEW_PATH = re.compile(r"^(?:\+\+\+|---) (?:[ab]/)?([^\t\n]+)", re.M)


def patch_changes(diff: str | None, wanted: Callable[[str, str], bool] | None = None
                  ) -> list[Change]:
    """Each hunk of a unified diff, with its lines (a deleted file is marked ``deleted``);
    with ``wanted`` (a file's path and its section of the diff), a git diff's files it
    does not want are not read line by line."""
    if not diff:
        return []
    if wanted is not None and diff.startswith("diff --git "):
        out: list[Change] = []
        for at, section in enumerate(diff.split("\ndiff --git ")):
            if at:
                section = "diff --git " + section
            path = header_path(section)
            if path is None:  # a header it cannot be sure of: the file's ---/+++ lines
                paths = [p for p in _NEW_PATH.findall(section) if p != "/dev/null"]
                path = paths[-1] if paths else None
            if path is None or wanted(path, section):
                out.extend(_parse(section))
        return out
    return _parse(diff)


def header_path(section: str, start: int = 0) -> str | None:
    """The file a git diff section (at ``start`` in ``section``) is about, from its ``diff
    --git a/X b/Y`` line when that is plain (one `` b/``, no quotes), else None."""
    end = section.find("\n", start)
    line = section[start + 11:] if end == -1 else section[start + 11:end]
    if not line.startswith("a/") or '"' in line or line.count(" b/") != 1:
        return None
    return line.split(" b/", 1)[1] or None


def _parse(diff: str) -> list[Change]:
    out: list[Change] = []
    old: str | None = None
    new: str | None = None
    current: Change | None = None
    lines = diff.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("diff --git "):
            current, old, new = None, None, None
        elif line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            old, new = _path(line[4:]), _path(lines[i + 1][4:])
            current = None
            i += 2
            continue
        elif _HUNK.match(line) and (old or new):
            path = new or old or ""
            current = Change(path=path, hunk=_HUNK.match(line).group(0),  # type: ignore[union-attr]
                             deleted=new is None)
            out.append(current)
        elif current is not None and line[:1] in ("+", "-", " ", ""):
            mark, text = (line[:1] or " "), line[1:]
            current.lines.append((mark, text))
            if mark == "+":
                current.added.append(text)
            elif mark == "-":
                current.removed.append(text)
            else:
                current.context.append(text)
        i += 1
    return out


# -- edits made by tool calls ---------------------------------------------------------------

_EDIT_TOOLS = {"edit", "multiedit", "str_replace_editor", "str_replace_based_edit_tool",
               "write", "create", "notebookedit", "edit_file", "write_file"}
_PATCH_TOOLS = {"apply_patch"}
_HEREDOC = re.compile(r"(?:cat|tee)\s*(?:-a\s+)?>{1,2}\s*['\"]?([^\s'\"<>|;&]+)['\"]?\s*<<-?\s*"
                      r"['\"]?(\w+)['\"]?[^\n]*\n(.*?)\n\s*\2\s*(?:\n|$)", re.S)
_HEREDOC_TEE = re.compile(r"cat\s*<<-?\s*['\"]?(\w+)['\"]?\s*>{1,2}\s*['\"]?([^\s'\"<>|;&]+)"
                          r"['\"]?[^\n]*\n(.*?)\n\s*\1\s*(?:\n|$)", re.S)
_ECHO = re.compile(r"(?:echo|printf)\s+(?:-[ne]+\s+)?(['\"])(.*?)\1\s*>{1,2}\s*"
                   r"['\"]?([^\s'\"<>|;&]+)", re.S)
_SED = re.compile(r"\bsed\b[^\n|;&]*?-i")
_SED_QUICK = re.compile(r"sed\s+(-i\S*\s+)(?:-e\s+)?'([^']*)'\s+([\w./ -]+)")
_SUB = re.compile(r"^\d*,?\d*\s*s(.)(.*?)\1(.*?)\1")


def command_text(call: ToolCall) -> str:
    """A tool call's shell command, or its tool and path for an edit ("" for neither)."""
    command = call.arguments.get("command")
    if isinstance(command, str):
        return command
    path = _edit_path(call)
    return f"{call.name} {path}" if path else call.name


def _edit_path(call: ToolCall) -> str | None:
    for key in ("file_path", "path", "filename", "notebook_path"):
        value = call.arguments.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _lines(text: object) -> list[str]:
    return text.splitlines() if isinstance(text, str) else []


def edit_changes(index: int, call: ToolCall) -> Iterator[Change]:
    name = call.name.lower()
    args = call.arguments
    path = _edit_path(call)
    if name in _PATCH_TOOLS or (isinstance(args.get("input"), str)
                                and "*** Begin Patch" in str(args.get("input"))):
        yield from _apply_patch_changes(index, call, str(args.get("input")
                                                         or args.get("patch") or ""))
        return
    if name not in _EDIT_TOOLS and not (path and ("old_string" in args or "new_str" in args
                                                   or "content" in args)):
        return
    if path is None:
        return
    if isinstance(args.get("edits"), list):
        for edit in args["edits"]:
            if isinstance(edit, dict):
                yield Change(path=path, removed=_lines(edit.get("old_string")),
                             added=_lines(edit.get("new_string")), tool_call=index,
                             command=f"{call.name} {path}")
        return
    old = args.get("old_string", args.get("old_str"))
    new = args.get("new_string", args.get("new_str"))
    if old is not None or new is not None:
        yield Change(path=path, removed=_lines(old), added=_lines(new), tool_call=index,
                     command=f"{call.name} {path}")
    elif "content" in args or "file_text" in args:
        yield Change(path=path, added=_lines(args.get("content", args.get("file_text"))),
                     tool_call=index, command=f"{call.name} {path}", whole=True)


def _apply_patch_changes(index: int, call: ToolCall, text: str) -> Iterator[Change]:
    current: Change | None = None
    for line in text.splitlines():
        m = re.match(r"\*\*\* (Update|Add|Delete) File: (.+)", line)
        if m:
            current = Change(path=m.group(2).strip(), tool_call=index,
                             command=f"{call.name} {m.group(2).strip()}",
                             deleted=m.group(1) == "Delete", whole=m.group(1) == "Add")
            yield current
            continue
        if current is None or line.startswith("***"):
            continue
        if line.startswith("@@"):
            continue
        mark, body = line[:1], line[1:]
        current.lines.append((mark if mark in "+-" else " ", body))
        if mark == "+":
            current.added.append(body)
        elif mark == "-":
            current.removed.append(body)
        else:
            current.context.append(body)


def _sed_changes(index: int, command: str) -> Iterator[Change]:
    """``sed -i 's/OLD/NEW/' FILE...``: OLD removed, NEW added, in each file named."""
    if "sed" not in command or "-i" not in command:  # _SED needs both
        return
    for part in re.split(r"&&|;|\n|\|\|", command):
        if not _SED.search(part):
            continue
        quick = _SED_QUICK.fullmatch(part.strip())
        if quick is not None:  # sed -i 's/OLD/NEW/' FILE ... (most): no shell parsing
            sub = _SUB.match(quick.group(2))
            for path in quick.group(3).split():
                if sub is not None:
                    yield Change(path=path, removed=[sub.group(2)], added=[sub.group(3)],
                                 tool_call=index, command=command)
            if sub is not None:
                continue
        try:
            words = shlex.split(part)
        except ValueError:
            continue
        scripts = [w for w in words if re.match(r"^\d*,?\d*\s*[sd]\W|^/.*/d$|^[0-9$]+[di]", w)]
        files = [w for w in words[1:] if not w.startswith("-") and w not in scripts
                 and not w.startswith("s/") and "/" not in w[:1] and ("." in w or "/" in w)]
        for path in files:
            for script in scripts:
                sub = re.match(r"^\d*,?\d*\s*s(.)(.*?)\1(.*?)\1", script)
                if sub:
                    yield Change(path=path, removed=[sub.group(2)], added=[sub.group(3)],
                                 tool_call=index, command=command)
                else:
                    yield Change(path=path, removed=[script], tool_call=index,
                                 command=command)


_WRITES = re.compile(r"(?<![0-9&>])>(?![&>]?\s*/dev/null)|\bsed\b[^\n|;&]*\s-i|\brm\s|\btee\b")
_RM = re.compile(r"(?:^|[;&|\n]\s*)(?:git\s+)?rm\s+(?:-\w+\s+)*([^\n;&|]+)")


def shell_changes(index: int, command: str) -> Iterator[Change]:
    # each pattern runs only on a command holding its literal words (most hold none)
    if "<<" in command:
        for m in _HEREDOC.finditer(command):
            yield Change(path=m.group(1), added=m.group(3).splitlines(), tool_call=index,
                         command=command, whole=True)
        for m in _HEREDOC_TEE.finditer(command):
            yield Change(path=m.group(2), added=m.group(3).splitlines(), tool_call=index,
                         command=command, whole=True)
    if ">" in command and ("echo" in command or "printf" in command):
        for m in _ECHO.finditer(command):
            body = m.group(2).replace("\\n", "\n")
            yield Change(path=m.group(3), added=body.splitlines(), tool_call=index,
                         command=command, whole=True)
    yield from _sed_changes(index, command)
    if "rm" not in command:
        return
    for m in _RM.finditer(command):
        for path in m.group(1).split():
            if not path.startswith("-"):
                yield Change(path=path, tool_call=index, command=command, deleted=True)


def hinted(texts: Sequence[str], words: tuple[str, ...], joined: str | None = None
           ) -> list[int]:
    """The positions in ``texts`` of those holding one of ``words`` (plain substrings: a
    quick look, by one scan of them all joined, so that the patterns run on the few
    commands that may match); ``joined``: the texts joined by newlines, if made already."""
    if not texts:
        return []
    if joined is None:
        joined = "\n".join(texts)
    if not any(w in joined for w in words):  # plain scans, the common case
        return []
    if joined.count("\n") == len(texts) - 1:  # one line each: a hit's text by its line
        found_at: set[int] = set()
        for w in words:
            at = joined.find(w)
            while at != -1:
                found_at.add(joined.count("\n", 0, at))
                end = joined.find("\n", at)
                at = -1 if end == -1 else joined.find(w, end + 1)
        return sorted(found_at)
    starts, at = [], 0
    for text in texts:
        starts.append(at)
        at += len(text) + 1
    starts.append(at)
    found: set[int] = set()
    for w in words:
        at = joined.find(w)
        while at != -1:
            i = bisect_right(starts, at) - 1
            found.add(i)
            at = joined.find(w, starts[i + 1])  # the next text
    return sorted(found)


#: what a command that writes a file holds
WRITE_WORDS = (">", "sed", "rm ", "tee")


def tool_call_changes(transcript: Transcript | None,
                      shell: Sequence[tuple[int, str]] | None = None,
                      joined: str | None = None) -> list[Change]:
    """The edits the transcript's tool calls made, in order (``shell``: its shell
    commands by index, when the caller has them already, and ``joined`` their texts
    joined by newlines)."""
    if transcript is None:
        return []
    calls = transcript.tool_calls
    if shell is None:
        shell = [(i, c.arguments["command"]) for i, c in enumerate(calls)
                 if isinstance(c.arguments.get("command"), str)]
    others = ([] if len(shell) == len(calls) else
              [i for i, c in enumerate(calls) if not isinstance(c.arguments.get("command"), str)])
    # the commands that may write a file, found by one scan of them all
    writes = [shell[at] for at in hinted([c for _, c in shell], WRITE_WORDS, joined)]
    return call_edits(calls, others, writes)


def call_edits(calls: Sequence[ToolCall], others: Sequence[int],
               writes: Sequence[tuple[int, str]],
               shell: Callable[[int, str], Iterable[Change]] | None = None) -> list[Change]:
    """The edits of the tool calls at ``others`` (edit and patch tools) and of the shell
    commands ``writes`` (index and text) that may write a file, in order; ``shell``: how a
    command's edits are read (:func:`shell_changes` unless given)."""
    out: list[Change] = []
    for index in others:
        out.extend(edit_changes(index, calls[index]))
    edits_of = shell or shell_changes
    for index, text in writes:
        out.extend(edits_of(index, text))
    out.sort(key=lambda c: c.tool_call or 0)
    return out


def normal_path(path: str) -> str:
    """A path as a patch names it: no leading ``./``, a workspace prefix cut at the first
    part a repository would have (``/repo/tests/x.py`` → ``tests/x.py`` is not guessed: only
    ``./`` and ``a/``/``b/`` are dropped)."""
    path = path.strip()
    while path.startswith("./"):
        path = path[2:]
    return path


__all__ = ["Change", "call_edits", "command_text", "edit_changes", "header_path", "hinted",
           "normal_path", "patch_changes", "shell_changes", "tool_call_changes"]
