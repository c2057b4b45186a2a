"""`judgekit judge --out DIR` against the local fake API, then `judgekit report DIR`:
the reports show the real pairwise and audit results and are rebuilt identically."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from judgekit.cli import main
from judgekit.testing import FakeAPIServer, Reply, prompt_of
from tests.audit.helpers import agent_verdict, defect_verdict, result, write_runs
from tests.pairwise.helpers import verdict
from tests.report.netcheck import find_resources

BETTER = "diff --git a/src/calc.py b/src/calc.py\n--- a/src/calc.py\n+++ b/src/calc.py\n" \
         "@@ -1,2 +1,4 @@\n def div(a, b):\n+    if b == 0:  # BETTER\n+        return None\n" \
         "     return a / b\n"


def judge(api: str, body: dict[str, Any]) -> Reply:
    """Pairwise: the solution marked BETTER wins; audit: calc-002 is the task's fault."""
    text = prompt_of(body)
    if "## Solution A" in text and "## Solution B" in text:
        a, b = text.index("## Solution A"), text.index("## Solution B")
        where = text.find("BETTER", a)
        return Reply.ok(verdict("A" if a < where < b else "B"))
    return Reply.ok(defect_verdict() if "calc-002" in text else agent_verdict())


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-anthropic-key")


def test_judge_then_report(tmp_path: Path) -> None:
    runs = [result(t, arm, kind) for t, kind in
            (("calc-001", "failed"), ("calc-002", "vacuous"), ("calc-003", "passed"))
            for arm in ("a", "b")]
    runs = [r.model_copy(update={"agent_diff": BETTER}) if r.arm == "b" else r for r in runs]
    path = write_runs(tmp_path / "runs.json", runs)
    out = tmp_path / "out"
    with FakeAPIServer(judge) as server:
        code = main(["judge", str(path), "--judge", "anthropic:claude-haiku-4-5", "--base-url",
                     server.url, "--out", str(out), "--no-similarity", "--no-cache"])
    assert code == 0
    page = (out / "report.html").read_text(encoding="utf-8")
    md = (out / "report.md").read_text(encoding="utf-8")
    found = find_resources(page)
    assert found.external == found.scripts_with_src == found.stylesheet_links == []
    assert "wins, draws, losses" in page and "Pairwise judging was not run" not in page
    assert "Audit of failed results" in page and "The audit of failed results was not" \
        not in page
    assert "test command selects no tests" in page.lower()
    assert "### a vs b" in md and "#### calc-002" in md
    # the per-task table carries each result's verdicts
    tasks = page.split('id="tasks"')[1]
    assert "Pairwise verdicts" in tasks and "Audit verdicts" in tasks
    before = (page, md)
    (out / "report.html").unlink()
    (out / "report.md").unlink()
    assert main(["report", str(out)]) == 0
    after = ((out / "report.html").read_text(encoding="utf-8"),
             (out / "report.md").read_text(encoding="utf-8"))
    assert after == before
