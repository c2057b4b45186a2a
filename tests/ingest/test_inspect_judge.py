"""``judgekit judge`` and ``judgekit audit`` on Inspect AI logs written by inspect-ai itself:
pairs come from the evals' arms, audits see the sample's materials and the agent's patch.
The judge is a scripted loopback API (exact verdicts); the logs are real."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from judgekit.testing import FakeAPIServer, prompt_of  # noqa: E402
from tests.clirun import judgekit  # noqa: E402
from tests.ingest import inspect_evals as ev  # noqa: E402

JUDGE = "openai:gpt-4.1-mini"


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("logs")
    ev.run(ev.swe_calc(errors="s5"), out, "eval", ev.BASELINE, metadata={"arm": "baseline"})
    ev.run(ev.swe_calc(), out, "json", ev.CONTEXT, metadata={"arm": "context"})
    return out


def env(server: FakeAPIServer, tmp_path: Path) -> dict[str, str]:
    return {**server.env(), "OPENAI_API_KEY": "test-key-123",
            "JUDGEKIT_CACHE": str(tmp_path / "cache.sqlite")}


def test_judge_pairs_the_arms_of_the_evals(logs: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    with FakeAPIServer() as server:
        proc = judgekit("judge", logs, "--judge", JUDGE, "--out", out, "--no-audit",
                        "--no-similarity", env=env(server, tmp_path))
        prompts = [prompt_of(r.body) for r in server.requests if r.api == "openai"]
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(x) for x in (out / "pairwise.jsonl").read_text().splitlines()]
    assert {(r["arm_a"], r["arm_b"]) for r in records} == {("baseline", "context")}
    # s1 and s2: the same patch in both arms (a draw without a call); s5's baseline errored
    assert sorted(r["task_id"] for r in records) == [f"swe_calc/s{i}" for i in (1, 2, 3, 4)]
    assert len(prompts) == 4  # s3 and s4, each in both orders
    assert all("calc/util.py" in p for p in prompts)  # the baseline's patch
    assert any("calc/mul.py" in p for p in prompts) and any("calc/div.py" in p for p in prompts)


def test_audit_sees_the_samples_materials_and_the_patch(logs: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    with FakeAPIServer() as server:
        proc = judgekit("audit", logs, "--rubric", "swe-bench", "--judge", JUDGE, "--out", out,
                        "--no-similarity", env=env(server, tmp_path))
        prompts = {r.body and prompt_of(r.body) for r in server.requests if r.api == "openai"}
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(x) for x in (out / "audit.jsonl").read_text().splitlines()]
    audited = {(r["arm"], r["task_id"]) for r in records}
    assert {("baseline", "swe_calc/s3"), ("baseline", "swe_calc/s4"),
            ("context", "swe_calc/s5")} <= audited
    assert ("context", "swe_calc/s3") not in audited  # passed: not audited
    s3 = next(r for r in records if (r["arm"], r["task_id"]) == ("baseline", "swe_calc/s3"))
    assert {"test patch", "FAIL_TO_PASS tests"} <= set(s3["materials"])
    [prompt] = [p for p in prompts if "Fix the bug of calc/mul.py" in p]
    assert "tests/test_mul.py::test_bug" in prompt  # FAIL_TO_PASS
    assert "calc/util.py" in prompt  # the agent's patch
