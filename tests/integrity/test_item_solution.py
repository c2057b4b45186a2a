"""``judgekit audit --items`` reports ``solution-in-item``: items whose fix's added lines
appear in the issue text are flagged with their share, the others are not."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from judgekit.cli import main
from judgekit.testing import FakeAPIServer, Reply
from tests.audit.helpers import agent_verdict

FIX = ("diff --git a/src/text.py b/src/text.py\n--- a/src/text.py\n+++ b/src/text.py\n"
       "@@ -1,2 +1,3 @@\n def norm(value):\n-    return value\n"
       "+    cleaned = value.strip().casefold()\n+    return cleaned.replace('  ', ' ')\n")
TESTS = ("diff --git a/tests/test_text.py b/tests/test_text.py\n--- a/tests/test_text.py\n"
         "+++ b/tests/test_text.py\n@@ -1 +1,3 @@\n import text\n+def test_norm():\n"
         "+    assert text.norm(' A ') == 'a'\n")
LEAKED = ("norm() keeps spaces and case. The fix is:\n\n"
          "    cleaned = value.strip().casefold()\n    return cleaned.replace('  ', ' ')\n")
HALF = "norm() keeps case; use `cleaned = value.strip().casefold()` there."
HONEST = "norm(' A ') returns ' A '; it should return 'a'."


def _item(n: int, issue: str) -> dict[str, Any]:
    return {"repo": "acme/text", "instance_id": f"acme__text-{n}",
            "base_commit": "0" * 40, "patch": FIX, "test_patch": TESTS,
            "problem_statement": issue, "hints_text": "", "version": "1.0",
            "FAIL_TO_PASS": json.dumps(["tests/test_text.py::test_norm"]),
            "PASS_TO_PASS": "[]"}


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("items")
    items = root / "items.jsonl"
    items.write_text("".join(json.dumps(_item(n, issue)) + "\n"
                             for n, issue in enumerate((LEAKED, HONEST, HALF))))
    out = root / "out"
    err = io.StringIO()
    with pytest.MonkeyPatch.context() as mp, \
            FakeAPIServer(lambda api, body: Reply.ok(agent_verdict())) as server:
        mp.setenv("OPENAI_API_KEY", "test-openai-key")
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = main(["audit", "--items", str(items), "--rubric", "swe-bench", "--judge",
                         f"openai:gpt-4.1-mini@{server.openai_base_url}", "--out", str(out),
                         "--no-cache"])
    return {"code": code, "err": err.getvalue(),
            "summary": json.loads((out / "summary.json").read_text()),
            "records": [json.loads(x) for x in (out / "integrity.jsonl").read_text()
                        .splitlines()],
            "md": (out / "report.md").read_text(), "html": (out / "report.html").read_text()}


def test_items_with_their_fix_in_the_issue_are_flagged_with_the_share(audited) -> None:
    assert audited["code"] == 0
    items = audited["summary"]["integrity_items"]
    assert (items["n_items"], items["n_flagged"], items["threshold"]) == (3, 2, 0.5)
    assert items["flagged"] == [{"instance_id": "acme__text-0", "share": 1.0},
                                {"instance_id": "acme__text-2", "share": 0.5}]
    records = audited["records"]
    assert [(r["task_id"], r["arm"], r["test_status"]) for r in records] == [
        ("acme__text-0", "item", "not run"), ("acme__text-2", "item", "not run")]
    finding = records[0]["findings"][0]
    assert finding["kind"] == "solution-in-item" and finding["share"] == 1.0
    assert finding["evidence"]["file"] == "src/text.py"
    assert "integrity" not in audited["summary"]  # no results were checked


def test_the_closing_lines_and_report_name_the_items(audited) -> None:
    line = next(x for x in audited["err"].splitlines() if x.startswith("integrity:"))
    assert line.startswith("integrity: solution-in-item in 2 of 3 items")
    assert "acme__text-0 (100.0%), acme__text-2 (50.0%)" in line
    assert "acme__text-1" not in line
    for page in (audited["md"], audited["html"]):
        assert "Integrity of the items" in page and "acme__text-1" not in \
            page.split("Integrity of the items")[1]
    said = line + audited["md"].split("Integrity of the items")[1]
    assert not re.findall(r"\b(results?|runs?|arms?)\b", said, re.IGNORECASE)
