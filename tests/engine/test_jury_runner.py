"""One jury runner holds every jury to the cost cap: pairwise judging by a jury, the audit
by a jury and ``judge DIR --judge NEW`` each stop at the same cap, each judge spending only
what the judges before it left (judgekit.engine.jury).

The scenario: every call costs the same, the first judge's work fits under the cap and
both judges' does not, so the second judge spends part of what is left and then stops;
the jury as a whole then makes as many calls, and spends as much, whichever caller asks
it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from judgekit import evaluate
from judgekit.engine.config import EngineConfig
from judgekit.evaluate import AuditStep, EvalResult, run_pipeline
from judgekit.rejudge import load_judged_output, rejudge
from judgekit.report import write_reports
from judgekit.summary import summary_of
from judgekit.testing import FakeAPIServer, Reply
from judgekit.testing.replies import schema_of
from tests.audit.helpers import agent_verdict
from tests.pairwise.helpers import result, sized_diff, verdict, write_runs

#: $0.303 a call, whatever its prompt: 1,000 input tokens at $3 per million and 20,000
#: output tokens (the judges' max_tokens) at $15; no prompt cache.
COSTLY = {"input_tokens": 1000, "output_tokens": 20_000, "cache_read_tokens": 0,
          "cache_write_tokens": 0}
MAX_TOKENS = 20_000
#: each judge's work is 12 calls (6 pairs in two orders; 6 failed results, each asked again
#: once for its evidence): the cap admits them and 6 calls of the second judge (a call is
#: admitted while the spend so far and its worst case, about $0.31-0.37, fit).
CAP = 5.64
MODEL = "anthropic:claude-sonnet-4-5"
N_TASKS = 6


def costly(api: str, body: dict[str, Any]) -> Reply:
    pairwise = "consistency" in (schema_of(body) or {}).get("properties", {})
    return Reply.ok(verdict("A") if pairwise else agent_verdict(), usage=COSTLY)


def _config(server: FakeAPIServer, cap: float | None = CAP, model: str = MODEL
            ) -> EngineConfig:
    return EngineConfig(model=model, base_url=server.url, use_cache=False, progress=False,
                        backoff_base=0.01, concurrency=1, max_cost_usd=cap,
                        max_tokens=MAX_TOKENS)


def _pairwise_spend(result: EvalResult) -> list[tuple[float, int]]:
    """(dollars, items left out for the cost cap) of each judge of the pairwise jury."""
    summary = summary_of(result)
    assert summary.pairwise is not None and summary.pairwise.jury is not None
    runs = [m.run for m in summary.pairwise.jury.members.values()]
    return [(r.cost_usd, r.n_skipped_cost or 0) for r in runs if r is not None]


def _audit_spend(result: EvalResult) -> list[tuple[float, int]]:
    summary = summary_of(result)
    assert summary.audit is not None and summary.audit.jury is not None
    return [(m.cost_usd or 0.0, m.n_skipped_cost or 0)
            for m in summary.audit.jury.members.values()]


def _by_jury(runs: Path, one: FakeAPIServer, two: FakeAPIServer, tmp: Path
             ) -> list[tuple[float, int]]:
    result = evaluate(runs, judge=[_config(one), _config(two)], audit=False)
    return _pairwise_spend(result)


def _by_audit_jury(runs: Path, one: FakeAPIServer, two: FakeAPIServer, tmp: Path
                   ) -> list[tuple[float, int]]:
    result = run_pipeline(runs, [AuditStep(jury=True)], judge=[_config(one), _config(two)])
    return _audit_spend(result)


def _by_rejudging(runs: Path, one: FakeAPIServer, two: FakeAPIServer, tmp: Path
                  ) -> list[tuple[float, int]]:
    with FakeAPIServer(costly) as first:  # the output to judge again, judged without a cap
        judged = evaluate(runs, judge=_config(first, None, "anthropic:claude-haiku-4-5"),
                          audit=False)
    write_reports(judged, tmp / "out")
    result = rejudge(load_judged_output(tmp / "out"), [_config(one), _config(two)],
                     replace=True)
    return _pairwise_spend(result)


CALLERS = {"pairwise jury": _by_jury, "audit jury": _by_audit_jury,
           "judge DIR --judge NEW": _by_rejudging}


@pytest.fixture(scope="module")
def spends(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[tuple[float, int]]]:
    tmp = tmp_path_factory.mktemp("jury-cap")
    # one pair a task; the first arm fails every task (the audit's results), the second passes
    runs = write_runs(tmp / "runs.json", [
        result(f"t{t}", arm, sized_diff(f"{arm}{t}", size), passed=arm == "ctx")
        for t in range(N_TASKS) for arm, size in (("base", 2), ("ctx", 3))])
    out = {}
    for name, caller in CALLERS.items():
        with FakeAPIServer(costly) as one, FakeAPIServer(costly) as two:
            out[name] = caller(runs, one, two, tmp / name.replace(" ", "-"))
    return out


@pytest.mark.parametrize("caller", list(CALLERS))
def test_each_caller_stops_at_the_cap_for_the_jury_as_a_whole(
        spends: dict[str, list[tuple[float, int]]], caller: str) -> None:
    (first, first_left), (second, second_left) = spends[caller]
    assert first + second <= CAP + 1e-9
    assert first > 0 and first_left == 0  # the first judge's work fits under the cap
    assert second > 0  # the second judge spent what the first one left...
    assert second_left > 0  # ...and no more: it was held to it


def test_the_jury_spends_the_same_whichever_caller(
        spends: dict[str, list[tuple[float, int]]]) -> None:
    totals = {caller: round(sum(spent for spent, _ in judges), 6)
              for caller, judges in spends.items()}
    assert len(set(totals.values())) == 1, totals
    assert spends["pairwise jury"] == spends["judge DIR --judge NEW"]  # the same pairs
