"""``judgekit transcript``: ``--json`` written a call at a time is the typed transcript's
JSON exactly; terminal escapes in what the file says are shown escaped, never sent; a
failed call shows its last output lines; arguments print as JSON; mini-swe-agent's submit
step that its interactive agent records as not run is no failed call."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from judgekit.cli.transcript import _view, print_transcripts_json
from judgekit.ingest.transcripts import read_transcript, read_transcripts
from tests.clirun import judgekit

FIXTURES = Path(__file__).parent / "fixtures"
ESC = "\x1b]0;owned\x07\x1b[2J\x9b31m"


@pytest.mark.parametrize("name", ["codex-edit-exec.jsonl", "codex-edit-rollout.jsonl",
                                  "claude-killed-session.jsonl", "mini-killed.traj.json",
                                  "aider-failed-edit.chat.history.md",
                                  "swe-agent-1.1-submitted.traj"])
def test_json_written_in_parts_is_the_transcript_json(name: str) -> None:
    found = read_transcripts(FIXTURES / name).transcripts
    out = io.StringIO()
    print_transcripts_json(found, out)
    whole = [t.model_dump(mode="json") for t in found]
    assert out.getvalue() == json.dumps(whole[0] if len(whole) == 1 else whole, indent=2) + "\n"


def _claude(tmp_path: Path) -> Path:
    meta = {"sessionId": "s1", "cwd": "/w", "version": "2.1.197"}
    lines = [
        {"type": "user", "message": {"role": "user", "content": f"fix {ESC}"}, **meta},
        {"type": "assistant", "message": {"id": "m1", "role": "assistant", "model":
         f"claude{ESC}", "content": [{"type": "tool_use", "id": "t1", "name": f"Ba{ESC}sh",
                                      "input": {"command": f"echo {ESC}"}}]}, **meta},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "is_error": True,
             "content": f"Exit code 2\nfirst\nboom {ESC}"}]}, **meta},
        {"type": "assistant", "message": {"id": "m2", "role": "assistant", "content": [
            {"type": "tool_use", "id": "t2", "name": "Grep",
             "input": {"pattern": "x", "glob": "*.py"}}]}, **meta},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t2", "content": "a.py"}]}, **meta},
        {"type": "assistant", "message": {"id": "m3", "role": "assistant", "content": [
            {"type": "text", "text": f"Done {ESC}"}]}, **meta}]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_the_view_escapes_control_characters_and_shows_failed_output(tmp_path: Path) -> None:
    t = read_transcript(_claude(tmp_path))
    view = _view(t)
    assert "\x1b" not in view and "\x07" not in view and "\x9b" not in view
    assert "\\x1b]0;owned\\x07" in view  # shown, escaped
    lines = view.splitlines()
    assert "(1 failed)" in lines[1]
    failed = next(i for i, line in enumerate(lines) if line.startswith("  ✗"))
    assert "exit 2" in lines[failed] and "echo" in lines[failed]
    assert [line.strip() for line in lines[failed + 1:failed + 3]] == ["Exit code 2", "first"]
    assert lines[failed + 3].strip().startswith("boom")
    # arguments without a command or a path print as JSON, not as a Python dict
    assert '{"glob": "*.py", "pattern": "x"}' in view


def test_no_escape_byte_reaches_the_terminal_either_way(tmp_path: Path) -> None:
    path = _claude(tmp_path)
    for args in ((), ("--json",)):
        proc = judgekit("transcript", path, *args)
        assert proc.returncode == 0, proc.stderr
        assert "\x1b" not in proc.stdout + proc.stderr and "\x9b" not in proc.stdout


def test_the_submit_step_not_run_by_the_interactive_agent_is_not_a_failure(
        tmp_path: Path) -> None:
    """mini-swe-agent's interactive agent (the ``mini`` command) ends the run from inside
    the submit command and records that command's observation as not run, return code -1."""
    submit = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff"

    def call(cid: str, command: str) -> dict[str, object]:
        return {"role": "assistant", "content": "", "extra": {"actions": [
            {"command": command, "tool_call_id": cid}]}, "tool_calls": [
            {"id": cid, "type": "function", "function": {
                "name": "bash", "arguments": json.dumps({"command": command})}}]}

    def seen(cid: str, code: int, out: str, info: str = "") -> dict[str, object]:
        return {"role": "tool", "tool_call_id": cid, "content": out,
                "extra": {"raw_output": out, "returncode": code, "exception_info": info}}

    doc = {"trajectory_format": "mini-swe-agent-1.1",
           "info": {"exit_status": "Submitted", "submission": "",
                    "model_stats": {"instance_cost": 0.0, "api_calls": 2}},
           "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "t"},
                        call("c1", "ls"), seen("c1", 0, "calc.py"),
                        call("c2", submit), seen("c2", -1, "", "action was not executed"),
                        {"role": "exit", "content": "", "extra": {"exit_status": "Submitted",
                                                                  "submission": ""}}]}
    path = tmp_path / "t.traj.json"
    path.write_text(json.dumps(doc))
    t = read_transcript(path)
    assert t.exit_status == "submitted" and t.failed_calls() == []
    assert [c.exit_code for c in t.tool_calls] == [0, None]
    assert "(0 failed)" in _view(t)
