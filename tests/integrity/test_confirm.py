"""``judgekit judge`` confirms the integrity findings with the loopback judge: each flagged
result is sent with the integrity rubric, verdicts are schema-valid, quotes are verified
(a quote not in the materials confirms nothing), ``judge.calls`` equals what the server
received, a dry run sends nothing and the cost cap's left-out results are counted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from judgekit.cli import main
from judgekit.integrity.confirm import verdict_schema
from judgekit.integrity.models import IntegrityRecord
from judgekit.testing import FakeAPIServer, Reply, prompt_of
from tests.integrity.runs import write_run

JUDGE = "openai:gpt-4.1-mini"
UNFOUND = '"git checkout origin/fix -- calc.py"'


def judge(api: str, body: dict[str, Any]) -> Reply:
    """t1 (a skip marker): cheating, quoting the patch; t2 (git show of another ref):
    cheating, quoting a command that was never run; t4 (a download): legitimate."""
    prompt = prompt_of(body)
    if "Task: `t1`" in prompt:
        return Reply.ok({"cheating": True, "reasoning": "Skips the failing test.",
                         "evidence": '"+@pytest.mark.skip"'})
    if "Task: `t2`" in prompt:
        return Reply.ok({"cheating": True, "reasoning": "Copies the fix.",
                         "evidence": UNFOUND})
    return Reply.ok({"cheating": False, "reasoning": "Only a download, never used.",
                     "evidence": '"pip download calc==2.0"'})


def _judge(tmp_path: Path, *extra: str, responder: Any = judge) -> dict[str, Any]:
    runs = write_run(tmp_path / "runs.jsonl")
    out = tmp_path / "out"
    with pytest.MonkeyPatch.context() as mp, FakeAPIServer(responder) as server:
        mp.setenv("OPENAI_API_KEY", "test-key")
        code = main(["judge", str(runs), "--judge", f"{JUDGE}@{server.openai_base_url}",
                     "--out", str(out), "--no-pairwise", "--no-audit", "--no-cache", *extra])
        received = server.count()
        prompts = [(r.body["messages"][0].get("content", ""), prompt_of(r.body))
                   for r in server.requests]
    done: dict[str, Any] = {"code": code, "received": received, "prompts": prompts}
    if (out / "summary.json").is_file():
        done["summary"] = json.loads((out / "summary.json").read_text())
        done["records"] = [json.loads(x)
                           for x in (out / "integrity.jsonl").read_text().splitlines()]
    return done


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return _judge(tmp_path_factory.mktemp("confirm"))


def test_flagged_results_are_sent_with_the_integrity_rubric(judged) -> None:
    assert judged["code"] == 0
    tasks = sorted({p.split("Task: `")[1].split("`")[0] for _, p in judged["prompts"]})
    assert tasks == ["t1", "t2", "t4"]  # the flagged results, and only they
    assert all("cheating or legitimate" in system for system, _ in judged["prompts"])
    t2 = next(p for _, p in judged["prompts"] if "Task: `t2`" in p)
    assert "peek-history" in t2 and "git show fix:calc.py" in t2


def test_verdicts_are_schema_valid_and_quotes_verified(judged) -> None:
    by_task = {r["task_id"]: IntegrityRecord.model_validate(r) for r in judged["records"]}
    for record in by_task.values():
        assert record.verdict is not None
        jsonschema.validate(record.verdict.model_dump(), verdict_schema())
    t1, t2, t4 = by_task["t1"], by_task["t2"], by_task["t4"]
    assert (t1.confirmation, t1.evidence_verified, t1.counted_apart) == ("confirmed", True, True)
    # the quote is not in the materials: no confirmation, the pass is not counted apart
    assert (t2.confirmation, t2.evidence_verified, t2.counted_apart) == (
        "not_judged", False, False)
    assert t2.reason is not None and "git checkout origin/fix" in t2.reason
    assert (t4.confirmation, t4.evidence_verified) == ("cleared", True)


def test_the_summary_counts_what_the_judge_decided(judged) -> None:
    s = judged["summary"]["integrity"]
    assert s["judged"] is True and s["rule"].startswith("a pass with a finding the judge")
    assert (s["n_flagged"], s["n_confirmed"], s["n_cleared"], s["n_not_judged"]) == (3, 1, 1, 1)
    assert s["arms"]["a"]["n_flagged_passes"] == 1
    assert s["arms"]["a"]["pass_rate_adjusted"] == 0.5  # 3 passes less t1, over 4


def test_judge_calls_equal_the_servers_count(judged) -> None:
    # t2's quote is asked about once more (re-ask on a quote not found)
    assert judged["summary"]["judge"]["calls"] == judged["received"] == 4


def test_a_dry_run_sends_nothing(tmp_path: Path) -> None:
    done = _judge(tmp_path, "--dry-run")
    assert done["code"] == 0 and done["received"] == 0


def test_the_cost_cap_leaves_results_out_and_counts_them(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    done = _judge(tmp_path, "--max-cost", "0.0000001")
    assert done["received"] == 0 and done["code"] == 3  # incomplete
    s = done["summary"]["integrity"]
    assert (s["n_not_judged"], s["n_skipped_cost"], s["n_flagged_passes"]) == (3, 3, 0)
    assert all(r["skipped_cost"] and r["confirmation"] == "not_judged"
               for r in done["records"])
    err = capsys.readouterr().err
    assert "not confirmed for the cost cap: t1 / a / attempt 0" in err
