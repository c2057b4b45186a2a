"""No secret of the host reaches a command, a stored file or judgekit's output.

judgekit runs with canary values in provider keys, cloud credentials and tokens, and with a
home directory holding canary credential files; the suite's setup, agent and test commands
print their environment and try to read those files.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from judgekit.execute.sandbox import bwrap_problem
from tests.clirun import judgekit

from .conftest import TEST_CMD, Project, write_suite

needs_bwrap = pytest.mark.skipif(bwrap_problem() is not None,
                                 reason=f"bubblewrap unusable here: {bwrap_problem()}")

ENV_CANARIES = {
    "OPENAI_API_KEY": "sk-canary-openai-4d1f0a7b",
    "ANTHROPIC_API_KEY": "sk-ant-canary-anthropic-91c2",
    "AWS_SECRET_ACCESS_KEY": "canary-aws-secret-77e5b3",
    "GITHUB_TOKEN": "canary-github-token-0b9d61",
}
FILE_CANARIES = {
    ".aws/credentials": "canary-aws-credentials-file-5f3c",
    ".ssh/id_ed25519": "canary-ssh-private-key-8a2e",
}
ALL_CANARIES = [*ENV_CANARIES.values(), *FILE_CANARIES.values()]


@pytest.fixture
def user_home() -> Iterator[Path]:
    """The invoking user's home, outside /tmp (the sandbox's private /tmp hides /tmp)."""
    if not os.access("/var/tmp", os.W_OK):
        pytest.skip("needs a writable /var/tmp for a home outside the private /tmp")
    home = Path(tempfile.mkdtemp(prefix="judgekit-home-", dir="/var/tmp"))
    for rel, value in FILE_CANARIES.items():
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text(value + "\n")
    yield home
    shutil.rmtree(home, ignore_errors=True)


def snoop(home: Path, tag: str) -> str:
    """Print the environment and try the user's credential files."""
    reads = " ".join(f"{home}/{rel} \"$HOME/{rel}\"" for rel in FILE_CANARIES)
    return f"echo {tag}-START; env; cat {reads} 2>&1; echo {tag}-END"


def files_under(*roots: Path) -> Iterator[Path]:
    for root in roots:
        if root.is_file():
            yield root
        for path in root.rglob("*"):
            if path.is_file() and not path.is_symlink():
                yield path


def assert_no_canary(proc: object, *roots: Path) -> None:
    said = proc.stdout + proc.stderr  # type: ignore[attr-defined]
    for canary in ALL_CANARIES:
        assert canary not in said, f"{canary} printed by judgekit"
    for path in files_under(*roots):
        data = path.read_bytes()
        for canary in ALL_CANARIES:
            assert canary.encode() not in data, f"{canary} stored in {path}"


def run(suite: Path, out: Path, home: Path, *extra: object) -> object:
    agent = (f"{{ {snoop(home, 'AGENT')}; }} | tee {{transcript_file}}; "
             "printf %s \"$OPENAI_API_KEY\" | sha256sum; "
             "printf %s \"$OPENAI_API_KEY\" > leaked-key.txt; "
             "sed -i 's/a - b/a + b/' calc/__init__.py")
    return judgekit("run", suite, "--agent", agent, "--out", out, "--mirror-dir",
                    out.parent / "mirrors", *extra, env={**ENV_CANARIES, "HOME": str(home)})


@needs_bwrap
def test_no_secret_of_the_host_reaches_commands_files_or_output(
        project: Project, tmp_path: Path, user_home: Path) -> None:
    suite = write_suite(tmp_path / "s.yaml", project, setup_command=snoop(user_home, "SETUP"),
                        test_command=f"{snoop(user_home, 'TEST')}; {TEST_CMD}")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = out_dir / "run.json"
    proc = run(suite, out, user_home, "--keep-workspaces", "--tmp-dir", str(out_dir))
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(out.read_text())
    (result,) = doc["results"]
    agent_out = result["metadata"]["agent_stdout"]
    assert "AGENT-START" in agent_out and "PATH=" in agent_out
    for name in ENV_CANARIES:
        assert f"{name}=" not in agent_out and f"{name}=" not in result["test"]["output"]
    assert "No such file or directory" in agent_out and "TEST-END" in result["test"]["output"]
    assert hashlib.sha256(b"").hexdigest() in agent_out, "the agent saw no key"
    assert "2 passed" in result["test"]["output"]
    assert Path(result["metadata"]["transcript_file"]).read_text().startswith("AGENT-START")
    assert_no_canary(proc, out_dir)
    setup_log = Path(result["metadata"]["workspace"]) / "logs" / "setup.stdout"
    assert "SETUP-END" in setup_log.read_text()


@needs_bwrap
def test_a_named_key_reaches_the_agent_alone_and_is_redacted_everywhere(
        project: Project, tmp_path: Path, user_home: Path) -> None:
    suite = write_suite(tmp_path / "s.yaml", project,
                        test_command=f"{snoop(user_home, 'TEST')}; {TEST_CMD}")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = out_dir / "run.json"
    proc = run(suite, out, user_home, "--agent-env", "OPENAI_API_KEY",
               "--test-env", "GITHUB_TOKEN")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(out.read_text())
    (result,) = doc["results"]
    agent_out = result["metadata"]["agent_stdout"]
    key = ENV_CANARIES["OPENAI_API_KEY"]
    assert hashlib.sha256(key.encode()).hexdigest() in agent_out, "the agent saw the key"
    assert "OPENAI_API_KEY=[REDACTED:OPENAI_API_KEY]" in agent_out
    assert "GITHUB_TOKEN" not in agent_out and "ANTHROPIC_API_KEY" not in agent_out
    assert "+[REDACTED:OPENAI_API_KEY]" in result["agent_diff"]
    assert "[REDACTED:OPENAI_API_KEY]" in Path(result["metadata"]["transcript_file"]).read_text()
    test_out = result["test"]["output"]
    assert "GITHUB_TOKEN=[REDACTED:GITHUB_TOKEN]" in test_out and "OPENAI_API_KEY" not in test_out
    counts = result["metadata"]["redactions"]
    # the env line in stdout and in the transcript, and the file in the diff
    assert counts == {"OPENAI_API_KEY": 3, "GITHUB_TOKEN": 1}
    assert doc["metadata"]["redactions"] == counts
    assert "redacted" in proc.stderr and "OPENAI_API_KEY" in proc.stderr
    assert_no_canary(proc, out_dir)


@pytest.mark.parametrize("argv", [
    ["--agent-env", "OPENAI_API_KEY=sk-canary", "--no-such-flag"],
    ["--agent-env", "BAD NAME=sk-canary"],
    ["--agent-env", "=sk-canary"],
    ["--test-env", "X=sk-canary", "--sandbox", "sk-canary"],
    ["--agent-env=OPENAI_API_KEY=sk-canary", "--attempts", "many"],
    ["--agent-e", "OPENAI_API_KEY=sk-canary", "--no-such-flag"],
    ["--agent-=OPENAI_API_KEY=sk-canary"],
])
def test_a_value_on_a_bad_command_line_is_never_echoed(argv: list[str], tmp_path: Path,
                                                       suite_file: Path) -> None:
    proc = judgekit("run", suite_file, "--agent", "true", "--out", tmp_path / "r.jsonl", *argv)
    assert proc.returncode == 2
    assert proc.stderr.startswith("judgekit") and len(proc.stderr.strip().splitlines()) == 1
    assert "sk-canary" not in proc.stdout + proc.stderr, proc.stderr
    assert not (tmp_path / "r.jsonl").exists()


@pytest.mark.parametrize("command", [["suite", "verify"], ["score"]])
def test_other_commands_sharing_the_parser_never_echo_a_value(command: list[str],
                                                              suite_file: Path) -> None:
    proc = judgekit(*command, suite_file, "--test-env", "GITHUB_TOKEN=sk-canary",
                    "--agent-env", "BAD NAME=sk-canary", "--no-such-flag")
    assert proc.returncode == 2
    assert "sk-canary" not in proc.stdout + proc.stderr, proc.stderr


def test_a_provider_key_never_appears_in_an_error(tmp_path: Path) -> None:
    """judgekit's own key, echoed back by a bad value, is hidden too."""
    key = ENV_CANARIES["ANTHROPIC_API_KEY"]
    proc = judgekit("score", tmp_path / key, env={"ANTHROPIC_API_KEY": key})
    assert proc.returncode == 2 and "[REDACTED:ANTHROPIC_API_KEY]" in proc.stderr
    assert key not in proc.stdout + proc.stderr


def test_a_variable_named_alone_must_be_set(suite_file: Path, tmp_path: Path) -> None:
    proc = judgekit("run", suite_file, "--agent", "true", "--out", tmp_path / "r.json",
                    "--agent-env", "JUDGEKIT_TEST_UNSET_VARIABLE")
    assert proc.returncode == 2 and "JUDGEKIT_TEST_UNSET_VARIABLE is not set" in proc.stderr
    assert not (tmp_path / "r.json").exists()


@needs_bwrap
def test_suite_verify_passes_test_env_and_redacts_it_from_its_report(
        project: Project, tmp_path: Path) -> None:
    token = ENV_CANARIES["GITHUB_TOKEN"]
    suite = write_suite(tmp_path / "s.yaml", project,
                        setup_command="echo \"error: rejected token $GITHUB_TOKEN\"; exit 1")
    proc = judgekit("suite", "verify", suite, "--json", "--test-env", "GITHUB_TOKEN",
                    "--mirror-dir", tmp_path / "m", env={"GITHUB_TOKEN": token})
    assert proc.returncode == 1, proc.stderr
    (check,) = json.loads(proc.stdout)
    assert any("rejected token [REDACTED:GITHUB_TOKEN]" in p for p in check["problems"])
    assert token not in proc.stdout + proc.stderr


def test_a_short_value_is_not_redacted_and_the_run_says_so(suite_file: Path,
                                                           tmp_path: Path) -> None:
    """``EMPTY`` (a local server's key) would otherwise be replaced in ordinary text."""
    out = tmp_path / "run.json"
    proc = judgekit("run", suite_file, "--agent", "echo EMPTY-KEY-$OPENAI_API_KEY", "--out",
                    out, "--agent-env", "OPENAI_API_KEY=EMPTY", "--mirror-dir", tmp_path / "m")
    assert proc.returncode == 0, proc.stderr
    assert "not redacted" in proc.stderr and "OPENAI_API_KEY" in proc.stderr
    (result,) = json.loads(out.read_text())["results"]
    assert result["metadata"]["agent_stdout"] == "EMPTY-KEY-EMPTY\n"
    assert "redactions" not in result["metadata"]
