"""Agents as shell command templates.

Placeholders ``{prompt_file}``, ``{workspace}``, ``{task_id}``, ``{arm}``,
``{transcript_file}`` and ``{model}`` are replaced by shell-quoted values; other braces are
left alone, so ``awk '{print $1}'`` survives. The agent runs with the workspace as its
working directory, in the attempt's sandbox; its whole process tree ends with it.

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

from judgekit.errors import ConfigError
from judgekit.execute.process import Capture, ProcessOutcome
from judgekit.ingest.models import Cut

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
    transcript_cut: Cut | None = None
    """Set when the transcript was longer than the output cap: its whole size and hash."""


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
    ``JUDGEKIT_TRANSCRIPT``); it is read back after the agent ends.
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
    if transcript_file.is_file() and not transcript_file.is_symlink():
        capture = Capture()  # read in blocks: kept to its head and tail whatever its size
        with open(transcript_file, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                capture.feed(block)
        transcript, cut = capture.text(), capture.cut()
    return AgentRun(command=rendered, outcome=outcome, transcript=transcript,
                    transcript_cut=cut)
