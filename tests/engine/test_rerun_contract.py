"""A completed `judgekit judge` re-run with the same arguments sends zero requests, with the
stock fake server's default answers (pairwise and audit, every item finished)."""

from __future__ import annotations

import json
from pathlib import Path

from judgekit.testing import FakeAPIServer
from tests.clirun import judgekit


def test_rerun_of_a_completed_judge_sends_zero_requests(bobbin_dir: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    args = ["judge", bobbin_dir, "--judge", "anthropic:claude-haiku-4-5", "--cache", cache,
            "--no-similarity"]
    with FakeAPIServer() as server:
        env = {**server.env(), "ANTHROPIC_API_KEY": "sk-ant-test-rerun-key"}
        first = judgekit(*args, "--out", tmp_path / "a", env=env)
        assert first.returncode == 0, first.stderr
        sent = server.count()
        assert sent > 0
        second = judgekit(*args, "--out", tmp_path / "b", env=env)
        assert second.returncode == 0, second.stderr
        assert server.count() == sent  # nothing new
    a = json.loads((tmp_path / "a" / "summary.json").read_text())
    b = json.loads((tmp_path / "b" / "summary.json").read_text())
    assert a["audit"]["n_valid"] == b["audit"]["n_valid"] == a["audit"]["n_failed"] == 46
    assert a["pairwise"] == b["pairwise"]
    for out in (tmp_path / "a", tmp_path / "b"):
        for path in out.iterdir():
            assert "sk-ant-test-rerun-key" not in path.read_text()
    assert b"sk-ant-test-rerun-key" not in cache.read_bytes()
