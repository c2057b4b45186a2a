"""One Codex CLI run, read from both files it wrote (fixtures: its rollout and the
``codex exec --json`` stream): the same commands, outputs, exit codes and patch files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from judgekit.ingest.transcripts import read_transcript

from .conftest import FIXTURES

ROLLOUT = FIXTURES / "codex-edit-rollout.jsonl"
EXEC = FIXTURES / "codex-edit-exec.jsonl"
CWD = "/home/user/calc"  # where the run was made (the rollout records it)


def _shell(path: Path) -> list[tuple[str, str | None, int | None]]:
    t = read_transcript(path)
    return [(str(c.arguments.get("command")), c.output, c.exit_code)
            for c in t.tool_calls if c.name != "apply_patch"]


def test_rollout_and_exec_stream_give_the_same_tool_outputs() -> None:
    rollout, stream = _shell(ROLLOUT), _shell(EXEC)
    assert [c for c, _, _ in rollout] == [c for c, _, _ in stream]
    assert [code for _, _, code in rollout] == [code for _, _, code in stream] == [1, 0, 0, 1]
    # the rollout's "Chunk ID / Wall time / ... / Output:" header is not the command's output
    assert rollout[0][1] == stream[0][1] == "cat: does_not_exist.txt: No such file or directory\n"
    assert rollout[1][1] == stream[1][1]
    assert not any(out and out.startswith("Chunk ID:") for _, out, _ in rollout)
    patch = [c for c in read_transcript(ROLLOUT).tool_calls if c.name == "apply_patch"][0]
    assert patch.output == "Success. Updated the following files:\nM calc.py\n"


def test_patch_files_are_relative_to_the_sessions_working_directory(tmp_path: Path) -> None:
    assert read_transcript(ROLLOUT).patch_files == ["calc.py"]
    # the exec stream records no working directory: its files are absolute there ...
    assert read_transcript(EXEC).patch_files == [f"{CWD}/calc.py"]
    # ... and relative once the run gives it: judgekit run's workspace
    from judgekit.execute.agent import read_session

    _, session, _ = read_session(EXEC, EXEC.read_text(), cwd=Path(CWD))
    assert session is not None and session.patch_files == ["calc.py"]
    # or a run file's result, by the files of its diff
    shutil.copy(EXEC, tmp_path / "codex.jsonl")
    run = tmp_path / "run.json"
    run.write_text(json.dumps({"results": [{
        "task": {"id": "t1"}, "arm": "codex",
        "agent_diff": "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n"
                      "@@ -1 +1 @@\n-a\n+b\n",
        "metadata": {"transcript_file": "codex.jsonl"}}]}))
    from judgekit.ingest.load import load_runs

    (result,) = load_runs(run)
    assert result.session is not None and result.session.patch_files == ["calc.py"]


def test_a_command_the_exec_stream_saw_start_but_not_end_is_a_call() -> None:
    # the model's final message came while `sleep 60` still ran; the stream never ended it
    t = read_transcript(FIXTURES / "codex-killed-exec.jsonl")
    assert [(c.arguments["command"], c.output, c.exit_code) for c in t.tool_calls] == [
        ("sleep 60", None, None)]
    assert t.turns[0].tool_calls == [0]
