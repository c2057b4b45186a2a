"""Progress where stderr is a log: plain lines with items done of items, by outcome, once a
run lasts more than a few seconds (a short run's closing lines stand alone)."""

from __future__ import annotations

import re
from pathlib import Path

from judgekit.testing import FakeAPIServer, Reply, scripted
from tests.clirun import judgekit
from tests.pairwise.helpers import diff, result, write_runs


def test_a_log_gets_plain_progress_lines_that_add_up(tmp_path: Path) -> None:
    runs = [r for t in range(10) for r in (result(f"t{t}", "base", diff(f"plain {t}")),
                                           result(f"t{t}", "ctx", diff(f"GOOD {t}")))]
    path = write_runs(tmp_path / "runs.json", runs)
    # two items fail for good (a 400 is not retried), the rest are answered, each in 0.6 s
    # one at a time: a run of 12 s or more
    with FakeAPIServer(scripted(Reply.fault(400), Reply.fault(400)), latency=0.6) as server:
        proc = judgekit("judge", path, "--no-similarity", "--judge", "anthropic:claude-haiku-4-5",
                        "--no-audit", "--concurrency", "1", "--out", tmp_path / "out",
                        env={**server.env(), "ANTHROPIC_API_KEY": "test-key-123",
                             "JUDGEKIT_CACHE": str(tmp_path / "c.sqlite")})
    lines = [m.groups() for m in re.finditer(
        r"judging: (\d+)/(\d+) items · valid (\d+) · unscored (\d+) · error (\d+)", proc.stderr)]
    assert len(lines) >= 3, proc.stderr  # a tenth of the items every 1.2 s, after 5 s
    for done, total, valid, unscored, error in lines:
        assert int(total) == 20 and int(done) == int(valid) + int(unscored) + int(error)
    assert lines[-1][0] == "20" and lines[-1][4] == "2"
    done = [int(d) for d, *_ in lines]
    assert done == sorted(done)
