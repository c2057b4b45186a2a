"""A Ray task cancelled at any moment leaves no workspace behind.

Ray cancels a running task by calling ``_thread.interrupt_main()`` in the worker, so the
task's main thread gets a KeyboardInterrupt at whatever line it is on. These tests do the
same at many points of one unit's run, without a Ray cluster, and check what is left.
"""

from __future__ import annotations

import _thread
import shutil
import sys
import threading
import time
from pathlib import Path

import pytest

import judgekit.execute
from judgekit.execute import AgentCommand, RunPlan, load_suite
from judgekit.execute.ray_executor import _run_unit
from judgekit.execute.plan import plan_units, unit_runner
from judgekit.ingest.models import RunResult

from .conftest import FIX_AGENT

RUNNER_CODE = str(Path(judgekit.execute.__file__).parent)


class InterruptAt:
    """A tracer that interrupts the main thread, as Ray does, at the ``at``-th line run in
    judgekit's runner code (in any thread)."""

    def __init__(self, at: int) -> None:
        self.at, self.seen, self.fired = at, 0, False
        self.lock = threading.Lock()

    def __call__(self, frame, event, arg):  # noqa: ANN001 - sys.settrace's signature
        if not frame.f_code.co_filename.startswith(RUNNER_CODE):
            return None
        if event == "line":
            with self.lock:
                self.seen += 1
                if self.seen == self.at and not self.fired:
                    self.fired = True
                    _thread.interrupt_main()
        return self


def run_interrupted(runner, unit, at: int) -> tuple[InterruptAt, RunResult | None]:  # noqa: ANN001
    tracer = InterruptAt(at)
    result = None
    threading.settrace(tracer)
    sys.settrace(tracer)
    try:
        text = _run_unit(runner, unit)
        result = RunResult.model_validate_json(text)
        for _ in range(5):  # a pending interrupt lands here, not in the next test
            time.sleep(0.01)
    except KeyboardInterrupt:
        pass
    finally:
        sys.settrace(None)
        threading.settrace(None)  # type: ignore[arg-type]
    return tracer, result


@pytest.fixture
def unit_and_runner(suite_file: Path, tmp_path: Path):  # noqa: ANN201
    workspaces = tmp_path / "ws"
    workspaces.mkdir()
    plan = RunPlan(agents={"*": AgentCommand(FIX_AGENT)}, arms=["a"], attempts=1,
                   mirror_dir=str(tmp_path / "m"), executor="ray", tmp_dir=str(workspaces))
    suite = load_suite(suite_file)
    return unit_runner(plan, "r1"), plan_units(suite, plan)[0], workspaces


def test_a_unit_interrupted_at_any_line_removes_its_workspace(unit_and_runner) -> None:
    runner, unit, workspaces = unit_and_runner
    run_interrupted(runner, unit, at=0)  # the first run fills the mirror cache
    count, result = run_interrupted(runner, unit, at=0)
    assert result is not None and result.test is not None, "an uninterrupted unit runs"
    assert result.harness_status == "completed"
    lines = count.seen
    assert lines > 200
    left: list[tuple[int, list[str]]] = []
    points = sorted({*range(1, 150, 3), *range(150, lines, lines // 30)})
    fired = 0
    for at in points:
        tracer, finished = run_interrupted(runner, unit, at)
        # a run may take fewer lines than the one counted (its waits poll): a point past
        # its end does not fire, and the run then completes, which must leave nothing too
        assert tracer.fired or (finished is not None and at > 150), at
        fired += tracer.fired
        names = [p.name for p in workspaces.iterdir()]
        if names:
            left.append((at, names))
            for p in workspaces.iterdir():
                shutil.rmtree(p, ignore_errors=True)
    assert left == [], f"interrupts at these lines left workspaces: {left[:5]}"
    assert fired >= 0.9 * len(points), (fired, len(points))
