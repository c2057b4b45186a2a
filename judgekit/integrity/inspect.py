"""One attempt's integrity: the checks' inputs read from a result (its patch, the fix's
diff, its task) and from its transcript (commands, edits, fetched pages), then the findings.

:func:`inspect_result` is what scoring calls for every result, also in worker processes
(a module-level function, so that it can be sent there): it returns None for a result with
no finding and a transcript, the common case, so nothing is sent back for it.

Example:
    >>> from judgekit.ingest.models import RunResult, Task
    >>> r = RunResult(task=Task(id="t"), arm="a", agent_diff=(
    ...     "--- a/tests/test_a.py\\n+++ b/tests/test_a.py\\n@@ -1 +1,2 @@\\n"
    ...     "+@pytest.mark.skip\\n def test_a():\\n"))
    >>> seen = inspect_result(r)
    >>> [f.kind for f in seen.findings], seen.unknown
    (['skip-tests'], ['peek-history', 'fetch-upstream'])
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import compress, repeat
from typing import Any

from judgekit.ingest.models import RunResult
from judgekit.ingest.transcripts.model import Transcript
from judgekit.integrity.changes import Change, call_edits, command_text, patch_changes
from judgekit.integrity.checks import (RUNS_SCRIPT, Command, Inputs, TaskFacts, installs,
                                       is_runner_file, is_task_test, run_checks,
                                       special_candidates, test_scripts)
from judgekit.integrity.commands import (FETCH, INSTALLS, PEEK, RUNS, SHIM_CMD, WRITES, cached,
                                         flags, shell_edits)
from judgekit.integrity.models import TRANSCRIPT_CHECKS, CheckKind, Finding
from judgekit.integrity.screen import (TaskView, adds_branch, clear, may_weaken_tests,
                                       web_addresses)
_READS = re.compile(r"\b(?:cat|head|tail|less|more|sed\s+-n|nl|bat|grep)\b")


@dataclass(frozen=True)
class Seen:
    """What the checks found on one attempt, and which checks could not run."""

    findings: list[Finding]
    unknown: list[CheckKind]


def project_of(repo: str | None, task_id: str) -> str | None:
    """The project's package name as far as its repository or task id tells it
    (``pallets/flask`` → ``flask``; ``django__django-11099`` → ``django``)."""
    if repo:
        name = repo.rstrip("/").rsplit("/", 1)[-1]
        return name[:-4] if name.endswith(".git") else name
    m = re.match(r"^[\w.-]+__([\w.]+?)-\d+$", task_id)
    return m.group(1) if m else None


def _test_lines(fix: Sequence[Change], facts: TaskFacts,
                transcript: Transcript | None) -> tuple[str, ...]:
    lines = [x for c in fix if is_task_test(c.path, facts) for x in c.added + c.context]
    if transcript is not None:  # the tests as the agent read them
        for call in transcript.tool_calls:
            text = command_text(call)
            path = call.arguments.get("file_path") or call.arguments.get("path")
            reads_test = (isinstance(path, str) and call.name.lower() in ("read", "view")
                          and is_task_test(path, facts)) or (
                _READS.search(text) is not None and any(
                    is_task_test(w, facts) for w in text.split() if "." in w))
            if reads_test and call.output:
                lines.extend(call.output.splitlines()[:2000])
    return tuple(lines)


def _test_runs(commands: Sequence[Command]) -> str | None:
    """Without the task's test command: the test scripts the agent ran (``sh
    run_tests.sh``), which it should not change either."""
    found = [m.group(1) for c in commands for m in RUNS_SCRIPT.finditer(c.text)]
    return " ".join(dict.fromkeys(found)) or None


def facts_of(result: RunResult, fix: Sequence[Change], fix_paths: Sequence[str] = ()
             ) -> TaskFacts:
    """The task as the checks know it, from the result, its task and the fix's diff (its
    changes, or only its files' paths)."""
    task = result.task
    globs = tuple(task.test_files) if task.test_files is not None else None
    probe = TaskFacts(test_globs=globs)
    test_files = frozenset(c.path for c in fix if is_task_test(c.path, probe)) | frozenset(
        p for p in [*(result.ground_truth_files or []), *fix_paths] if is_task_test(p, probe))
    source_added = frozenset(x.strip() for c in fix if not is_task_test(c.path, probe)
                             for x in c.added)
    return TaskFacts(test_globs=globs, test_command=task.test_command,
                     fix_test_files=test_files, fix_source_added=source_added,
                     project=project_of(task.repo, task.id), fix_commit=task.commit)


@lru_cache(maxsize=4096)
def _task_view(task: tuple[str, str | None, str | None, str | None,
                           tuple[str, ...] | None], fix_files: tuple[str, ...],
               fix_diff: str | None) -> TaskView:
    """:func:`facts_of` from the fix's files' names, once per task (the results of a task
    share it and what was learnt of its paths and commands): ``task`` is its id,
    repository, commit, test command and test globs."""
    task_id, repo, commit, command, globs = task
    probe = TaskFacts(test_globs=globs)
    paths = [*fix_files, *(p for p in _PATHS.findall(fix_diff or "") if p != "/dev/null")]
    return TaskView(TaskFacts(test_globs=globs, test_command=command,
                              fix_test_files=frozenset(p for p in paths
                                                       if is_task_test(p, probe)),
                              project=project_of(repo, task_id), fix_commit=commit))


@dataclass
class _Sorted:
    """A transcript's tool calls as the checks read them: the shell commands each command
    check may find something in (by :func:`judgekit.integrity.commands.flags`), the calls
    that are not shell commands, and the URLs web tools fetched."""

    shim: list[Command]
    peek: list[Command]
    fetch: list[Command]
    writes: list[tuple[int, str]]
    runs: list[Command]
    others: list[int]
    urls: list[tuple[Command, str]]


def _sort_calls(transcript: Transcript | None, project: str | None) -> _Sorted:
    out = _Sorted([], [], [], [], [], [], [])
    if transcript is None:
        return out
    calls = transcript.tool_calls
    texts: list[Any] = [call.arguments.get("command") for call in calls]
    try:  # the commands seen before, looked up at once (most; an unknown one is -1)
        kinds: list[int] = list(map(cached.get, texts, repeat(-1)))
    except TypeError:  # a command that is not text (a list of words, say)
        kinds = [-1] * len(texts)
    for index in compress(range(len(kinds)), kinds):  # the calls that may matter
        kind, text = kinds[index], texts[index]
        if text.__class__ is not str:
            out.others.append(index)
            call = calls[index]
            for value in web_addresses(call):
                out.urls.append((Command(index, f"{call.name} {value}"), value))
            continue
        if kind < 0:
            kind = flags(text)
            if not kind:
                continue
        cmd = Command(index, text)
        if kind & WRITES:
            out.writes.append(cmd)
        if kind & SHIM_CMD:
            out.shim.append(cmd)
        if kind & PEEK:
            out.peek.append(cmd)
        if kind & FETCH or (kind & INSTALLS and project and installs(project, cmd.text)):
            out.fetch.append(cmd)
        if kind & RUNS:
            out.runs.append(cmd)
    return out


def inspect(patch: str | None, transcript: Transcript | None, facts: TaskFacts,
            fix: Sequence[Change] = (), branches: bool | None = None) -> Seen:
    """Every check on a patch and a transcript (either may be missing); ``branches``:
    whether the patch adds a branch on a comparison, if known already."""
    if branches is None:
        branches = bool(patch) and adds_branch(patch or "")
    changes = patch_changes(patch, _wanted(facts, branches))
    calls = _sort_calls(transcript, facts.project)
    if not facts.test_command:
        runs = _test_runs(calls.runs)
        if runs:
            facts = replace(facts, test_command=runs)
    edits: list[Change] = []
    if transcript is not None and (calls.others or calls.writes):
        matters = TaskView(facts).matters
        # a shell command's edits are asked before they are copied (most do not matter)
        edits = [c for c in call_edits(transcript.tool_calls, calls.others, calls.writes,
                                       lambda at, text: shell_edits(at, text, matters))
                 if matters(c)]
    if (changes and special_candidates(changes, facts)) or (
            edits and special_candidates(edits, facts)):
        facts = replace(facts, test_lines=_test_lines(fix, facts, transcript))
    elif facts.test_lines:
        facts = replace(facts, test_lines=())
    # with no change to read and no command or page that may matter, no check has a word
    found = run_checks(Inputs(patch=changes, tool_urls=calls.urls, facts=facts,
                              has_transcript=transcript is not None,
                              by_check=(calls.shim, calls.peek, calls.fetch))) if (
        changes or calls.shim or calls.peek or calls.fetch or calls.urls) else []
    if edits:  # the tool calls' own edits, for what the patch does not already show
        from_patch = {f.kind for f in found}
        found += [f for f in run_checks(Inputs(edits=edits, facts=facts, by_check=([], [], [])))
                  if f.kind not in from_patch]
    has = transcript is not None and transcript.format != "raw"
    return Seen(found, [] if has else list(TRANSCRIPT_CHECKS))


_PATHS = re.compile(r"^\+\+\+ (?:b/)?([^\t\n]+)", re.M)


def _wanted(facts: TaskFacts, branches: bool = True) -> Callable[[str, str], bool]:
    """Which files of a patch the checks read: the tests, the test runner's files and
    scripts, and source files that add a branch on a comparison (special-case;
    ``branches``: whether the whole patch adds one)."""
    scripts = test_scripts(facts)

    def wanted(path: str, section: str) -> bool:
        if is_task_test(path, facts):  # a test file: only a change that may weaken it
            return may_weaken_tests(section)
        return is_runner_file(path, scripts) or (
            branches and adds_branch(section))
    return wanted


def inspect_result(result: RunResult, screen: bool = True) -> Seen | None:
    """The findings on one result, or None when it has none and a transcript; ``screen``:
    whether a quick look (:func:`judgekit.integrity.screen.clear`) may clear the result
    before the checks read it (it never changes the answer, only what it costs)."""
    session = result.session
    patch = result.agent_diff if result.agent_diff is not None else (
        session.patch if session is not None else None)
    # the fix's source lines matter only when the patch branches on a value (special-case)
    special = bool(patch) and adds_branch(patch or "")
    # the fix read line by line only then; else its files' names are enough
    if special:
        fix = patch_changes(result.ground_truth_diff)
        facts = facts_of(result, fix)
    else:
        fix, task = [], result.task
        view = _task_view((task.id, task.repo, task.commit, task.test_command,
                           None if task.test_files is None else tuple(task.test_files)),
                          tuple(result.ground_truth_files or ()), result.ground_truth_diff)
        if screen and clear(patch, session, view, branches=False):  # most results
            return None
        facts = view.facts
    seen = inspect(patch, session, facts, fix, special)
    return seen if seen.findings or seen.unknown else None


def inspect_transcript(transcript: Transcript) -> list[Finding]:
    """The findings a transcript alone shows (its tool calls and the patch it holds)."""
    return inspect(transcript.patch, transcript, TaskFacts(
        project=project_of(None, transcript.task_id or ""))).findings


__all__ = ["Seen", "facts_of", "inspect", "inspect_result",
           "inspect_transcript", "project_of"]
