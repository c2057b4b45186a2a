"""Provider keys are hidden by their shape wherever they start: after an escaped newline in
JSON a tool printed, URL-encoded after ``%3D``, glued to a word or to a digit; the same
cases for every provider, in a session file read, shown and scored. Ordinary words that
share a prefix (``task_``, ``skip-``) are kept, and the file stays valid JSON."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from judgekit.ingest.transcripts import read_transcripts
from judgekit.secretscan import SecretScrubber
from tests.clirun import judgekit

#: One key of each provider's shape (made up, of the right length and alphabet).
KEYS = {
    "anthropic": "sk-ant-api03-" + "Qw3rTy7uIo9pAs2dFg4hJk6lZx8cVb1nMq5wEr0tYu" * 2 + "-AbCdAA",
    "openai-project": "sk-proj-" + "Qw3rTy7uIo9pAs2dFg4h_Jk6lZx8cVb1nMq5-wEr0tYu" * 2,
    "openai-legacy": "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",
    "aws": "AKIAQW3RTY7UIO9PAS2D",
    "github": "ghp_Qw3rTy7uIo9pAs2dFg4hJk6lZx8cVb1nMq5w",
    "github-fine-grained": "github_pat_11AQW3RTY0" + "Qw3rTy7uIo9pAs2dFg4h_Jk6lZx8cVb1nMq5wEr0tYu"
                           + "Ab3dEf6hIj9kLmN0pQrS",
    "slack": "xoxb-2048163840123-4096327680456-Qw3rTy7uIo9pAs2dFg4hJk6l",
    "google": "AIzaSyQw3rTy7uIo9pAs2dFg4hJk6lZx8cVb1nM",
    "hugging-face": "hf_Qw3rTy7uIo9pAs2dFg4hJk6lZx8cVb1nMq",
}
#: What may come right before a key: an escaped newline in JSON a tool printed, a
#: URL-encoded ``=``, a letter, a digit.
BEFORE = {"escaped-newline": '{"env": "X=1\\n', "url-encoded": "q=a%3D", "letter": "KEY",
          "digit": "7"}
AFTER = {"escaped-newline": '\\nY=2"}', "url-encoded": "%26b=c", "letter": " next",
         "digit": " next"}


def _mini(tmp_path: Path, output: str) -> Path:
    """A mini-swe-agent trajectory whose one command printed ``output``."""
    doc = {
        "trajectory_format": "mini-swe-agent-1.1",
        "info": {"exit_status": "Submitted", "submission": "",
                 "model_stats": {"instance_cost": 0.0, "api_calls": 1},
                 "config": {"model": {"model_name": "openai/tiny"}}},
        "messages": [
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "Fix calc.py."},
            {"role": "assistant", "content": "Let me look.",
             "tool_calls": [{"id": "call_1", "type": "function", "function": {
                 "name": "bash", "arguments": json.dumps({"command": "cat config.json"})}}]},
            {"role": "tool", "tool_call_id": "call_1",
             "content": json.dumps({"returncode": 0, "output": output}),
             "extra": {"raw_output": output, "returncode": 0}},
            {"role": "assistant", "content": "Done."},
            {"role": "exit", "content": "", "extra": {"exit_status": "Submitted"}}]}
    path = tmp_path / "t.traj.json"
    path.write_text(json.dumps(doc, indent=1))
    return path


@pytest.mark.parametrize("where", list(BEFORE))
@pytest.mark.parametrize("provider", list(KEYS))
def test_a_key_is_hidden_whatever_comes_before_it(tmp_path: Path, provider: str,
                                                  where: str) -> None:
    key = KEYS[provider]
    printed = f"{BEFORE[where]}{key}{AFTER[where]}"
    read = read_transcripts(_mini(tmp_path, f"first\n{printed}\nlast\n"))
    t = read.transcripts[0]
    dumped = t.model_dump_json()
    assert key not in dumped and key not in read.text
    assert key[-12:] not in dumped and key[-12:] not in read.text  # no tail of it either
    out = t.tool_calls[0].output or ""
    # the redaction is the key alone: what came before and after it is kept
    assert out.splitlines()[0] == "first" and out.splitlines()[-1] == "last"
    assert BEFORE[where] in out and AFTER[where] in out and "[redacted]" in out
    assert t.redactions >= 1
    json.loads(read.text)  # the file's text, redacted, is still the JSON it was


@pytest.mark.parametrize("provider", list(KEYS))
def test_a_key_wrapped_in_base64_is_hidden(provider: str) -> None:
    key = KEYS[provider]
    for inner in (f"user:{key}", f"{key}\n", f"ab{key}"):
        wrapped = base64.b64encode(inner.encode()).decode()
        for before in ("Authorization: Basic ", '\\n', "data="):
            out = SecretScrubber().text(f"{before}{wrapped} done")
            assert wrapped not in out and out.endswith(" done"), (inner, before)


@pytest.mark.parametrize("text", [
    "task_12345678901234567890 done", "skip-this-test-please-1234", "the task-runner-abcdefgh",
    "risk-based-approach-v2024", "hf_hub_download(repo_id=x)", "whisk-ant-hill-colony-data",
    "ask-proj-manager-about-it", "disk-usage-report-2024", "AKIAxyz", "mask-generation",
    base64.b64encode(b"Hello world, this is an ordinary test string").decode(),
    "deadbeef" * 10, "x" * 100, "commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f",
])
def test_ordinary_words_are_kept(text: str) -> None:
    scrubber = SecretScrubber()
    assert scrubber.text(text) == text and scrubber.count == 0


def test_an_aws_secret_key_beside_its_id_or_under_its_name_is_hidden() -> None:
    secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYQW3RTY7UIOKEY"[:40]
    for text in (f'{{"id": "{KEYS["aws"]}", "secret": "{secret}"}}',
                 f"aws_secret_access_key%3D{secret}%26x=1",
                 f"X=1\\nAWS_SECRET_ACCESS_KEY={secret}\\n"):
        out = SecretScrubber().text(text)
        assert secret not in out and "[redacted]" in out, text


def test_no_key_reaches_the_output_or_any_file_written(tmp_path: Path) -> None:
    """Every case in one session: ``judgekit transcript`` (both views) and ``score --out``
    with ``--transcripts`` show and write none of the keys."""
    printed = "\n".join(f"{BEFORE[w]}{key}{AFTER[w]}" for key in KEYS.values()
                        for w in BEFORE)
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    _mini(sessions, printed)
    path = sessions / "t.traj.json"
    run = tmp_path / "run.json"
    run.write_text(json.dumps({"results": [{"task": {"id": "t"}, "arm": "a",
                                            "agent_diff": "", "test": {"exit_code": 0}}]}))
    shown = [judgekit("transcript", path), judgekit("transcript", path, "--json")]
    scored = judgekit("score", run, "--transcripts", sessions, "--out", tmp_path / "out",
                      "--no-similarity")
    for proc in (*shown, scored):
        assert proc.returncode == 0, proc.stderr
    written = [p.read_text(errors="replace") for p in (tmp_path / "out").rglob("*")
               if p.is_file()]
    assert written
    for key in KEYS.values():
        for text in (*(p.stdout + p.stderr for p in (*shown, scored)), *written):
            assert key not in text and key[-12:] not in text
