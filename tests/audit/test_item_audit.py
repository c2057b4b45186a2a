"""``judgekit audit --items``: benchmark items audited with no run, one record per item."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from judgekit.cli import main
from judgekit.testing import FakeAPIServer, Reply, prompt_of
from tests.audit.helpers import agent_verdict

ITEMS = Path(__file__).parent / "data" / "swebench_items.jsonl"


UNFOUND = '"the maintainers confirmed the tests are wrong"'


def item_judge(api: str, body: dict[str, Any]) -> Reply:
    """Blames the vague issues (underspecified), clears item 0, blames item 2 quoting text
    its materials do not hold, and answers item 3 with no verdict at all."""
    prompt = prompt_of(body)
    if "acme__calc-3" in prompt:
        return Reply.ok({"nonsense": True})
    if "acme__calc-2" in prompt:
        return Reply.ok({"score": 1, "deficiency_exists": True,
                         "deficiency_caused_failure": True,
                         "deficiency_type": "wrong-tests",
                         "existence_reasoning": "The tests check the wrong thing.",
                         "causation_reasoning": "A correct fix fails them.",
                         "evidence": [UNFOUND]})
    if "misbehaves sometimes" in prompt:
        return Reply.ok({"score": 1, "deficiency_exists": True,
                         "deficiency_caused_failure": True,
                         "deficiency_type": "underspecified-issue",
                         "existence_reasoning": "The issue does not say what div returns.",
                         "causation_reasoning": "A fix raising ValueError fails the test.",
                         "evidence": ['"div misbehaves sometimes."', '"is None"']})
    return Reply.ok(agent_verdict(evidence='"it should return None."'))


@pytest.fixture
def audited(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
            capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    monkeypatch.setenv("OPENAI_API_KEY", "test-openai-key")
    out = tmp_path / "out"
    with FakeAPIServer(item_judge) as server:
        code = main(["audit", "--items", str(ITEMS), "--rubric", "swe-bench", "--judge",
                     f"openai:gpt-4.1-mini@{server.openai_base_url}", "--out", str(out),
                     "--no-cache"])
        received = server.count()
    captured = capsys.readouterr()
    return {"code": code, "received": received,
            "summary": json.loads((out / "summary.json").read_text()),
            "records": [json.loads(x) for x in (out / "audit.jsonl").read_text().splitlines()],
            "md": (out / "report.md").read_text(), "html": (out / "report.html").read_text(),
            "out": captured.out, "err": captured.err}


def test_each_item_gets_one_record_with_its_state(audited) -> None:
    assert audited["code"] == 0
    records = audited["records"]
    assert [r["task_id"] for r in records] == [f"acme__calc-{i}" for i in range(4)]
    assert [r["state"] for r in records] == ["valid", "valid", "valid", "unscored"]
    assert [r["verdict"]["score"] for r in records[:3]] == [0, 1, 1]
    assert records[1]["deficiency_type"] == "Underspecified Issue"
    assert records[1]["evidence_verified"] is True
    assert records[2]["evidence_verified"] is False
    assert all(r["arm"] == "item" and r["test_status"] == "not run" for r in records)


def test_the_summary_counts_equal_what_the_server_received(audited) -> None:
    audit = audited["summary"]["audit"]
    assert (audit["n_failed"], audit["n_valid"], audit["n_unscored"], audit["n_error"]) == (
        4, 3, 1, 0)
    # item 2's verdict blames it, but its only quote is not in the item's texts
    assert audit["n_ife"] == 2 and audit["suspected_tasks"] == ["acme__calc-1"]
    assert audit["n_evidence_unverified"] == 1 and audit["audited"] == "items"
    assert audit["tries_total"] == audited["received"]
    assert sum(r["tries"] for r in audited["records"]) == audited["received"]
    assert audited["summary"]["results"] == []


def test_the_closing_lines_count_items_and_score_nothing(audited) -> None:
    lines = audited["err"].splitlines()
    assert "audit: 4 items: 3 valid, 1 unscored, 0 error, 0 skipped" in lines[0]
    assert not any(x.startswith("scored ") or "did not pass" in x for x in lines)


RUN_WORDS = re.compile(r"\b(results?|runs?|arms?)\b", re.IGNORECASE)


def _visible(html: str) -> str:
    """The page's text as a reader sees it (no style, script or tags)."""
    html = re.sub(r"<(style|script)>.*?</\1>", "", html, flags=re.DOTALL)
    return re.sub(r"<[^>]+>", " ", html)


def test_an_item_audit_speaks_of_items_only(audited) -> None:
    said = audited["out"] + audited["err"]
    assert "4 items audited" in audited["out"] and "Suspected defective items" in said
    assert not RUN_WORDS.findall(said), said
    for page in (audited["md"], _visible(audited["html"])):
        assert "Audit of benchmark items" in page and "4 benchmark items audited" in page
        assert not RUN_WORDS.findall(page), RUN_WORDS.findall(page)
        assert "agent's failure" not in page and "Only one arm" not in page


def test_an_item_blamed_with_an_unfound_quote_is_not_suspected(audited) -> None:
    md = audited["md"]
    assert "**Suspected defective items:** acme\\_\\_calc-1 (Underspecified Issue)" in md
    assert "#### acme\\_\\_calc-2 (suspected" not in md
    assert UNFOUND in md  # shown, with its evidence check, beside the other verdicts
    box = re.search(r'<div class="suspects">.*?</div>', audited["html"], re.DOTALL)
    assert box is not None and "acme__calc-1" in box.group(0)
    assert "acme__calc-2" not in box.group(0)
    suspected = re.findall(r"^- (\S+):", audited["out"].split("Suspected defective items:")[1],
                           re.MULTILINE)
    assert suspected == ["acme__calc-1"]


def test_run_files_and_items_together_are_refused(tmp_path: Path, capsys) -> None:
    code = main(["audit", str(ITEMS), "--items", str(ITEMS), "--judge",
                 "openai:m@http://127.0.0.1:9/v1", "--out", str(tmp_path / "o")])
    assert code == 2 and "not both" in capsys.readouterr().err


def test_a_row_that_is_not_an_item_names_the_line_and_the_field(tmp_path: Path,
                                                                  capsys) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(ITEMS.read_text().splitlines()[0] + "\n"
                   + json.dumps({"instance_id": "x", "FAIL_TO_PASS": "not json"}) + "\n")
    code = main(["audit", "--items", str(bad), "--judge", "openai:m@http://127.0.0.1:9/v1",
                 "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and f"{bad}: line 2.FAIL_TO_PASS:" in err
    assert not (tmp_path / "o").exists()


def lenient_judge(api: str, body: dict[str, Any]) -> Reply:
    """Clears every item."""
    return Reply.ok(agent_verdict(evidence='"should return None."'))


def test_a_jury_audits_each_item_and_calibrate_reports_each_judge(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-openai-key")
    out = tmp_path / "out"
    with FakeAPIServer(item_judge) as one, FakeAPIServer(lenient_judge) as two:
        code = main(["audit", "--items", str(ITEMS), "--rubric", "swe-bench",
                     "--judge", f"openai:strict@{one.openai_base_url}",
                     "--judge", f"openai:lenient@{two.openai_base_url}",
                     "--out", str(out), "--no-cache"])
    assert code == 0
    records = [json.loads(x) for x in (out / "audit.jsonl").read_text().splitlines()]
    assert len(records) == 4 and all(set(r["judges"]) == {"openai:strict", "openai:lenient"}
                                     for r in records)
    labels = tmp_path / "labels.csv"
    labels.write_text("instance_id,underspecified,false_negative\n"
                      + "".join(f"acme__calc-{i},{3 if i == 1 else 0},0\n" for i in range(4)))
    capsys.readouterr()
    assert main(["calibrate", str(out), "--labels", str(labels), "--label-columns",
                 "underspecified,false_negative", "--label-map",
                 "underspecified=underspecified-issue", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    strict, lenient = got["judges"]["openai:strict"], got["judges"]["openai:lenient"]
    assert strict["n"] == 3 and strict["confusion"]["judge_1_human_1"] == 1
    assert lenient["n"] == 4 and lenient["confusion"]["judge_0_human_1"] == 1
    # the jury: a tie of one score 1 against one score 0 is 0 (blaming needs a majority)
    assert got["confusion"]["judge_1_human_1"] == 0 and got["n"] == 4


@pytest.mark.parametrize("line", ['{"instance_id": "x", "patch": ' + "[" * 5000,
                                  '{"instance_id": "x", "hints_text": NaN}',
                                  '["not", "a", "row"]'])
def test_a_hostile_row_is_one_line_naming_it(tmp_path: Path, capsys, line: str) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(ITEMS.read_text().splitlines()[0] + "\n" + line + "\n")
    code = main(["audit", "--items", str(bad), "--judge", "openai:m@http://127.0.0.1:9/v1",
                 "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and f"{bad}: line 2" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_a_bundled_suite_is_audited_task_by_task(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from judgekit.ingest.suites import load_suite

    monkeypatch.setenv("OPENAI_API_KEY", "test-openai-key")
    tasks = load_suite("flask").tasks
    seen: list[str] = []

    def respond(api: str, body: dict[str, Any]) -> Reply:
        seen.append(prompt_of(body))
        return Reply.ok(agent_verdict(evidence=[]))

    out = tmp_path / "out"
    with FakeAPIServer(respond) as server:
        code = main(["audit", "--items", "flask", "--judge",
                     f"openai:m@{server.openai_base_url}", "--out", str(out), "--no-cache"])
    assert code == 0
    records = [json.loads(x) for x in (out / "audit.jsonl").read_text().splitlines()]
    assert [r["task_id"] for r in records] == [t.id for t in tasks]
    assert any(tasks[0].test_command in p and tasks[0].commit in p for p in seen)


def test_a_missing_item_file_is_one_line(tmp_path: Path, capsys) -> None:
    code = main(["audit", "--items", str(tmp_path / "none.jsonl"), "--judge",
                 "openai:m@http://127.0.0.1:9/v1"])
    err = capsys.readouterr().err
    assert code == 2 and "none.jsonl" in err and len(err.strip().splitlines()) == 1
