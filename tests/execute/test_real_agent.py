"""A real agent CLI end to end: mini-swe-agent driving a real local model server through
``judgekit run`` with the default sandbox, then ``judgekit score`` on the run file.

The recipe is the README's: the agent's settings come through ``--agent-home``, its key
through ``--agent-env``, its installation through ``--agent-bind``, the model server through
``--agent-network``, and its trajectory through ``{transcript_file}``. SmolLM2-135M does not
fix the bug; the attempt must still end as a scored failure, not a harness error.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
import time
from pathlib import Path

import pytest

from judgekit.execute.sandbox import bwrap_problem
from tests.clirun import judgekit

from .conftest import Project, write_suite

pytestmark = [pytest.mark.realmodel,
              pytest.mark.skipif(bwrap_problem() is not None,
                                 reason=f"bubblewrap unusable here: {bwrap_problem()}")]

KEY = "sk-local-canary-5e1d9c2b"


def test_mini_swe_agent_runs_sandboxed_against_a_real_model_and_is_scored(
        llama_server: object, project: Project, tmp_path: Path) -> None:
    mini = Path(sys.executable).parent / "mini"
    assert mini.is_file(), "mini-swe-agent is not installed: pip install mini-swe-agent==2.4.6"
    seed = tmp_path / "mini-home"
    (seed / ".config" / "mini-swe-agent").mkdir(parents=True)
    (seed / ".config" / "mini-swe-agent" / ".env").write_text(
        "MSWEA_CONFIGURED=true\nMSWEA_COST_TRACKING=ignore_errors\n"
        "LITELLM_LOCAL_MODEL_COST_MAP=True\n")
    base_url = llama_server.base_url  # type: ignore[attr-defined]
    model = llama_server.model  # type: ignore[attr-defined]
    agent = (f"{shlex.quote(str(mini))} -m openai/{model} -t \"$(cat {{prompt_file}})\" "
             "--yolo --exit-immediately --cost-limit 0 -c mini.yaml "
             f"-c model.model_kwargs.api_base={base_url} -c agent.step_limit=3 "
             "-o {transcript_file}")
    suite = write_suite(tmp_path / "s.yaml", project)
    out = tmp_path / "runs" / "mini.json"
    before = len(llama_server.requests())  # type: ignore[attr-defined]
    started = time.monotonic()
    proc = judgekit("run", suite, "--agent", agent, "--agent-network", "--agent-home", seed,
                    "--agent-env", f"OPENAI_API_KEY={KEY}", "--agent-bind", sys.prefix,
                    "--model", model, "--timeout", "600", "--out", out,
                    "--mirror-dir", tmp_path / "m", timeout=900)
    elapsed = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr
    sent = len(llama_server.requests()) - before  # type: ignore[attr-defined]
    (result,) = json.loads(out.read_text())["results"]
    assert result["sandbox"] == "bwrap" and result["harness_status"] == "completed"
    meta = result["metadata"]
    assert meta["agent_exit_code"] == 0, meta["agent_stderr"][-2000:]
    session = result["session"]  # the trajectory read as mini-swe-agent's, key redacted
    assert session["format"] == "mini-swe-agent" and session["model"] == f"openai/{model}"
    assert session["exit_status"] in ("limits_exceeded", "submitted", "error")
    trajectory = json.loads(Path(meta["transcript_file"]).read_text())
    calls = trajectory["info"]["model_stats"]["api_calls"]
    assert calls >= 1 and sent == calls, (sent, calls)
    assert trajectory["info"]["config"]["model"]["model_kwargs"]["api_base"] == base_url
    scored = judgekit("score", out, "--json", "--no-similarity")
    assert scored.returncode == 0, scored.stderr
    (row,) = json.loads(scored.stdout)["results"]
    assert row["test_status"] in ("failed", "passed") and row["harness_status"] == "completed"
    for path in (out, Path(meta["transcript_file"])):
        assert KEY not in path.read_text()
    assert KEY not in proc.stdout + proc.stderr
    print(f"mini-swe-agent: {elapsed:.0f} s, {sent} model request(s), {row['test_status']}")
