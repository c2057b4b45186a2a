"""Agents as shell command templates.

Placeholders ``{prompt_file}``, ``{workspace}``, ``{task_id}``, ``{arm}``,
``{transcript_file}`` and ``{model}`` are replaced by shell-quoted values; other braces are
left alone, so ``awk '{print $1}'`` survives. The agent runs with the workspace as its
working directory, in the attempt's sandbox; its whole process tree ends with it. When its
program (or the interpreter a script names) is on this machine but could not be found or run
inside the sandbox, the run says so and how to show it (:attr:`AgentRun.hint`): the sandbox
hides ``/tmp`` and the home directory, and run by root its commands are not root.

Example:
    >>> AgentCommand("my-agent --prompt {prompt_file} --tag {task_id}").render(
    ...     prompt_file="/tmp/p q.md", workspace="/w", task_id="t1", arm="baseline")
    "my-agent --prompt '/tmp/p q.md' --tag t1"
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from judgekit.errors import ConfigError, InputError, render_options
from judgekit.execute.hostview import HIDDEN_TMP, home_dirs
from judgekit.execute.named import fix, named_files
from judgekit.execute.process import Capture, ProcessOutcome
from judgekit.execute.sandbox import Sandbox
from judgekit.ingest.models import Cut
from judgekit.ingest.transcripts import Transcript, read_transcripts
from judgekit.ingest.transcripts.build import relative_patch_files
from judgekit.secretscan import SecretScrubber

if TYPE_CHECKING:
    from judgekit.execute.workspace import Workspace

PLACEHOLDERS = ("prompt_file", "workspace", "task_id", "arm", "transcript_file", "model")
_PATTERN = re.compile(r"\{(" + "|".join(PLACEHOLDERS) + r")\}")


@dataclass(frozen=True)
class AgentCommand:
    """A command template for one arm."""

    template: str

    def __post_init__(self) -> None:
        if not self.template.strip():
            raise ConfigError("the agent command is empty")

    def render(self, **values: str) -> str:
        """Substitute the known placeholders with shell-quoted ``values``."""

        def sub(match: re.Match[str]) -> str:
            value = values.get(match.group(1))
            return match.group(0) if value is None else shlex.quote(str(value))

        return _PATTERN.sub(sub, self.template)


class AgentSettings(Protocol):
    """What running an agent needs of its attempt's settings
    (:class:`~judgekit.execute.attempt.AttemptSettings` has it)."""

    model: str | None
    agent_timeout_s: float | None
    agent_network: bool
    sandbox: Sandbox

    def environment(self, task_env: Mapping[str, str], *, agent: bool) -> dict[str, str]:
        """A command's environment: clean, the task's variables, then the given ones."""
        ...

    def shell(self, command: str, ws: Workspace, *, log_name: str, timeout: float | None,
              network: bool, env: dict[str, str], agent: bool = False) -> ProcessOutcome:
        """Run one command of the attempt in its sandbox with the environment ``env``."""
        ...


@dataclass(frozen=True)
class AgentRun:
    """The agent's process outcome plus the transcript it wrote, if any."""

    command: str
    outcome: ProcessOutcome
    transcript: str | None
    hint: str | None = None
    """Why the agent may not have started: its program is on this machine but not visible
    inside the sandbox (and how to show it), or its user may not run it; else ``None``."""
    transcript_cut: Cut | None = None
    """Set when the transcript was longer than the output cap: its whole size and hash."""
    session: Transcript | None = None
    """The transcript read as the agent's session file, when judgekit knows its format."""
    transcript_problem: str | None = None
    """Why a transcript of a known format could not be read."""


def run_agent(
    command: AgentCommand,
    *,
    ws: Workspace,
    prompt_file: Path,
    task_id: str,
    arm: str,
    settings: AgentSettings,
    env: Mapping[str, str] | None = None,
) -> AgentRun:
    """Run the agent in the workspace ``ws``; keep stdout/stderr in its logs.

    ``env`` is the agent's environment before judgekit's own ``JUDGEKIT_*`` variables
    (default: the clean environment with the settings' agent variables). The agent may
    write a transcript to ``{transcript_file}`` (also in the environment as
    ``JUDGEKIT_TRANSCRIPT``); it is read back after the agent ends, its secret-looking
    values redacted, and read as the agent's session file (:attr:`AgentRun.session`) when
    judgekit knows its format (mini-swe-agent, Claude Code, Codex CLI, ...).
    """
    transcript_file = ws.io / "transcript.txt"
    values = {"prompt_file": str(prompt_file), "workspace": str(ws.path), "task_id": task_id,
              "arm": arm, "transcript_file": str(transcript_file),
              "model": settings.model or ""}
    rendered = command.render(**values)
    full = dict(settings.environment({}, agent=True) if env is None else env)
    full.update({f"JUDGEKIT_{k.upper()}": v for k, v in values.items()})
    full["JUDGEKIT_TRANSCRIPT"] = str(transcript_file)
    outcome = settings.shell(rendered, ws, log_name="agent", timeout=settings.agent_timeout_s,
                             network=settings.agent_network, env=full, agent=True)
    transcript, cut = None, None
    session = problem = None
    if transcript_file.is_file() and not transcript_file.is_symlink():
        capture = Capture()  # read in blocks: kept to its head and tail whatever its size
        with open(transcript_file, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                capture.feed(block)
        transcript, cut = capture.text(), capture.cut()
        transcript, session, problem = read_session(transcript_file, transcript,
                                                    cwd=ws.path)
    hint = None
    if outcome.exit_code in (126, 127) and settings.sandbox.name != "none":
        hint = unseen_program(rendered, outcome.stderr, full.get("PATH", ""))
    return AgentRun(command=rendered, outcome=outcome, transcript=transcript, hint=hint,
                    transcript_cut=cut, session=session, transcript_problem=problem)


def read_session(path: Path, text: str, *, cwd: Path | None = None
                 ) -> tuple[str, Transcript | None, str | None]:
    """The agent's transcript ``text`` (as kept), the whole file ``path`` read as its session
    when judgekit knows the format (its patch files relative to ``cwd``, the directory the
    agent ran in, where the file records none), and why a file of a known format could not
    be read (the run goes on; the text is kept). A known format's text has its
    secret-looking values redacted here (its keys are known by their fields); any text still
    has the run's named secrets redacted when the result is stored
    (:mod:`judgekit.execute.secrets`)."""
    try:
        found = read_transcripts(path)
    except InputError as exc:
        return SecretScrubber().text(text), None, exc.reason
    if found.unrecognised:
        return text, None, None
    session = found.transcripts[0].model_copy(update={"source": None})
    if cwd is not None:
        session = relative_patch_files(session, cwd=str(cwd))
    return found.scrub(text), session, None


_UNSEEN = ("No such file or directory", "not found", "bad interpreter")
"""What a shell says of a program it cannot find."""


def _hideable(path: Path) -> bool:
    """``path`` lies where the sandbox hides the host: ``/tmp`` or a home directory."""
    places = (HIDDEN_TMP, *home_dirs())
    return any(path == p or p in path.parents for p in places)


def unseen_program(command: str, stderr: str, path_var: str) -> str | None:
    """A hint when the shell inside the sandbox could not run the agent's program, its
    script, or the interpreter a ``#!`` line names, although it is on this machine: the
    sandbox hides it, or its unprivileged user may not read it.

    ``stderr`` is what the agent's shell said; ``path_var`` the agent's ``PATH``. The most
    specific file the shell names wins: an interpreter, then the script, then the program
    (``bash: /x/agent.sh: Permission denied`` is about the script, not bash).
    """
    order = {"interpreter": 0, "script": 1, "program": 2}
    candidates = [(one.word or str(one.path), one)
                  for one in sorted(named_files(command, path_var), key=lambda n: order[n.role])]
    lines = stderr.splitlines()
    for said, one in candidates:
        told = [line for line in lines if said in line]
        if any("Permission denied" in line for line in told):
            verb = "run" if one.runs else "read"
            return (f"{one.path} cannot be {verb} by the sandbox's unprivileged user; "
                    f"{fix(one.path, 'rx' if one.runs else 'r')}")
        if any(word in line for line in told for word in _UNSEEN) and _hideable(one.path):
            return render_options(
                f"{one.path} is not visible inside the sandbox; {{option:agent_bind}} "
                f"{one.path} shows it")
    return None
