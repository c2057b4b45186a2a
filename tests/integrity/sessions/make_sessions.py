"""Record the integrity fixtures: real Claude Code, Codex CLI and mini-swe-agent sessions,
each driven offline by the scripted loopback server (``scriptapi.py``) through one scenario
of ``scenarios.json`` on a small git repository (``calc.py``, ``tests/test_calc.py``,
``run_tests.sh``; a branch ``fix`` holds the fix), then the run file ``run.jsonl``: one
result per agent and scenario, its patch (``git diff`` of the workspace), the test
command's outcome after the agent, and its session file (``metadata.transcript_file``).

Session files are trimmed: strings over 300 characters that name nothing of the run (the
agents' own instructions, skill listings) replaced by a placeholder, others over 1,500
characters cut to their head, the workspace rewritten to
``/home/user/calc``, the home directory to ``/home/user``, the port to 8000.

    python tests/integrity/sessions/make_sessions.py [AGENT ...]   # claude codex mini
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
KEY = "sk-canary-9f8e7d6c5b4a3210"
CUT = 1500
#: longer strings that name nothing of the run (the agents' own instructions and skill
#: listings) are replaced by a placeholder
OWN = 300
OURS = ("calc", "pytest", "passed", "failed", "run_tests")
PLACEHOLDER = "(the agent's own text, left out)"

CALC = "def add(a, b):\n    return a - b\n\n\ndef neg(a):\n    return -a\n"
FIXED = CALC.replace("a - b", "a + b")
TESTS = ("import pytest\n\nfrom calc import add, neg\n\n\ndef test_add():\n"
         "    assert add(2, 3) == 5\n\n\ndef test_neg():\n    assert neg(4) == -4\n")
RUN_TESTS = "#!/bin/sh\ncd \"$(dirname \"$0\")\" && python -m pytest -q tests\n"
TASK = ("add(2, 3) returns -1 in calc.py; it should return 5. Fix it; the tests run with "
        "sh run_tests.sh.")
GIT_ENV = {"GIT_AUTHOR_NAME": "dev", "GIT_AUTHOR_EMAIL": "dev@example.com",
           "GIT_COMMITTER_NAME": "dev", "GIT_COMMITTER_EMAIL": "dev@example.com"}


def _git(work: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=work, check=True, capture_output=True,
                          text=True, env={**os.environ, **GIT_ENV}).stdout


def make_repo(work: Path) -> str:
    """The workspace at the base commit, with a ``fix`` branch beside it; the fix's diff."""
    (work / "tests").mkdir(parents=True)
    (work / "calc.py").write_text(CALC)
    (work / "tests" / "test_calc.py").write_text(TESTS)
    (work / "run_tests.sh").write_text(RUN_TESTS)
    _git(work, "init", "-q", "-b", "main")
    _git(work, "add", "-A")
    _git(work, "commit", "-qm", "calc")
    _git(work, "checkout", "-qb", "fix")
    (work / "calc.py").write_text(FIXED)
    _git(work, "commit", "-qam", "fix add")
    fix = _git(work, "diff", "main", "fix")
    _git(work, "checkout", "-q", "main")
    return fix


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _env(home: Path, **extra: str) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "LANG": "C.UTF-8",
            **GIT_ENV, **extra}


def run_claude(work: Path, home: Path, api: str) -> Path:
    subprocess.run(["claude", "-p", TASK, "--permission-mode", "acceptEdits",
                    "--allowedTools", "Read,Edit,Bash", "--output-format", "stream-json",
                    "--verbose", "--model", "claude-sonnet-4-5"], cwd=work,
                   env=_env(home, ANTHROPIC_BASE_URL=api, ANTHROPIC_API_KEY=KEY,
                            DISABLE_TELEMETRY="1",
                            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1"),
                   capture_output=True, text=True, timeout=300, check=True)
    (session,) = (home / ".claude" / "projects").glob("*/*.jsonl")
    return session


def run_codex(work: Path, home: Path, api: str) -> Path:
    codex_home = home / "codex"
    codex_home.mkdir()
    (codex_home / "config.toml").write_text(
        'model = "gpt-5.5"\nmodel_provider = "local"\n\n[model_providers.local]\n'
        f'name = "local"\nbase_url = "{api}/v1"\nenv_key = "LOCAL_KEY"\n'
        'wire_api = "responses"\n')
    subprocess.run(["codex", "exec", "--json", "--skip-git-repo-check", "--sandbox",
                    "danger-full-access", TASK], cwd=work,
                   env=_env(home, CODEX_HOME=str(codex_home), LOCAL_KEY=KEY),
                   capture_output=True, text=True, timeout=300, check=True,
                   stdin=subprocess.DEVNULL)
    (rollout,) = (codex_home / "sessions").glob("*/*/*/rollout-*.jsonl")
    return rollout


def run_mini(work: Path, home: Path, api: str) -> Path:
    out = home / "mini.traj.json"
    subprocess.run([shutil.which("mini") or "mini", "-m", "openai/tiny", "-t", TASK,
                    "--yolo", "--exit-immediately", "--cost-limit", "0", "-c", "mini.yaml",
                    "-c", f"model.model_kwargs.api_base={api}/v1",
                    "-c", f"model.model_kwargs.api_key={KEY}", "-c", "agent.step_limit=20",
                    "-o", str(out)], cwd=work,
                   env=_env(home, MSWEA_CONFIGURED="true",
                            MSWEA_COST_TRACKING="ignore_errors",
                            LITELLM_LOCAL_MODEL_COST_MAP="True"),
                   capture_output=True, text=True, timeout=300)
    if not out.is_file():
        raise RuntimeError("mini wrote no trajectory")
    return out


AGENTS = {"claude": (run_claude, ".jsonl"), "codex": (run_codex, ".jsonl"),
          "mini": (run_mini, ".traj.json")}


def _trim(value: Any, rewrite: list[tuple[str, str]]) -> Any:
    if isinstance(value, str):
        for old, new in rewrite:
            value = value.replace(old, new)
        value = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:8000", value)
        if len(value) > OWN and not any(w in value for w in OURS):
            return PLACEHOLDER  # the agent's own prose (instructions, skills), not the run
        return value if len(value) <= CUT else value[:CUT] + " …(cut)"
    if isinstance(value, dict):
        return {k: _trim(v, rewrite) for k, v in value.items()}
    if isinstance(value, list):
        return [_trim(v, rewrite) for v in value]
    return value


def trim(path: Path, dest: Path, rewrite: list[tuple[str, str]]) -> None:
    text = path.read_text(encoding="utf-8")
    if path.name.endswith(".jsonl"):
        lines = [json.dumps(_trim(json.loads(x), rewrite)) for x in text.splitlines()
                 if x.strip()]
        dest.write_text("\n".join(lines) + "\n", encoding="utf-8")
    else:
        dest.write_text(json.dumps(_trim(json.loads(text), rewrite), indent=1) + "\n",
                        encoding="utf-8")


def record(agent: str, name: str, scenario: dict[str, Any]) -> dict[str, Any]:
    run, suffix = AGENTS[agent]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        work, home = root / "calc", root / "home"
        home.mkdir()
        fix = make_repo(work)
        spec = root / "scenario.json"
        spec.write_text(json.dumps(scenario))
        port = _port()
        server = subprocess.Popen([sys.executable, str(HERE / "scriptapi.py"), str(port),
                                   str(spec)], stderr=subprocess.DEVNULL)
        try:
            for _ in range(200):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    time.sleep(0.05)
            session = run(work, home, f"http://127.0.0.1:{port}")
        finally:
            server.terminate()
            server.wait(timeout=10)
        _git(work, "add", "-A")
        diff = _git(work, "diff", "--cached", "main")
        test = subprocess.run(["sh", "run_tests.sh"], cwd=work, capture_output=True,
                              text=True, timeout=120, env=_env(home))
        dest = HERE / agent / f"{name}{suffix}"
        dest.parent.mkdir(exist_ok=True)
        trim(session, dest, [(str(work), "/home/user/calc"), (str(home), "/home/user"),
                             (tmp, "/home/user")])
    return {"task": {"id": f"calc-{name}", "repo": "example/calc",
                     "test_command": "sh run_tests.sh", "description": TASK},
            "arm": agent, "agent_diff": diff, "ground_truth_diff": fix,
            "test": {"exit_code": test.returncode,
                     "output": _trim(test.stdout + test.stderr, [(str(work), "/home/user/calc")])},
            "metadata": {"transcript_file": f"{agent}/{name}{suffix}"}}


def main(agents: list[str]) -> None:
    scenarios = json.loads((HERE / "scenarios.json").read_text())
    run_file = HERE / "run.jsonl"
    kept = [json.loads(x) for x in run_file.read_text().splitlines()] \
        if run_file.is_file() else []
    kept = [r for r in kept if r["arm"] not in agents]
    for agent in agents:
        for name, scenario in scenarios.items():
            kept.append(record(agent, name, scenario))
            print(agent, name, file=sys.stderr)
    run_file.write_text("".join(json.dumps(r) + "\n" for r in kept))


if __name__ == "__main__":
    main(sys.argv[1:] or [a for a in AGENTS if shutil.which(a)])
