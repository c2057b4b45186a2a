"""The Ray executor (executor ``ray``, the ``ray`` extra): one Ray task per unit of work.

Each (task, arm, attempt) becomes a Ray task that asks for ``cpus_per_attempt`` CPUs,
prepares its workspace on the worker (the worker's node keeps its own mirror cache and
index cache) and returns its result as JSON. The driver collects results as they finish
(``ray.wait``) and alone writes the run file, so a crash of the driver or of a worker loses
only unfinished units, which resuming the run picks up.

Without ``address`` a local Ray instance is started for the run (and stopped after);
``address`` (``auto``, ``ray://host:10001``, ``host:6379``) joins an existing cluster.

Example:
    >>> RayExecutor(cpus_per_attempt=2).name   # doctest: +SKIP
    'ray'
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator, Sequence
from typing import Any

from judgekit.errors import ConfigError
from judgekit.execute.process import Cancelled
from judgekit.execute.units import Unit, UnitRunner
from judgekit.ingest.models import RunResult


STOP_GRACE_S = 15.0
"""How long cancelled Ray tasks get to end their commands and clean up before being killed."""


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ConfigError("{option:executor} ray needs Ray: pip install 'judgekit[ray]'") from None
    return ray


def _run_unit(runner: UnitRunner, unit: Unit) -> str:
    """Body of the Ray task: run one unit on the worker, return the result as JSON.

    Ray cancels a running task by interrupting the worker's main thread, which would raise
    ``KeyboardInterrupt`` at whatever line the unit is on: between creating a workspace and
    the code that removes it, or while holding a lock. So the unit runs in a thread of its
    own, and while it runs the interrupt only sets the same ``cancel`` event the local
    executor uses: the attempt ends its commands and removes its workspace, then the task
    ends as cancelled.
    """
    cancel = threading.Event()
    outcome: list[RunResult | BaseException] = []

    def body() -> None:
        try:
            outcome.append(runner(unit, cancel))
        except BaseException as exc:  # noqa: BLE001 - handed to the task's thread below
            outcome.append(exc)

    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.getsignal(signal.SIGINT) if in_main else None
    if in_main:
        signal.signal(signal.SIGINT, lambda *_: cancel.set())
    try:
        worker = threading.Thread(target=body, name="judgekit-unit", daemon=True)
        worker.start()
        while worker.is_alive():
            worker.join(0.1)
    finally:
        if in_main:
            signal.signal(signal.SIGINT, previous)
    result = outcome[0]
    if isinstance(result, Cancelled) or (cancel.is_set() and isinstance(result, BaseException)):
        raise KeyboardInterrupt("the unit was cancelled")
    if isinstance(result, BaseException):
        raise result
    return result.model_dump_json(exclude_none=True)


class RayExecutor:
    """Runs each unit as a Ray task with its own CPU reservation."""

    name = "ray"

    def __init__(self, *, address: str | None = None, cpus_per_attempt: float = 1.0,
                 num_cpus: int | None = None) -> None:
        if cpus_per_attempt <= 0:
            raise ConfigError("{option:cpus_per_attempt} must be positive")
        self.address = address
        self.cpus_per_attempt = cpus_per_attempt
        self.num_cpus = num_cpus
        self.ray = _ray()
        self.lost: list[tuple[Unit, str]] = []
        """Units whose Ray task failed (worker lost after retries): not recorded, resuming
        the run does them again."""

    def _connect(self) -> bool:
        """Connect to (or start) Ray; True when this executor started it."""
        ray = self.ray
        if ray.is_initialized():
            return False
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                  "configure_logging": False}
        main = threading.current_thread() is threading.main_thread()
        saved = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
        if self.address:
            ray.init(address=self.address, **kwargs)
        else:
            ray.init(num_cpus=self.num_cpus, **kwargs)
        if main:  # Ray installs its own SIGTERM handler; the caller's stop logic comes first
            for sig, handler in saved.items():
                if handler is not None:
                    signal.signal(sig, handler)
        return True

    def run(self, units: Sequence[Unit], runner: UnitRunner,
            cancel: threading.Event) -> Iterator[RunResult]:
        ray = self.ray
        started = self._connect()
        try:
            remote = ray.remote(num_cpus=self.cpus_per_attempt, max_retries=2)(_run_unit)
            runner_ref = ray.put(runner)
            of_ref = {remote.remote(runner_ref, unit): unit for unit in units}
            pending = list(of_ref)
            while pending:
                if cancel.is_set():
                    yield from self._stop(pending, of_ref)
                    return
                done, pending = ray.wait(pending, num_returns=1, timeout=0.2)
                yield from self._collect(done, of_ref)
        finally:
            if started:
                ray.shutdown()

    def _collect(self, done: list[Any], of_ref: dict[Any, Unit]) -> Iterator[RunResult]:
        for ref in done:
            try:
                text = self.ray.get(ref)
            except Exception as exc:  # noqa: BLE001 - a lost or cancelled task, not a result
                if not isinstance(exc, self.ray.exceptions.TaskCancelledError):
                    self.lost.append((of_ref[ref], f"{type(exc).__name__}: {exc}"[:300]))
                continue
            yield RunResult.model_validate_json(text)

    def _stop(self, pending: list[Any], of_ref: dict[Any, Unit]) -> Iterator[RunResult]:
        """Cancel gracefully (running attempts end their process trees and remove their
        workspaces), keep what finished meanwhile, then force what is left."""
        ray = self.ray
        for ref in pending:
            ray.cancel(ref, force=False)
        done, left = ray.wait(pending, num_returns=len(pending), timeout=STOP_GRACE_S)
        yield from self._collect(done, of_ref)
        for ref in left:
            ray.cancel(ref, force=True)
