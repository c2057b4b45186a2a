"""The runner's guarantee: the agent's workspace holds the base's history only; no git
command run in the sandbox reaches the fix commit, and each result says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgekit.execute import Bwrap, MirrorCache, Workspace, run_shell
from judgekit.execute.agent import AgentCommand
from judgekit.execute.attempt import AttemptSettings
from judgekit.execute.history import BASE_ONLY, FIX_REACHABLE, workspace_history
from judgekit.execute.sandbox import bwrap_problem
from judgekit.ingest.suites import RepoSource

from .conftest import Project

#: every way a git command could show another commit
COMMANDS = ("git log --all --format=%H", "git rev-list --all --reflog", "git reflog --all",
            "git fsck --unreachable --no-reflogs 2>&1", "git for-each-ref",
            "git branch -a", "git tag", "git stash list",
            "git show {fix} >/dev/null 2>&1 && echo REACHED",
            "git cat-file -e {fix} 2>/dev/null && echo REACHED",
            "git fetch --all 2>&1", "git remote -v",
            "cat .git/packed-refs 2>&1", "ls -R .git/refs", "git count-objects -v",
            "git log --all --oneline --graph", "git show-ref 2>&1")


@pytest.fixture
def workspace(project: Project, tmp_path: Path):
    fix = MirrorCache(tmp_path / "mirrors").resolve(RepoSource(str(project.path), True),
                                                    project.fix[:10])
    ws = Workspace.create(fix, tmp_dir=tmp_path)
    yield ws
    ws.cleanup()


def test_the_workspace_history_is_checked_and_recorded_as_base_only(workspace,
                                                                      project) -> None:
    assert workspace_history(workspace.path, project.fix) == BASE_ONLY
    # the check is real: the source repository does hold the fix
    assert workspace_history(project.path, project.fix) == FIX_REACHABLE


@pytest.mark.skipif(bwrap_problem() is not None, reason=f"bubblewrap unusable here: "
                                                       f"{bwrap_problem()}")
def test_no_git_command_in_the_sandbox_reaches_the_fix(workspace, project) -> None:
    settings = AttemptSettings(agent=AgentCommand("true"))
    spec = settings.spec(workspace, network=False, agent=True)
    script = "; ".join(c.format(fix=project.fix) for c in COMMANDS)
    out = run_shell(script, cwd=workspace.path, timeout=120, sandbox=Bwrap(), spec=spec)
    assert project.parent in out.output  # the commands ran and see the base
    assert "REACHED" not in out.output
    assert project.fix not in out.output and project.fix[:7] not in out.output.replace(
        project.parent, "")
