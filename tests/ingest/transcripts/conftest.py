"""Real agent CLIs driven offline: a loopback server of our own (``agentapi.py``) answers
them, and each writes its real session file into the test's directory."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures"
KEY = "sk-canary-9f8e7d6c5b4a3210"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def agent_api(tmp_path: Path) -> Iterator[str]:
    """The loopback server's base URL (no ``/v1``)."""
    port = _free_port()
    proc = subprocess.Popen([sys.executable, str(HERE / "agentapi.py"), str(port)],
                            stderr=(tmp_path / "agentapi.log").open("wb"))
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def cli(name: str) -> str:
    """The path of CLI ``name`` (aider: ``$JUDGEKIT_AIDER`` first, as it lives in a virtual
    environment of its own); when absent the test is skipped, saying how to install it, or
    fails where ``JUDGEKIT_REQUIRE_REAL_MODEL=1`` (set by CI)."""
    own = os.environ.get("JUDGEKIT_AIDER") if name == "aider" else None
    found = own or shutil.which(name) or (
        str(Path(sys.executable).parent / name)
        if (Path(sys.executable).parent / name).is_file() else None)
    if found is None or not Path(found).is_file():
        how = {"mini": "pip install mini-swe-agent==2.4.6 (the realmodel extra)",
               "claude": "npm install -g @anthropic-ai/claude-code@2.1.197",
               "codex": "npm install -g @openai/codex@0.171.0",
               "aider": "pip install aider-chat==0.86.2 in a virtual environment of its "
                        "own, and JUDGEKIT_AIDER=VENV/bin/aider"}[name]
        missing = f"{name} is not installed: {how}"
        if os.environ.get("JUDGEKIT_REQUIRE_REAL_MODEL") == "1":
            pytest.fail(missing)
        pytest.skip(missing)
    return found


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    """A small environment: PATH, a private HOME, and ``extra``; no keys of the host."""
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "LANG": "C.UTF-8"}
    env.update(extra)
    return env


def git_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    (path / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    subprocess.run(["git", "init", "-q"], cwd=path, check=True)
    return path


def older_swe_agent_run() -> dict[str, Any]:
    """A SWE-agent trajectory as its 1.0 releases wrote one for a model without function
    calling: the history's actions carry no ``tool_calls`` (each call is named by the
    action's first word: ``find_file``, ``open``, ``edit``, else ``bash``), and the history
    was last written before the final ``submit`` step, which only ``trajectory`` holds. The
    final message says the bug is fixed."""
    steps = [
        ("I will look for calc.py first.", "find_file calc.py",
         'Found 1 matches for "calc.py" in /repo:\n/repo/calc.py'),
        ("Now I open it.", "open calc.py",
         "[File: /repo/calc.py (2 lines total)]\n1:def add(a, b):\n2:    return a - b"),
        ("add subtracts; it should add.", "edit 2:2\n    return a + b\nend_of_edit",
         "File updated. Please review the changes."),
        ("Check the result.", "python3 -c 'import calc; print(calc.add(2, 3))'", "5"),
        ("The bug is fixed: add(2, 3) returns 5 now. Submitting.", "submit",
         "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n"
         " def add(a, b):\n-    return a - b\n+    return a + b\n"),
    ]
    history: list[dict[str, Any]] = [
        {"role": "system", "content": "You fix bugs with the commands listed below.",
         "agent": "main", "message_type": "system_prompt"},
        {"role": "user", "content": "calc.py: add(2, 3) returns -1, it should return 5.",
         "agent": "main", "message_type": "observation"}]
    for thought, action, observation in steps[:-1]:  # the history stops before submit
        history.append({"role": "assistant", "content": thought, "thought": thought,
                        "action": action, "agent": "main", "message_type": "action"})
        history.append({"role": "user", "content": observation, "agent": "main",
                        "message_type": "observation"})
    return {
        "environment": "main",
        "trajectory": [{"action": action, "observation": observation, "response": thought,
                        "thought": thought, "execution_time": 0.1, "state": {}}
                       for thought, action, observation in steps],
        "history": history,
        "info": {"submission": steps[-1][2], "exit_status": "submitted",
                 "model_stats": {"instance_cost": 0.0131, "tokens_sent": 4210,
                                 "tokens_received": 187, "api_calls": 5}},
        "replay_config": json.dumps({"agent": {"model": {"name": "gpt-4o"}}}),
    }


def write_older_swe_agent_run(path: Path) -> dict[str, Any]:
    """Writes :func:`older_swe_agent_run` to ``path``; returns what it wrote."""
    doc = older_swe_agent_run()
    path.write_text(json.dumps(doc))
    return doc
