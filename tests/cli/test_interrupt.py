"""Ctrl-C during a judge run: one line saying the verdicts so far are in the verdict cache
and that the same command again resumes from there, which it does."""

from __future__ import annotations

import os
import signal
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from judgekit.cli import main
from judgekit.testing import FakeAPIServer, Reply
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


def test_an_interrupted_judge_run_says_a_rerun_resumes_from_the_cache(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    runs, cache = run_file(tmp_path), tmp_path / "verdicts.sqlite"
    monkeypatch.setenv("JUDGEKIT_CACHE", str(cache))
    # one call at a time (a server that reports no slots): Ctrl-C comes (SIGINT to this
    # process, as a terminal sends it) while the third call is in flight, the first two
    # verdicts answered and stored
    calls = 0

    def reply(api: str, body: dict[str, Any]) -> Reply:
        nonlocal calls
        calls += 1
        if calls == 3:
            os.kill(os.getpid(), signal.SIGINT)
        return judge_reply(api, body)

    with FakeAPIServer(reply, latency=0.2) as server:
        argv = ["judge", str(runs), "--no-audit", "--judge",
                f"llamacpp:m@{server.openai_base_url}", "--out", str(tmp_path / "o")]
        code = main(argv)
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
