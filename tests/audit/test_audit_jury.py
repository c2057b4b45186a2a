"""``judgekit audit --judge M1 --judge M2 --judge M3``: each judge audits, the majority
classifies, and the results they disagree on are listed; through the real CLI against
loopback servers, one per judge.

Failed results: calc-001 on arms a and b (the agent's fault), calc-002 on both arms (the
test command selects no tests). Two sound judges blame the task for calc-002 only; the
third blames the task for every result. So the jury blames calc-002 (3 of 3) and not
calc-001 (1 of 3): the two calc-001 results are disagreements, and only calc-002 is
suspected, although the third judge alone suspects both tasks.
"""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from judgekit.testing import FakeAPIServer, Reply, prompt_of
from tests.audit.helpers import agent_verdict, defect_verdict, standard_results, write_runs
from tests.clirun import ROOT, judgekit

SOUND, SOUND2, BLAMES = ("anthropic:claude-haiku-4-5", "openai:second-judge",
                         "openai:always-defect")
TYPE = "Test Command Selects No Tests"


def sound(api: str, body: dict[str, Any]) -> Reply:
    return Reply.ok(defect_verdict() if "calc-002" in prompt_of(body) else agent_verdict())


def blames_everything(api: str, body: dict[str, Any]) -> Reply:
    return Reply.ok(defect_verdict())


@pytest.fixture(scope="module")
def jury_audit(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("audit_jury")
    runs = write_runs(tmp / "runs.json", standard_results())
    env = {"ANTHROPIC_API_KEY": "test-key", "OPENAI_API_KEY": "test-key",
           "JUDGEKIT_CACHE": str(tmp / "cache.sqlite")}
    with ExitStack() as stack:
        s1, s2, s3 = (stack.enter_context(FakeAPIServer(r))
                      for r in (sound, sound, blames_everything))
        judges = [f"{SOUND}@{s1.url}", f"{SOUND2}@{s2.openai_base_url}",
                  f"{BLAMES}@{s3.openai_base_url}"]
        proc = judgekit("audit", runs, "--no-similarity", "--rubric", "commit-revert",
                        *[x for j in judges for x in ("--judge", j)], "--out", tmp / "out",
                        env=env)
        calls = [s.count() for s in (s1, s2, s3)]
        one = judgekit("audit", runs, "--no-similarity", "--rubric", "commit-revert",
                       "--judge", judges[0], "--out", tmp / "one", env=env)
    assert proc.returncode == 0, proc.stderr
    assert one.returncode == 0, one.stderr
    out = tmp / "out"
    return {"calls": calls, "stdout": proc.stdout, "stderr": proc.stderr,
            "summary": json.loads((out / "summary.json").read_text()),
            "records": [json.loads(x) for x in (out / "audit.jsonl").read_text().splitlines()],
            "md": (out / "report.md").read_text(), "html": (out / "report.html").read_text(),
            "one": (json.loads((tmp / "one" / "summary.json").read_text()),
                    [json.loads(x) for x in (tmp / "one" / "audit.jsonl").read_text()
                     .splitlines()])}


def test_each_judge_audits_every_failed_result(jury_audit: dict[str, Any]) -> None:
    assert all(n >= 4 for n in jury_audit["calls"])
    for rec in jury_audit["records"]:
        assert list(rec["judges"]) == [SOUND, SOUND2, BLAMES]
        assert all(j["state"] == "valid" for j in rec["judges"].values())


def test_the_majority_classifies_each_result(jury_audit: dict[str, Any]) -> None:
    records = {(r["task_id"], r["arm"]): r for r in jury_audit["records"]}
    for arm in ("a", "b"):
        own = {k: j["score"] for k, j in records[("calc-001", arm)]["judges"].items()}
        assert own == {SOUND: 0, SOUND2: 0, BLAMES: 1}
        assert records[("calc-001", arm)]["verdict"]["score"] == 0
        assert records[("calc-001", arm)]["deficiency_type"] == "none"
        assert records[("calc-002", arm)]["verdict"]["score"] == 1
        assert records[("calc-002", arm)]["deficiency_type"] == TYPE
    audit = jury_audit["summary"]["audit"]
    assert audit["n_ife"] == 2 and audit["by_type"] == {TYPE: 2}
    assert audit["suspected_tasks"] == ["calc-002"]


def test_the_summary_lists_each_judge_and_the_disagreements(jury_audit: dict[str, Any]) -> None:
    jury = jury_audit["summary"]["audit"]["jury"]
    assert jury["rule"] == "majority" and jury["judges"] == [SOUND, SOUND2, BLAMES]
    assert jury["members"][SOUND]["n_ife"] == 2 and jury["members"][BLAMES]["n_ife"] == 4
    assert sorted(jury["members"][BLAMES]["suspected_tasks"]) == ["calc-001", "calc-002"]
    assert jury["n_disagreements"] == 2
    assert jury["disagreements"] == [
        f"calc-001 / {arm} / attempt 0: {SOUND} 0, {SOUND2} 0, {BLAMES} 1 ({TYPE})"
        for arm in ("a", "b")]
    schema = json.loads((ROOT / "judgekit" / "data" / "schemas" / "summary.schema.json")
                        .read_text(encoding="utf-8"))
    jsonschema.validate(jury_audit["summary"], schema)


def test_the_report_shows_the_jury_and_its_disagreements(jury_audit: dict[str, Any]) -> None:
    for text in (jury_audit["md"], jury_audit["html"]):
        assert "Audit jury of 3 judges" in text and "They disagree on 2 results." in text
        for arm in ("a", "b"):
            assert f"calc-001 / {arm} / attempt 0: {SOUND} 0, {SOUND2} 0, {BLAMES} 1" in text


def test_one_judge_writes_what_it_always_did(jury_audit: dict[str, Any]) -> None:
    summary, records = jury_audit["one"]
    assert "jury" not in summary["audit"]
    assert all("judges" not in r for r in records)
    assert summary["audit"]["suspected_tasks"] == ["calc-002"]
