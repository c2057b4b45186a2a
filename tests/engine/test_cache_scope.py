"""The verdict cache keys a verdict by the server that gave it as well as the model: one
model name on two servers never shares verdicts, and a broken server's unscored answers
are not served for a working one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from judgekit.cli import main
from judgekit.engine import Engine, EngineConfig
from judgekit.testing import FakeAPIServer, Reply
from tests.cli.helpers import run_file
from tests.engine.engine_helpers import BAD, GOOD, reqs


def local(url: str, tmp_path: Path, **kw: Any) -> EngineConfig:
    return EngineConfig(model="llamacpp:smollm2", base_url=url, progress=False,
                        cache_path=tmp_path / "v.sqlite", max_tries=1, backoff_base=0.01,
                        **kw)


def test_the_same_model_on_another_server_is_asked_every_item(tmp_path: Path) -> None:
    with FakeAPIServer(lambda a, b: Reply.ok(BAD)) as broken, \
            FakeAPIServer(lambda a, b: Reply.ok(GOOD)) as working:
        first = Engine(local(broken.openai_base_url, tmp_path)).run(reqs(4))
        assert [o.state for o in first] == ["unscored"] * 4
        engine = Engine(local(working.openai_base_url, tmp_path))
        second = engine.run(reqs(4))
        assert working.count() == 4
    assert [(o.state, o.cached) for o in second] == [("valid", False)] * 4
    assert engine.judge_run().from_cache == 0


def test_a_valid_verdict_is_served_to_the_server_that_gave_it(tmp_path: Path) -> None:
    with FakeAPIServer(lambda a, b: Reply.ok(GOOD)) as one, \
            FakeAPIServer(lambda a, b: Reply.ok(GOOD)) as two:
        Engine(local(one.openai_base_url, tmp_path)).run(reqs(2))
        # MODEL@URL and --base-url URL name the same server: one key
        again = Engine(EngineConfig(model=f"llamacpp:smollm2@{one.openai_base_url}",
                                    progress=False, cache_path=tmp_path / "v.sqlite"))
        assert [o.cached for o in again.run(reqs(2))] == [True, True]
        Engine(local(two.openai_base_url, tmp_path)).run(reqs(2))
        assert (one.count(), two.count()) == (2, 2)
    assert again.judge_run().from_cache == 2


def test_a_hosted_api_at_its_own_address_keys_by_model_alone() -> None:
    assert EngineConfig(model="anthropic:claude-haiku-4-5").verdict_scope() is None
    assert EngineConfig(model="ollama:m").verdict_scope() == "http://127.0.0.1:11434/v1"


@pytest.fixture
def no_keys(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL",
                 "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("JUDGEKIT_CACHE", str(tmp_path / "verdicts.sqlite"))
    return tmp_path


def _judge(runs: Path, url: str, out: Path, *extra: str) -> dict[str, Any]:
    code = main(["judge", str(runs), "--judge", "llamacpp:smollm2", "--base-url", url,
                 "--no-audit", "--max-tries", "1", "--out", str(out), *extra])
    assert code in (0, 1)
    return {"summary": json.loads((out / "summary.json").read_text()),
            "records": [json.loads(line) for line in
                        (out / "pairwise.jsonl").read_text().splitlines()]}


def test_judge_on_a_working_server_after_a_broken_one_calls_it_for_every_item(
        no_keys: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = run_file(no_keys)
    with FakeAPIServer(lambda a, b: Reply.ok({"nonsense": 1})) as broken, \
            FakeAPIServer() as working:
        bad = _judge(runs, broken.openai_base_url, no_keys / "o1")
        asked = broken.count()
        good = _judge(runs, working.openai_base_url, no_keys / "o2")
        received = working.count()
    assert bad["summary"]["pairwise_run"]["states"].get("unscored", 0) > 0
    run = good["summary"]["pairwise_run"]
    assert received == asked == run["n_calls"] > 0
    assert run["states"]["valid"] == run["n_pairs"] and run["n_cached"] == 0
    judge = good["summary"]["judge"]
    assert judge["base_url"] == working.openai_base_url
    assert (judge["calls"], judge["from_cache"]) == (received, 0)
    assert all(o["state"] == "valid" and not o["cached"]
               for r in good["records"] for o in r["orders"])


def test_a_run_all_from_the_cache_says_so_and_names_the_flag(
        no_keys: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = run_file(no_keys)
    with FakeAPIServer(lambda a, b: Reply.ok({"nonsense": 1})) as broken:
        _judge(runs, broken.openai_base_url, no_keys / "o1")
        asked = broken.count()
        capsys.readouterr()
        kept = _judge(runs, broken.openai_base_url, no_keys / "o2", "--no-retry-unscored")
        assert broken.count() == asked
    judge = kept["summary"]["judge"]
    assert judge["calls"] == 0 and judge["from_cache"] == judge["from_cache_unscored"] == asked
    line = next(x for x in capsys.readouterr().err.splitlines()
                if x.startswith("verdict cache:"))
    assert f"no call made: all {asked} items answered from the cache" in line
    assert f"{asked} of them unscored" in line and "--retry-unscored" in line
