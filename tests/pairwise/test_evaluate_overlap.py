"""``evaluate`` with a judge makes the score statistics while the first calls wait, and the
result is the same as scoring alone."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from judgekit.engine import EngineConfig
from judgekit.evaluate import evaluate
from judgekit.scoring import score
from judgekit.testing import FakeAPIServer
from tests.pairwise.helpers import diff, prefers, result

evaluate_module = importlib.import_module("judgekit.evaluate")  # the package exports the function


def _runs() -> list:
    out = []
    for t in range(6):
        out += [result(f"t{t}", "a", diff(f"a{t}"), passed=t % 2 == 0),
                result(f"t{t}", "b", diff(f"better{t}"))]
    return out


def _config(server: FakeAPIServer, tmp_path: Path) -> EngineConfig:
    return EngineConfig(model="anthropic:claude-haiku-4-5", base_url=server.url,
                        cache_path=tmp_path / "c.sqlite", progress=False, concurrency=4)


def test_the_statistics_are_made_while_the_calls_are_in_flight(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    made_at: list[int] = []
    real = evaluate_module.summarise

    def watched(*args, **kwargs):
        made_at.append(server.count())
        return real(*args, **kwargs)

    monkeypatch.setattr(evaluate_module, "summarise", watched)
    runs = _runs()
    with FakeAPIServer(prefers("better"), latency=0.2) as server:
        result = evaluate(runs, judge=_config(server, tmp_path), audit=False)
    # 12 calls, 4 at a time: the server had not yet been sent them all
    assert len(made_at) == 1 and made_at[0] < 12, made_at
    assert result.summary == score(runs)  # the same statistics as scoring alone
    assert result.pairwise is not None and len(result.pairwise.records) == 6


def test_work_handed_over_while_judging_sees_the_finished_summary(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    seen = []

    def work(result):
        seen.append(result.summary)
        yield

    runs = _runs()
    with FakeAPIServer(prefers("better"), latency=0.2) as server:
        result = evaluate(runs, judge=_config(server, tmp_path), audit=False,
                          while_judging=work)
    assert seen == [result.summary]
    assert seen[0] is result.summary  # one summary, made once


def test_a_dry_run_still_gives_the_summary(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    runs = _runs()
    with FakeAPIServer(prefers("better")) as server:
        config = _config(server, tmp_path).model_copy(update={"dry_run": True})
        result = evaluate(runs, judge=config, audit=False)
        assert server.count() == 0
    assert result.summary == score(runs)


def test_the_typed_summary_is_what_its_written_out_form_reads_back_as(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``summary_of`` takes the steps' typed summaries as they are; ``summary.json`` is
    the same as writing them out and validating them again."""
    import json

    from judgekit.summary import EvalSummary, summary_of

    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    runs = _runs() + [result("t9", "c", diff("alone"))]  # an arm paired with none (n = 0)
    with FakeAPIServer(prefers("better")) as server:
        judged = evaluate(runs, judge=_config(server, tmp_path), audit=False)
    judged.notes.append("a note")
    direct = summary_of(judged)
    round_trip = EvalSummary.model_validate(json.loads(direct.to_json_text()))
    assert direct.to_json_text() == round_trip.model_dump_json(indent=2,
                                                                exclude_unset=True) + "\n"
    assert direct.as_json() == round_trip.model_dump(mode="json", exclude_unset=True)
    assert direct.results[0] is judged.summary.results[0]  # taken, not copied
    assert judged.pairwise is not None
    assert direct.pairwise is judged.pairwise.summary().pairwise
