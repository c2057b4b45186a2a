"""Ctrl-C during a judge run: one line saying the verdicts so far are in the verdict cache
and that the same command again resumes from there, which it does."""

from __future__ import annotations

import os
import signal
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from judgekit.cli import main
from judgekit.testing import FakeAPIServer
from tests.cli.helpers import judge_reply, run_file


def _stored(cache: Path) -> int:
    if not cache.exists():
        return 0
    db = sqlite3.connect(f"file:{cache}?mode=ro", uri=True)
    try:
        return int(db.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0])
    except sqlite3.OperationalError:
        return 0
    finally:
        db.close()


def _ctrl_c_after(cache: Path, stored: int, running: threading.Event) -> threading.Thread:
    """Send this process SIGINT (as Ctrl-C does) once ``stored`` verdicts are in the cache,
    if the command is still running then."""
    def watch() -> None:
        deadline = time.monotonic() + 60
        while _stored(cache) < stored and time.monotonic() < deadline:
            time.sleep(0.02)
        if running.is_set():
            os.kill(os.getpid(), signal.SIGINT)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def test_an_interrupted_judge_run_says_a_rerun_resumes_from_the_cache(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    runs, cache = run_file(tmp_path), tmp_path / "verdicts.sqlite"
    monkeypatch.setenv("JUDGEKIT_CACHE", str(cache))
    # one call at a time (a server that reports no slots), half a second each: the run
    # is still going when the second verdict is stored, however loaded the machine
    with FakeAPIServer(judge_reply, latency=0.5) as server:
        argv = ["judge", str(runs), "--no-audit", "--judge",
                f"llamacpp:m@{server.openai_base_url}", "--out", str(tmp_path / "o")]
        running = threading.Event()
        running.set()
        watcher = _ctrl_c_after(cache, 2, running)
        try:
            code = main(argv)
        finally:
            running.clear()
            watcher.join()
        assert code == 130
        line = capsys.readouterr().err.strip().splitlines()[-1]
        assert line.startswith("judgekit: interrupted; the verdicts received so far are kept "
                               f"in the verdict cache ({cache})")
        assert "the same command again resumes" in line
        kept, asked = _stored(cache), server.count()
        server.latency = 0.0
        assert main(argv) == 0  # the same command again
        total = _stored(cache)
    assert 2 <= kept < total
    assert server.count() - asked == total - kept  # only what was left was asked
