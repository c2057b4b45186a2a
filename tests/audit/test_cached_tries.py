"""A cached audit reports the tries of the run that produced it: the same total, although
some results share identical materials (asked once, the others copies)."""

from __future__ import annotations

import json
from pathlib import Path

from judgekit.testing import FakeAPIServer
from tests.clirun import ROOT, judgekit


def test_a_cached_audit_counts_the_tries_the_fresh_one_did(tmp_path: Path) -> None:
    totals, copies = [], []
    with FakeAPIServer() as server:
        env = {**server.env(), "ANTHROPIC_API_KEY": "test-key-123",
               "JUDGEKIT_CACHE": str(tmp_path / "c.sqlite")}
        for name in ("fresh", "cached"):
            proc = judgekit("audit", ROOT / "examples" / "bobbin", "--rubric", "commit-revert",
                            "--judge", "anthropic:claude-haiku-4-5", "--out", tmp_path / name,
                            env=env)
            assert proc.returncode == 0, proc.stderr
            audit = json.loads((tmp_path / name / "summary.json").read_text())["audit"]
            records = [json.loads(x) for x in
                       (tmp_path / name / "audit.jsonl").read_text().splitlines()]
            totals.append(audit["tries_total"])
            copies.append(sum(r["tries"] == 0 for r in records))
            if name == "fresh":
                assert audit["tries_total"] == server.count("anthropic")
    assert totals[0] == totals[1]
    assert copies[0] == copies[1] > 0  # the example has results with identical materials
