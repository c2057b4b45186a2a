"""Session files written by the real agent CLIs, read back as typed transcripts.

Each CLI runs against the loopback server in ``agentapi.py`` (no network): two commands, the
second exiting 1, then a final message claiming the tests pass. The transcript must give
the commands in order with their exit codes, the tokens the server reported, how the
session ended, and no API key.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from judgekit.ingest.transcripts import claims_success, read_transcript
from tests.clirun import judgekit

from .conftest import KEY, clean_env, cli, git_repo

FAIL_CMD = "python3 -c 'import sys; print(\"1 failed\"); sys.exit(1)'"


def _mini(tmp_path: Path, api: str, step_limit: int, out: Path) -> None:
    work = git_repo(tmp_path / "work")
    env = clean_env(tmp_path, MSWEA_CONFIGURED="true", MSWEA_COST_TRACKING="ignore_errors",
                    LITELLM_LOCAL_MODEL_COST_MAP="True")
    proc = subprocess.run(
        [cli("mini"), "-m", "openai/tiny", "-t", "fix add", "--yolo", "--exit-immediately",
         "--cost-limit", "0", "-c", "mini.yaml", "-c", f"model.model_kwargs.api_base={api}/v1",
         "-c", f"model.model_kwargs.api_key={KEY}", "-c", f"agent.step_limit={step_limit}",
         "-o", str(out)], cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert out.is_file(), proc.stdout[-2000:] + proc.stderr[-2000:]
    assert KEY in out.read_text()  # mini-swe-agent writes the key it was given


def test_mini_swe_agent_submitted_run(tmp_path: Path, agent_api: str) -> None:
    out = tmp_path / "t.traj.json"
    _mini(tmp_path, agent_api, 10, out)
    t = read_transcript(out)
    assert t.format == "mini-swe-agent" and t.exit_status == "submitted"
    commands = [c.arguments["command"] for c in t.tool_calls]
    assert commands[1] == FAIL_CMD and "COMPLETE_TASK_AND_SUBMIT" in commands[2]
    assert [c.exit_code for c in t.tool_calls[:2]] == [0, 1]
    assert t.failed_calls() == [1]  # the submit step ended the run: not a failed call
    assert "1 failed" in (t.tool_calls[1].output or "")
    assert t.n_turns == 3 and t.tokens_in == 100 + 101 + 102 and t.tokens_out == 30
    assert t.cost_usd is None  # cost tracking ignored: nothing recorded
    assert claims_success(t.final_message)
    assert KEY not in t.model_dump_json() and t.redactions >= 1
    # scored and audited from its trajectory: the key is in no file judgekit writes
    run = tmp_path / "run.json"
    run.write_text(json.dumps({"results": [{"task": {"id": "t"}, "arm": "mini",
                                            "agent_diff": "", "test": {"exit_code": 1}}]}))
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    out.rename(sessions / "t.traj.json")
    proc = judgekit("score", run, "--transcripts", sessions, "--out", tmp_path / "scored",
                    "--no-similarity")
    assert proc.returncode == 0, proc.stderr
    written = [p for p in (tmp_path / "scored").rglob("*") if p.is_file()]
    assert written and all(KEY not in p.read_text(errors="replace") for p in written)
    summary = json.loads((tmp_path / "scored" / "summary.json").read_text())
    stats = summary["arms"]["mini"]["transcripts"]
    assert stats["n_redactions"] >= 1 and stats["n_claimed_unverified"] == 1


def test_mini_swe_agent_step_limit_run(tmp_path: Path, agent_api: str) -> None:
    out = tmp_path / "t.traj.json"
    _mini(tmp_path, agent_api, 2, out)
    proc = judgekit("transcript", out, "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["exit_status"] == "limits_exceeded" and data["limit"] == "steps"
    assert [c["exit_code"] for c in data["tool_calls"]] == [0, 1]
    assert KEY not in proc.stdout + proc.stderr


def test_claude_code_session_and_stream(tmp_path: Path, agent_api: str) -> None:
    work = git_repo(tmp_path / "work")
    home = tmp_path / "home"
    home.mkdir()
    env = clean_env(home, ANTHROPIC_BASE_URL=agent_api, ANTHROPIC_API_KEY=KEY,
                    DISABLE_TELEMETRY="1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
    stream = tmp_path / "stream.jsonl"
    with stream.open("w") as fh:
        proc = subprocess.run(
            [cli("claude"), "-p", "make a test and run it", "--permission-mode", "acceptEdits",
             "--allowedTools", "Read,Edit,Bash", "--output-format", "stream-json", "--verbose",
             "--model", "claude-sonnet-4-5"], cwd=work, env=env, stdout=fh,
            stderr=subprocess.PIPE, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (session,) = (home / ".claude" / "projects").glob("*/*.jsonl")
    for path in (stream, session):
        t = read_transcript(path)
        assert t.format == "claude-code" and t.exit_status == "completed", path
        assert [c.name for c in t.tool_calls] == ["Bash", "Bash"]
        assert t.tool_calls[1].arguments["command"] == FAIL_CMD
        assert t.tool_calls[1].error and not t.tool_calls[0].error
        assert t.n_turns == 3 and t.tokens_out == 33 and t.cache_read_tokens == 21
        assert claims_success(t.final_message) and t.model == "claude-sonnet-4-5"
        assert KEY not in t.model_dump_json()
    streamed = read_transcript(stream)
    assert streamed.cost_usd is not None  # the stream's result records it, per model too
    assert set(streamed.model_usage) == {"claude-sonnet-4-5"}
    assert streamed.model_usage["claude-sonnet-4-5"].tokens_out == 33
    assert streamed.model_usage["claude-sonnet-4-5"].cost_usd == streamed.cost_usd
    # 2.1.197 writes no cost-state line into a session file run with -p: no cost recorded
    assert '"cost-state"' not in session.read_text()
    assert read_transcript(session).cost_usd is None


def test_codex_rollout_and_exec_json(tmp_path: Path, agent_api: str) -> None:
    work = git_repo(tmp_path / "work")
    home = tmp_path / "codex-home"
    home.mkdir()
    (home / "config.toml").write_text(
        'model = "gpt-5.5"\nmodel_provider = "local"\n\n[model_providers.local]\n'
        f'name = "local"\nbase_url = "{agent_api}/v1"\nenv_key = "LOCAL_KEY"\n'
        'wire_api = "responses"\n')
    env = clean_env(home, CODEX_HOME=str(home), LOCAL_KEY=KEY)
    events = tmp_path / "exec.jsonl"
    with events.open("w") as fh:
        proc = subprocess.run(
            [cli("codex"), "exec", "--json", "--skip-git-repo-check", "--sandbox",
             "danger-full-access", "make a test and run it"], cwd=work, env=env, stdout=fh,
            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (rollout,) = (home / "sessions").glob("*/*/*/rollout-*.jsonl")
    for path in (rollout, events):
        t = read_transcript(path)
        assert t.format == "codex" and t.exit_status == "completed", path
        shell = [c for c in t.tool_calls if c.name != "apply_patch"]
        assert [c.arguments["command"] for c in shell][1] == FAIL_CMD
        assert [c.exit_code for c in shell] == [0, 1]
        assert "apply_patch" in [c.name for c in t.tool_calls]
        # the file its apply_patch added: the stream names it by its absolute path
        assert t.patch_files == (["hello.py"] if path == rollout else [str(work / "hello.py")])
        assert t.tokens_out == 44 and t.cache_read_tokens == 20 and t.cost_usd is None
        assert claims_success(t.final_message)
    assert read_transcript(rollout).model == "gpt-5.5"


def test_aider_chat_history_and_llm_history(tmp_path: Path, agent_api: str) -> None:
    """aider edits ``calc.py`` with one search/replace block and commits it; both files it
    writes are read back. A proxy that answers nothing stands for the network: aider's
    only requests go to the loopback server (its price list comes from a metadata file)."""
    work = git_repo(tmp_path / "work")
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[user]\n\tname = t\n\temail = t@example.com\n")
    subprocess.run(["git", "add", "calc.py"], cwd=work, env=clean_env(home), check=True)
    subprocess.run(["git", "commit", "-qm", "add"], cwd=work, env=clean_env(home), check=True)
    prices = tmp_path / "models.json"
    prices.write_text(json.dumps({"openai/tiny": {
        "max_input_tokens": 8192, "max_output_tokens": 1024, "litellm_provider": "openai",
        "mode": "chat", "input_cost_per_token": 2.5e-5, "output_cost_per_token": 2.5e-4}}))
    dead = "http://127.0.0.1:9"
    env = clean_env(home, OPENAI_API_KEY=KEY, HTTP_PROXY=dead, HTTPS_PROXY=dead,
                    ALL_PROXY=dead, NO_PROXY="127.0.0.1,localhost",
                    LITELLM_LOCAL_MODEL_COST_MAP="True")
    llm_log = tmp_path / "llm-history.txt"
    proc = subprocess.run(
        [cli("aider"), "--model", "openai/tiny", "--openai-api-base", f"{agent_api}/v1",
         "--model-metadata-file", str(prices), "--no-check-update", "--no-show-release-notes",
         "--no-analytics", "--yes-always", "--no-pretty", "--no-fancy-input", "--no-stream",
         "--edit-format", "diff", "--llm-history-file", str(llm_log),
         "--message", "fix add in calc.py", "calc.py"],
        cwd=work, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL,
        timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "proxy" not in (proc.stdout + proc.stderr).lower()  # nothing tried the network
    assert (work / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    edit = {"path": "calc.py", "edits": [{"search": "    return a - b\n",
                                          "replace": "    return a + b\n"}]}
    history = work / ".aider.chat.history.md"
    for path in (history, llm_log):
        proc = judgekit("transcript", path, "--json")
        assert proc.returncode == 0, proc.stderr
        data = json.loads(proc.stdout)
        assert data["format"] == "aider" and data["exit_status"] == "completed", path
        assert [(t["role"], t["text"]) for t in data["turns"] if t["role"] != "system"][:1] \
            == [("user", "fix add in calc.py")]
        assert data["n_turns"] == 1 and "<<<<<<< SEARCH" in data["final_message"]
        assert [(c["name"], c["arguments"]) for c in data["tool_calls"]] == [("edit", edit)]
        assert KEY not in proc.stdout
    chat = read_transcript(history)
    # "Tokens: 1.2k sent, 40 received. Cost: $0.04 message, $0.04 session."
    assert (chat.tokens_in, chat.tokens_out, chat.cost_usd) == (1200, 40, 0.04)
    assert chat.patch_files == ["calc.py"] and chat.model == "openai/tiny"
    logged = read_transcript(llm_log)
    assert logged.turns[0].role == "system" and "<<<<<<< SEARCH" in logged.turns[0].text
    # the log holds no usage, and not whether an edit applied
    assert (logged.tokens_in, logged.tokens_out, logged.cost_usd) == (None, None, None)
    assert logged.patch_files == []
