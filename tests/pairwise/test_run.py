from __future__ import annotations

from pathlib import Path

from judgekit.engine import Engine, EngineConfig
from judgekit.pairwise import PairwiseOptions, run_pairwise
from judgekit.scoring import score
from judgekit.testing import FakeAPIServer, Reply
from tests.pairwise.helpers import always, diff, prefers, result, verdict


def _engine(server: FakeAPIServer, tmp_path: Path, provider: str = "anthropic",
            **kw) -> Engine:
    model = "anthropic:claude-haiku-4-5" if provider == "anthropic" else "openai:gpt-4.1-mini"
    base = server.url if provider == "anthropic" else server.openai_base_url
    return Engine(EngineConfig(model=model, base_url=base, cache_path=tmp_path / "c.sqlite",
                               progress=False, backoff_base=0.01, **kw))


def _run(runs, server, tmp_path, options=None, **kw):
    return run_pairwise(runs, score(runs), _engine(server, tmp_path, **kw), options)


def test_identical_diffs_are_a_draw_without_any_call(tmp_path: Path,
                                                      monkeypatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    same = diff("same")
    runs = [result("t1", "a", same), result("t1", "b", same.replace("# same", "#  same "))]
    with FakeAPIServer(always("A")) as server:
        report = _run(runs, server, tmp_path)
        assert server.count() == 0
    [rec] = report.records
    assert rec.identical and rec.orders == []
    for d in rec.dimensions.values():
        assert (d.winner, d.state, d.order1, d.order2) == ("draw", "valid", None, None)
    stats = report.summary().model_dump(mode="json", exclude_unset=True)["pairwise"]["a vs b"]["minimality"]
    assert (stats["draws"], stats["identical"], stats["position_consistency"]) == (1, 1, None)


def test_a_fair_judge_gives_consistent_wins_to_the_better_arm(tmp_path: Path,
                                                              monkeypatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    runs = [r for t in ("t1", "t2") for r in (result(t, "a", diff("plain " + t)),
                                               result(t, "b", diff("GOOD " + t)))]
    with FakeAPIServer(prefers("GOOD")) as server:
        report = _run(runs, server, tmp_path)
        assert server.count() == 4
    for rec in report.records:
        assert {d.winner for d in rec.dimensions.values()} == {"b"}
        assert {(d.order1, d.order2) for d in rec.dimensions.values()} == {("B", "A")}
    s = report.summary().model_dump(mode="json", exclude_unset=True)["pairwise"]["a vs b"]["completeness"]
    assert (s["wins_a"], s["wins_b"], s["draws"]) == (0, 2, 0)
    assert s["position_consistency"] == 1.0 and s["first_slot_preference"] == 0.5


def test_a_position_biased_judge_yields_draws_and_position_bias(tmp_path: Path,
                                                                monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    runs = [result("t1", "a", diff("x")), result("t1", "b", diff("GOOD"))]
    with FakeAPIServer(always("A")) as server:
        report = _run(runs, server, tmp_path, provider="openai")
    [rec] = report.records
    for d in rec.dimensions.values():
        assert (d.winner, d.order1, d.order2, d.position_bias) == ("draw", "A", "A", True)
    s = report.summary().model_dump(mode="json", exclude_unset=True)["pairwise"]["a vs b"]["consistency"]
    assert (s["draws"], s["position_consistency"], s["first_slot_preference"]) == (1, 0.0, 1.0)


def test_unscored_order_is_recorded_and_left_out_of_counts(tmp_path: Path,
                                                           monkeypatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    runs = [result("t1", "a", diff("x")), result("t1", "b", diff("y"))]

    def respond(api, body):
        swapped = body["messages"][0]["content"]
        text = swapped if isinstance(swapped, str) else "".join(
            b.get("text", "") for b in swapped)
        first_is_y = text.index("# y") < text.index("# x")
        return Reply.raw("no verdict here") if first_is_y else Reply.ok(verdict("A"))

    with FakeAPIServer(respond) as server:
        report = _run(runs, server, tmp_path, max_tries=2)
    [rec] = report.records
    assert [o.state for o in rec.orders] == ["valid", "unscored"]
    for d in rec.dimensions.values():
        assert (d.state, d.order1, d.order2) == ("unscored", "A", None)
    s = report.summary().model_dump(mode="json", exclude_unset=True)["pairwise"]["a vs b"]["consistency"]
    assert (s["n"], s["draws"], s["unscored"]) == (0, 0, 1)


def test_more_than_two_arms_get_a_bradley_terry_ranking(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    runs = [result("t1", "a", diff("plain")), result("t1", "b", diff("GOOD")),
            result("t1", "c", diff("other"))]
    with FakeAPIServer(prefers("GOOD")) as server:
        report = _run(runs, server, tmp_path, PairwiseOptions(pairs=[("a", "b"), ("b", "c"),
                                                                     ("b", "gold")]))
    entries = report.summary().model_dump(mode="json", exclude_unset=True)
    assert set(entries["pairwise"]) == {"a vs b", "b vs c", "b vs gold", "judge_reliability"}
    ranked = entries["pairwise_ranking"]["completeness"]
    assert ranked["ranking"][0] == "b"
    for arm in ("a", "b", "c", "gold"):  # a bootstrap interval around each strength
        lo, hi = ranked["ci"][arm]
        assert 0 <= lo <= hi <= 1


def test_dry_run_estimates_and_calls_nothing(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    runs = [result("t1", "a", diff("x")), result("t1", "b", diff("y"))]
    with FakeAPIServer(always("A")) as server:
        report = _run(runs, server, tmp_path, dry_run=True)
        assert server.count() == 0
    assert report.dry_run and report.estimate.calls == 2


def test_a_rerun_is_served_from_the_cache_without_calls(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    runs = [result("t1", "a", diff("x")), result("t1", "b", diff("GOOD"))]
    with FakeAPIServer(prefers("GOOD")) as server:
        first = _run(runs, server, tmp_path)
        assert server.count() == 2
        again = _run(runs, server, tmp_path)
        assert server.count() == 2
    assert [o.cached for o in again.records[0].orders] == [True, True]
    assert again.records[0].dimensions == first.records[0].dimensions


class _Unannounced:
    """The same engine, without its early notices: every record is built at the end."""

    def __init__(self, engine: Engine) -> None:
        self.config = engine.config
        self._engine = engine

    def run(self, requests, *, total=None, on_outcome=None):
        return self._engine.run(requests, total=total)

    def estimate(self, requests):
        return self._engine.estimate(requests)

    @property
    def stopped(self):
        return self._engine.stopped

    @property
    def spent_usd(self):
        return self._engine.spent_usd


def test_records_built_while_calls_fly_equal_records_built_at_the_end(
        tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    runs = [r for t in ("t1", "t2", "t3") for r in (result(t, "a", diff("plain " + t)),
                                                     result(t, "b", diff("GOOD " + t)))]
    with FakeAPIServer(prefers("GOOD")) as server:
        early = _run(runs, server, tmp_path, use_cache=False)
        late = run_pairwise(runs, score(runs),
                            _Unannounced(_engine(server, tmp_path, use_cache=False)))
        assert server.count() == 12

    def plain(records):  # the first call of a server also pays to write its prompt cache
        return [r.model_dump(exclude={"orders": {"__all__": {"cost_usd"}}}) for r in records]

    assert plain(early.records) == plain(late.records)
    assert {d.winner for r in early.records for d in r.dimensions.values()} == {"b"}
