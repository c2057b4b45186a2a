"""Real agent CLIs driven offline: a loopback server of our own (``agentapi.py``) answers
them, and each writes its real session file into the test's directory."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

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
