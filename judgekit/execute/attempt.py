"""One attempt of one arm on one task, from fresh checkout to recorded result.

Steps: check out the fix's parent, run the setup command, retrieve context (context arms
only), write the prompt, run the agent, take its diff, add the fix's test files, run the
test command. Harness failures (checkout, setup, missing agent) are recorded in the
result's ``harness_status`` instead of raising, so one broken task never stops a run.

Setup, agent and test commands run in the attempt's sandbox (:mod:`judgekit.execute.sandbox`):
setup with network (it installs dependencies), the agent with network only when
``agent_network`` is set, the tests never. Each starts from a clean environment
(:mod:`judgekit.execute.environment`) plus the task's variables and those given for it; the
agent alone gets its read-only binds and its seeded home. The values of secret variables are
redacted from the result (:mod:`judgekit.execute.secrets`).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from judgekit.diffs import DEFAULT_INFRA_PATHS, is_excluded, split_excluded, strip_paths
from judgekit.errors import RunnerError
from judgekit.execute.agent import AgentCommand, run_agent
from judgekit.execute.context import ContextSource
from judgekit.execute.environment import CommandEnv, clean_environment
from judgekit.execute.hostview import current_view
from judgekit.execute.named import shown_for
from judgekit.execute.process import ProcessOutcome, run_shell
from judgekit.execute.prompt import render_prompt
from judgekit.execute.sandbox import Limits, NoSandbox, Sandbox, SandboxSpec
from judgekit.engine.redact import Redactor
from judgekit.execute.secrets import redact_files, redactor_for
from judgekit.ingest.suites import SuiteTask
from judgekit.execute.workspace import FixCommit, Workspace
from judgekit.ingest.models import Cut, RunResult, TestResult

DEFAULT_COMMAND_TIMEOUT_S = 3600.0
"""Limit for a task's setup and test commands when the task sets no ``timeout_s``."""

_TAIL = 20_000


@dataclass
class AttemptSettings:
    """Everything an attempt needs besides the task."""

    agent: AgentCommand
    agent_timeout_s: float | None = 1800.0
    model: str | None = None
    run_id: str | None = None
    context: ContextSource | None = None
    context_max_tokens: int = 4000
    tmp_dir: str | None = None
    depth: int | None = None
    keep_workspace: bool = False
    infra_paths: tuple[str, ...] = DEFAULT_INFRA_PATHS
    metadata: dict[str, object] = field(default_factory=dict)
    sandbox: Sandbox = field(default_factory=NoSandbox)
    limits: Limits = field(default_factory=Limits)
    agent_network: bool = False
    hidden: tuple[str, ...] = ()
    """Paths no command may see (the mirror cache); the source repository is always hidden."""
    cancel: threading.Event | None = None
    env: CommandEnv = field(default_factory=CommandEnv)
    """Variables given to the agent, and to setup and test commands."""
    agent_binds: tuple[tuple[str, str], ...] = ()
    """``(source, destination)`` shown read-only to the agent."""
    agent_home: str | None = None
    """A directory copied into the private HOME before the agent starts."""

    def spec(self, ws: Workspace, *, network: bool, agent: bool = False,
             command: str | None = None, path_var: str = "") -> SandboxSpec:
        """What a command of this attempt may touch; ``command`` (run with the ``PATH``
        ``path_var``) also sees the host files it names (:mod:`judgekit.execute.named`)."""
        hidden = [str(ws.fix.source), *self.hidden]
        if ws.root.parent != Path("/"):
            hidden.append(str(ws.root.parent))  # other workspaces
        binds = tuple((Path(s), Path(d)) for s, d in self.agent_binds) if agent else ()
        shown = shown_for(command, path_var) if command is not None else ()
        return SandboxSpec(writable=(ws.path, ws.io), hidden=tuple(Path(h) for h in hidden),
                           home=ws.home, network=network, limits=self.limits, binds=binds,
                           shown=shown, agent=agent, tmp=ws.tmp)

    def redactor(self) -> Redactor:
        """A fresh redactor of the given secret variables and judgekit's provider keys."""
        return redactor_for(self.env)

    def environment(self, task_env: Mapping[str, str], *, agent: bool) -> dict[str, str]:
        """A command's environment: clean, the task's variables, then the given ones."""
        site = None if agent else current_view().user_site
        env = clean_environment(os.environ, user_site=site)
        env.update(task_env)
        env.update(self.env.agent if agent else self.env.test)
        return env

    def shell(self, command: str, ws: Workspace, *, log_name: str, timeout: float | None,
              network: bool, env: dict[str, str], agent: bool = False) -> ProcessOutcome:
        """Run one command of this attempt in its sandbox with the environment ``env``."""
        return run_shell(command, cwd=ws.path, timeout=timeout, env=env, log_dir=ws.logs,
                         log_name=log_name, sandbox=self.sandbox,
                         spec=self.spec(ws, network=network, agent=agent, command=command,
                                        path_var=env.get("PATH", "")),
                         cancel=self.cancel)


def _tail(text: str) -> str:
    return text if len(text) <= _TAIL else text[-_TAIL:]


def _note_cut(result: RunResult, name: str, cut: Cut) -> None:
    result.truncated = {**(result.truncated or {}), name: cut}


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _kept_tail(result: RunResult, name: str, text: str, cut: Cut | None) -> str:
    """The end of a stream's ``text`` stored in the result's field ``name``; a cut (by the
    capture, ``cut``, or here) is noted in the result's ``truncated``."""
    tail = _tail(text)
    if cut is None and tail is text:
        return tail
    whole = cut or Cut(bytes=len(_utf8(text)), kept=0,
                       sha256=hashlib.sha256(_utf8(text)).hexdigest())
    _note_cut(result, name, Cut(bytes=whole.bytes, kept=len(_utf8(tail)), sha256=whole.sha256))
    return tail


def output_cut(out: ProcessOutcome) -> Cut | None:
    """How a command's combined output (:attr:`ProcessOutcome.output`) was cut, if it was:
    the streams' whole size; the hash of the stream cut, when the other was empty."""
    if out.stdout_cut is None and out.stderr_cut is None:
        return None
    whole = sum(c.bytes if c is not None else len(_utf8(t))
                for c, t in ((out.stdout_cut, out.stdout), (out.stderr_cut, out.stderr)))
    alone = (out.stdout_cut if not out.stderr else out.stderr_cut if not out.stdout else None)
    return Cut(bytes=whole, kept=len(_utf8(out.output)),
               sha256=alone.sha256 if alone is not None else None)


def _gist(output: str) -> str:
    """The most telling line of a failed command's output: its first error, else its last."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for pattern in (r"^(fatal|error)\b", r"\berror\b|not found|No such"):
        hits = [line for line in lines if re.search(pattern, line, re.I)]
        if hits:
            return hits[0][:300]
    return (lines or [""])[-1][:300]


def _command_failed(outcome: ProcessOutcome) -> bool:
    return outcome.timed_out or outcome.exit_code != 0


def prepare(task: SuiteTask, fix: FixCommit, settings: AttemptSettings) -> Workspace:
    """A fresh workspace at the parent with the setup command run and frozen."""
    ws = Workspace.create(fix, tmp_dir=settings.tmp_dir, depth=settings.depth)
    try:
        if task.setup_command:
            out = settings.shell(task.setup_command, ws, log_name="setup", network=True,
                                 timeout=task.timeout_s or DEFAULT_COMMAND_TIMEOUT_S,
                                 env=settings.environment(task.env, agent=False))
            if _command_failed(out):
                why = "timed out" if out.timed_out else f"exited with {out.exit_code}"
                gist = _gist(out.output)
                raise RunnerError(f"setup command {why}" + (f": {gist}" if gist else ""))
        ws.freeze_setup()
    except BaseException:
        ws.cleanup()
        raise
    return ws


def run_tests(task: SuiteTask, ws: Workspace, fix: FixCommit, settings: AttemptSettings, *,
              with_fix: bool = False, result: RunResult | None = None) -> TestResult:
    """Add the fix's test files (and its source changes if ``with_fix``), run the tests.

    The test command runs in the sandbox without network. A cut of its output is noted in
    ``result`` (``test.output``), when given.
    """
    source_files, test_files = fix.split_files(task.test_files)
    paths = test_files + (source_files if with_fix else [])
    ws.apply(fix.patch(paths), paths)
    ws.drop_bytecode([*paths, *ws.changed_paths()])
    out = settings.shell(task.test_command, ws, log_name="test-fix" if with_fix else "test",
                         network=False, timeout=task.timeout_s or DEFAULT_COMMAND_TIMEOUT_S,
                         env=settings.environment(task.env, agent=False))
    cut = output_cut(out)
    if cut is not None and result is not None:
        _note_cut(result, "test.output", cut)
    return TestResult(exit_code=out.exit_code, output=out.output, timed_out=out.timed_out)


def run_attempt(task: SuiteTask, fix: FixCommit | None, arm: str, attempt: int,
                settings: AttemptSettings, resolve_error: str | None = None) -> RunResult:
    """Run one attempt and return its result (never raises :class:`RunnerError`)."""
    started = time.monotonic()
    result = RunResult(task=task.to_task(), arm=arm, attempt=attempt, run_id=settings.run_id,
                       model=settings.model, sandbox=settings.sandbox.name,
                       timestamp=datetime.now(timezone.utc).isoformat(timespec="seconds"),
                       metadata=dict(settings.metadata))
    if fix is None:
        result.harness_status, result.harness_error = "checkout_failed", resolve_error
        return result
    result.ground_truth_diff = strip_paths(fix.diff, settings.infra_paths)
    result.metadata.update(parent=fix.parent)
    try:
        ws = prepare(task, fix, settings)
    except RunnerError as exc:
        result.harness_status, result.harness_error = "setup_failed", str(exc)
        return result
    from judgekit.execute.history import HISTORY_KEY, workspace_history

    result.metadata[HISTORY_KEY] = workspace_history(ws.path, fix.commit)
    try:
        _agent_and_tests(task, fix, ws, arm, result, settings)
    except RunnerError as exc:
        result.harness_status, result.harness_error = "runner_error", str(exc)
    finally:
        result.metadata["total_duration_s"] = round(time.monotonic() - started, 3)
        if settings.keep_workspace:
            result.metadata["workspace"] = str(ws.root)
            redact_files(ws.kept_outputs(), settings.redactor())
        else:
            ws.cleanup()
    return result


def seed_home(source: str | Path, home: Path) -> None:
    """Copy the directory ``source`` into the private ``home`` (links copied as links)."""
    try:
        shutil.copytree(source, home, symlinks=True, dirs_exist_ok=True)
    except (OSError, shutil.Error) as exc:
        raise RunnerError(f"copying the agent's home {source}: {exc}") from None


def _agent_and_tests(task: SuiteTask, fix: FixCommit, ws: Workspace, arm: str,
                     result: RunResult, settings: AttemptSettings) -> None:
    context_text = None
    if settings.context is not None:
        block = settings.context.context(ws.path, task.description,
                                         max_tokens=settings.context_max_tokens)
        context_text, result.injected_files = block.text, list(block.files)
        result.metadata["context_provider"] = settings.context.name
        result.metadata.update(block.stats)
    prompt_file = ws.io / "prompt.md"
    prompt_file.write_text(render_prompt(task, context_text), encoding="utf-8")
    if settings.agent_home:
        seed_home(settings.agent_home, ws.home)
    run = run_agent(settings.agent, ws=ws, prompt_file=prompt_file, task_id=task.id, arm=arm,
                    settings=settings, env=settings.environment(task.env, agent=True))
    out = run.outcome
    result.duration_s = out.duration_s
    result.transcript = run.transcript
    result.session = run.session
    if run.transcript_problem:
        result.metadata["transcript_unreadable"] = run.transcript_problem
    if run.transcript_cut is not None:
        _note_cut(result, "transcript", run.transcript_cut)
    result.metadata.update(agent_command=run.command, agent_exit_code=out.exit_code,
                           agent_timed_out=out.timed_out,
                           agent_stdout=_kept_tail(result, "metadata.agent_stdout", out.stdout,
                                                   out.stdout_cut),
                           agent_stderr=_kept_tail(result, "metadata.agent_stderr", out.stderr,
                                                   out.stderr_cut))
    if out.exit_code in (126, 127):
        result.harness_status = "agent_not_started"
        result.harness_error = f"agent command exited {out.exit_code}: " + _tail(out.stderr)[-300:]
        if run.hint:
            result.harness_error = f"{run.hint} ({result.harness_error.rstrip()})"
    diff, capture = ws.diff_capped()
    result.agent_diff, left_out = split_excluded(diff, settings.infra_paths)
    cut = capture.cut()
    if cut is not None:  # the files come from git, not from the diff's head and tail
        _note_cut(result, "agent_diff", cut)
        result.agent_files = [p for p in ws.changed_paths()
                              if not is_excluded(p, settings.infra_paths)]
    hidden = [p for p in ws.ignored() if is_excluded(p, settings.infra_paths)]
    result.files_excluded = sorted({*left_out, *hidden})  # listed, never dropped silently
    result.test = run_tests(task, ws, fix, settings, result=result)
