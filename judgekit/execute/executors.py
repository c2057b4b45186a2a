"""Executors: where units of work run. Results stream back to the caller as they finish.

An executor takes the units still to do and yields each finished :class:`RunResult`; the
caller (the driver) alone writes them. When ``cancel`` is set, no further unit starts,
running units end their process trees, and the executor returns without their results.

``local`` (the default) runs units in threads of this process; ``ray`` (the ``ray`` extra)
runs each unit as a Ray task (:mod:`judgekit.execute.ray_executor`).

Example:
    >>> get_executor("local", jobs=2).name
    'local'
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Protocol

from judgekit.errors import ConfigError
from judgekit.execute.process import Cancelled
from judgekit.execute.units import Unit, UnitRunner
from judgekit.ingest.models import RunResult

EXECUTORS = ("local", "ray")


class Executor(Protocol):
    """Runs units and yields their results as they finish."""

    name: str

    def run(self, units: Sequence[Unit], runner: UnitRunner,
            cancel: threading.Event) -> Iterator[RunResult]: ...


class LocalExecutor:
    """``jobs`` units at a time in threads of this process."""

    name = "local"

    def __init__(self, jobs: int = 1) -> None:
        if jobs < 1:
            raise ConfigError("{option:jobs} must be at least 1")
        self.jobs = jobs

    def run(self, units: Sequence[Unit], runner: UnitRunner,
            cancel: threading.Event) -> Iterator[RunResult]:
        pending = list(units)
        pending.reverse()
        running: set[Future[RunResult]] = set()
        pool = ThreadPoolExecutor(max_workers=self.jobs, thread_name_prefix="judgekit-unit")
        try:
            while pending or running:
                while pending and len(running) < self.jobs and not cancel.is_set():
                    running.add(pool.submit(runner, pending.pop(), cancel))
                if cancel.is_set():
                    pending.clear()
                if not running:
                    break
                done, running = wait(running, timeout=0.2, return_when=FIRST_COMPLETED)
                for future in done:
                    try:
                        yield future.result()
                    except Cancelled:
                        continue
        finally:
            cancel_now = bool(running)
            if cancel_now:
                cancel.set()
            pool.shutdown(wait=True, cancel_futures=True)


def get_executor(name: str, *, jobs: int = 1, address: str | None = None,
                 cpus_per_attempt: float = 1.0) -> Executor:
    """The executor called ``name``."""
    if name == "local":
        return LocalExecutor(jobs)
    if name == "ray":
        from judgekit.execute.ray_executor import RayExecutor

        return RayExecutor(address=address, cpus_per_attempt=cpus_per_attempt)
    raise ConfigError(f"unknown executor {name!r} (expected one of: {', '.join(EXECUTORS)})")
