"""The Ray executor gives the same units and statuses as the local one, and resumes."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

from judgekit.cli import main  # noqa: E402
from judgekit.execute import AgentCommand, RunPlan, load_suite, run_suite  # noqa: E402
from judgekit.execute.ray_executor import RayExecutor  # noqa: E402
from judgekit.ingest.models import RunResult  # noqa: E402
from judgekit.scoring.outcomes import classify_result  # noqa: E402

from .conftest import FIX_AGENT, Project, write_suite  # noqa: E402


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    yield
    ray.shutdown()


def statuses(path: Path) -> dict[tuple[str, str, int], str]:
    rows = [RunResult.model_validate_json(line) for line in path.read_text().splitlines()]
    assert len({(r.task_id, r.arm, r.attempt) for r in rows}) == len(rows), "no duplicates"
    return {(r.task_id, r.arm, r.attempt): classify_result(r).status for r in rows}


@pytest.fixture
def two_task_suite(project: Project, tmp_path: Path) -> Path:
    import yaml

    suite = write_suite(tmp_path / "s.yaml", project)
    doc = yaml.safe_load(suite.read_text())
    doc["tasks"].append({**doc["tasks"][0], "id": "calc-002"})
    suite.write_text(yaml.safe_dump(doc))
    return suite


AGENT = f"if [ {{arm}} = a ]; then {FIX_AGENT}; fi"


def test_ray_and_local_executors_give_the_same_units_and_statuses(
        local_ray, two_task_suite: Path, tmp_path: Path) -> None:
    common = ["run", str(two_task_suite), "--agent", AGENT, "--arms", "a,b",
              "--attempts", "2", "--mirror-dir", str(tmp_path / "m")]
    assert main([*common, "--executor", "local", "--jobs", "2",
                 "--out", str(tmp_path / "local.jsonl")]) == 0
    assert main([*common, "--executor", "ray", "--cpus-per-attempt", "1",
                 "--out", str(tmp_path / "ray.jsonl")]) == 0
    local, remote = statuses(tmp_path / "local.jsonl"), statuses(tmp_path / "ray.jsonl")
    assert len(local) == 8 and local == remote
    assert {s for (_, arm, _), s in local.items() if arm == "a"} == {"passed"}
    assert {s for (_, arm, _), s in local.items() if arm == "b"} == {"failed"}


def test_a_ray_run_stopped_halfway_is_completed_by_a_resumed_run(
        local_ray, two_task_suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    suite = load_suite(two_task_suite)
    workspaces = tmp_path / "ws"
    workspaces.mkdir()
    plan = RunPlan(agents={"*": AgentCommand(AGENT)}, arms=["a", "b"], attempts=2,
                   mirror_dir=str(tmp_path / "m"), executor="ray", tmp_dir=str(workspaces))
    cancel = threading.Event()
    first: list[RunResult] = []

    def stop_after_three(result: RunResult) -> None:
        first.append(result)
        if len(first) == 3:
            cancel.set()  # the driver goes away with units still queued or running

    executor = RayExecutor(cpus_per_attempt=1)
    summary = run_suite(suite, plan, out, progress=stop_after_three, cancel=cancel,
                        executor=executor)
    assert summary.cancelled and 3 <= summary.written < 8
    assert executor.lost == [], "a cancelled unit is not a lost one"
    assert list(workspaces.iterdir()) == [], "cancelled attempts remove their workspaces"
    lines_before = out.read_text().splitlines()
    plan.resume = True
    again = run_suite(suite, plan, out, executor=RayExecutor(cpus_per_attempt=1))
    assert again.skipped == len(lines_before) and again.written == 8 - len(lines_before)
    lines = out.read_text().splitlines()
    assert lines[: len(lines_before)] == lines_before, "finished units are not run again"
    assert len(statuses(out)) == 8


def test_a_ray_run_killed_halfway_by_sigterm_is_completed_by_resume(
        local_ray, suite_file: Path, tmp_path: Path) -> None:
    """Ray installs its own SIGTERM handler; judgekit's stop logic must still run, the
    attempt's processes must end, and ``--resume`` must finish only what is missing."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from .conftest import sleepers

    token = f"6{os.getpid()}{time.monotonic_ns() % 10**6}"
    out = tmp_path / "run.jsonl"
    workspaces = tmp_path / "ws"
    workspaces.mkdir()
    args = ["run", str(suite_file), "--arms", "quick,slow", "--attempts", "2",
            "--agent-for", "quick=true", "--executor", "ray", "--out", str(out),
            "--tmp-dir", str(workspaces)]
    proc = subprocess.Popen([sys.executable, "-m", "judgekit", *args,
                             "--agent-for", f"slow=sleep 2{token}"],
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (
                sleepers(token) and out.exists() and out.read_text().count("\n") >= 1):
            time.sleep(0.2)
        assert sleepers(token), "the slow attempt never started"
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143, err
    assert "SIGTERM received" in err
    time.sleep(0.5)
    assert sleepers(token) == []
    assert list(workspaces.iterdir()) == [], "the stopped attempt removed its workspace"
    finished = out.read_text().splitlines()
    assert 1 <= len(finished) < 4
    assert main([*args, "--agent-for", "slow=true", "--resume"]) == 0
    lines = out.read_text().splitlines()
    assert lines[: len(finished)] == finished, "finished units are not run again"
    assert set(statuses(out)) == {("calc-001", arm, n) for arm in ("quick", "slow")
                                  for n in (0, 1)}
