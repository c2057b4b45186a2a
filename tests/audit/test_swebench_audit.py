"""``judgekit audit`` on SWE-bench predictions with the logs elsewhere (``--swebench-logs``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from judgekit.cli import main
from judgekit.testing import FakeAPIServer, Reply, prompt_of
from tests.audit.helpers import agent_verdict

DATA = Path(__file__).parent.parent / "ingest" / "data" / "swebench"


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-openai-key")


def test_unresolved_instances_are_audited_with_the_gold_patch_and_test_output(
        tmp_path: Path) -> None:
    shutil.copy(DATA / "predictions.json", tmp_path / "preds.json")
    logs = tmp_path / "evaluation" / "run_evaluation"
    shutil.copytree(DATA / "logs" / "run_evaluation", logs)

    def judge(api: str, body: dict[str, Any]) -> Reply:
        if "django__django-11099" in prompt_of(body):
            return Reply.ok(agent_verdict(evidence=["AssertionError: ValidationError not raised",
                                                    r"regex = r'\A[\w.@+-]+\Z'"]))
        return Reply.ok(agent_verdict(evidence=[]))

    out = tmp_path / "out"
    with FakeAPIServer(judge) as server:
        code = main(["audit", str(tmp_path / "preds.json"), "--swebench-logs", str(logs),
                     "--tasks", str(DATA / "swe_bench_verified_sample.jsonl"),
                     "--rubric", "swe-bench", "--judge", "openai:gpt-4.1-mini",
                     "--base-url", server.openai_base_url, "--out", str(out), "--no-cache",
                     "--no-similarity"])
        prompts = {t: prompt_of(r.body) for r in server.requests if r.api == "openai"
                   for t in ["django__django-11099"] if t in prompt_of(r.body)}
    assert code == 0
    records = {json.loads(line)["task_id"]: json.loads(line)
               for line in (out / "audit.jsonl").read_text().splitlines()}
    assert "astropy__astropy-12907" not in records  # resolved: not audited
    assert {"django__django-11099", "sympy__sympy-20590", "psf__requests-2317",
            "pallets__flask-4045"} == set(records)
    django = records["django__django-11099"]
    assert django["evidence_verified"] is True
    assert {"test output", "FAIL_TO_PASS tests", "test patch"} <= set(django["materials"])
    prompt = prompts["django__django-11099"]
    assert "UsernameValidator allows trailing newline" in prompt  # the problem statement
    assert "django/contrib/auth/validators.py" in prompt  # the gold patch
