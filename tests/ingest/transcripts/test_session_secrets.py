"""Secrets in session files: a key the file records in a secret-named field is hidden
wherever else it appears (an agent that echoed it), a redaction never eats the text after
it nor breaks the file's JSON, and other credentials (JWTs, passwords in URLs, private
keys) are hidden too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgekit.errors import InputError
from judgekit.ingest.transcripts import read_transcripts

KEY = "Zq8LmN3pR7tV2wX9yB4cD6fG"  # no provider prefix: found by its field only


def _mini(tmp_path: Path, output: str, command: str = "echo my token is $OPENAI_API_KEY"
          ) -> Path:
    doc = {
        "trajectory_format": "mini-swe-agent-1.1",
        "info": {"exit_status": "Submitted", "submission": "",
                 "model_stats": {"instance_cost": 0.0, "api_calls": 2},
                 "config": {"model": {"model_name": "openai/tiny",
                                      "model_kwargs": {"api_key": KEY}}}},
        "messages": [
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "Fix calc.py."},
            {"role": "assistant", "content": "Let me look.",
             "tool_calls": [{"id": "call_1", "type": "function",
                             "function": {"name": "bash",
                                          "arguments": json.dumps({"command": command})}}]},
            {"role": "tool", "tool_call_id": "call_1",
             "content": json.dumps({"returncode": 0, "output": output}),
             "extra": {"raw_output": output, "returncode": 0}},
            {"role": "assistant", "content": "Done."},
            {"role": "exit", "content": "", "extra": {"exit_status": "Submitted",
                                                      "submission": ""}}]}
    path = tmp_path / "run.traj.json"
    path.write_text(json.dumps(doc, indent=2))
    return path


def test_a_key_the_file_records_is_hidden_where_the_agent_echoed_it(tmp_path: Path) -> None:
    read = read_transcripts(_mini(tmp_path, f"my token is {KEY}\n"))
    t = read.transcripts[0]
    assert t.format == "mini-swe-agent"
    dumped = json.dumps(t.model_dump(mode="json"))
    assert KEY not in dumped and KEY not in read.text
    assert "my token is [redacted]" in (t.tool_calls[0].output or "")
    assert t.redactions >= 2  # its field, and the output that echoed it


def test_a_redaction_keeps_the_lines_after_it_and_the_file_readable(tmp_path: Path) -> None:
    output = f"HOME=/home/u\nOPENAI_API_KEY={KEY}\nLOCAL_KEY=abcdef123456\nAFTER-LINE-kept\n"
    read = read_transcripts(_mini(tmp_path, output, command="env | sort"))
    t = read.transcripts[0]
    assert t.format == "mini-swe-agent" and not read.unrecognised
    out = t.tool_calls[0].output or ""
    assert out.splitlines() == ["HOME=/home/u", "OPENAI_API_KEY=[redacted]",
                                "LOCAL_KEY=[redacted]", "AFTER-LINE-kept"]
    assert KEY not in read.text and "abcdef123456" not in read.text


@pytest.mark.parametrize("secret,shown", [
    ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlLXZhbHVl", "[redacted]"),
    ("postgres://app:s3cretPassw0rd@db.internal:5432/main",
     "postgres://app:[redacted]@db.internal:5432/main"),
    ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
     "-----END OPENSSH PRIVATE KEY-----", "[redacted]"),
])
def test_other_credentials_in_tool_output_are_hidden(tmp_path: Path, secret: str,
                                                     shown: str) -> None:
    read = read_transcripts(_mini(tmp_path, f"found: {secret}\nnext line\n", command="cat x"))
    out = read.transcripts[0].tool_calls[0].output or ""
    assert out.splitlines()[0] == f"found: {shown}"
    assert out.splitlines()[-1] == "next line"
    for part in ("s3cretPassw0rd", "c2lnbmF0dXJlLXZhbHVl", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ"):
        assert part not in read.text


def test_a_cut_json_session_is_malformed_not_unknown(tmp_path: Path) -> None:
    whole = _mini(tmp_path, "ok\n").read_text()
    cut = tmp_path / "cut.traj.json"
    cut.write_text(whole[: len(whole) * 2 // 3])
    with pytest.raises(InputError) as info:
        read_transcripts(cut)
    assert info.value.path == str(cut) and "not valid JSON" in info.value.reason


def test_a_text_log_starting_with_a_bracket_is_kept_as_raw_text(tmp_path: Path) -> None:
    log = tmp_path / "agent.log"
    log.write_text("[INFO] started\n[INFO] done\n")
    read = read_transcripts(log)
    assert read.unrecognised and read.transcripts[0].format == "raw"


def test_the_runner_keeps_the_agent_text_without_the_key_its_session_records(
        tmp_path: Path) -> None:
    from judgekit.execute.agent import read_session

    path = _mini(tmp_path, f"my token is {KEY}\n")
    kept, session, problem = read_session(path, path.read_text())
    assert problem is None and session is not None
    assert KEY not in kept and KEY not in json.dumps(session.model_dump(mode="json"))
