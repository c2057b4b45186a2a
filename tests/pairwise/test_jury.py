"""A jury of judges on loopback servers, each with scripted behaviour, through the real CLI:
one always prefers the larger patch, one the first slot, one answers on the merits."""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pytest

from judgekit.summary import EvalSummary
from judgekit.testing import FakeAPIServer, Reply
from tests.clirun import ROOT, judgekit
from tests.pairwise.helpers import (
    majority,
    DIMS,
    always,
    prefers,
    prefers_larger,
    result,
    sized_diff,
    pairwise_only,
    two_arm_runs,
    verdict,
    write_runs,
)

N_TASKS = 12


def _runs(tmp_path: Path) -> Path:
    """Twelve tasks; the larger patch and the better one (GOOD) coincide in half of them."""
    runs = []
    for t in range(N_TASKS):
        larger = "ctx" if t % 2 == 0 else "base"
        good = "ctx" if t % 4 in (0, 1) else "base"
        for arm in ("base", "ctx"):
            marker = ("GOOD " if arm == good else "plain ") + str(t)
            runs.append(result(f"t{t}", arm, sized_diff(marker, 6 if arm == larger else 2)))
    return write_runs(tmp_path / "runs.json", runs)


def _judges(servers: dict[str, FakeAPIServer]) -> list[str]:
    """A mix of providers and local servers, each judge with its own URL."""
    spec = {"size": lambda s: f"anthropic:claude-haiku-4-5@{s.url}",
            "first": lambda s: f"openai:first-judge@{s.openai_base_url}",
            "fair": lambda s: f"llamacpp:fair-judge@{s.openai_base_url}",
            "fourth": lambda s: f"openai:fourth-judge@{s.openai_base_url}"}
    return [spec[k](s) for k, s in servers.items()]


def _judge(tmp_path: Path, runs: Path, judges: list[str], *args: object):
    env = {"ANTHROPIC_API_KEY": "test-key-123", "OPENAI_API_KEY": "test-key-123",
           "JUDGEKIT_CACHE": str(tmp_path / "cache.sqlite")}
    flags = [x for j in judges for x in ("--judge", j)]
    return judgekit("judge", runs, "--no-similarity", "--no-audit", *flags, "--out",
                    tmp_path / "out", "--force", *map(str, args), env=env)


def _label(judge: str) -> str:
    return judge.split("@http", 1)[0]



@pytest.fixture(scope="module")
def jury_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp_path = tmp_path_factory.mktemp("jury")
    runs = _runs(tmp_path)
    responders = {"size": prefers_larger(), "first": always("A"), "fair": prefers("GOOD"),
                  "fourth": prefers("GOOD")}
    with ExitStack() as stack:
        servers = {k: stack.enter_context(FakeAPIServer(r)) for k, r in responders.items()}
        three = {k: servers[k] for k in ("size", "first", "fair")}
        proc = _judge(tmp_path, runs, _judges(three))
        assert proc.returncode == 0, proc.stderr
        calls = {k: s.count() for k, s in servers.items()}
        summary = json.loads((tmp_path / "out" / "summary.json").read_text())
        lines = [json.loads(x) for x in
                 (tmp_path / "out" / "pairwise.jsonl").read_text().splitlines()]
        report_md = (tmp_path / "out" / "report.md").read_text()
        report_html = (tmp_path / "out" / "report.html").read_text()
        rebuilt = judgekit("report", tmp_path / "out")
        assert rebuilt.returncode == 0, rebuilt.stderr
        assert (tmp_path / "out" / "report.md").read_text() == report_md
        again = _judge(tmp_path, runs, _judges(servers))
        assert again.returncode == 0, again.stderr
        calls_again = {k: s.count() for k, s in servers.items()}
        summary4 = json.loads((tmp_path / "out" / "summary.json").read_text())
    return {"judges": _judges(three), "summary": summary, "lines": lines, "calls": calls,
            "calls_again": calls_again, "summary4": summary4, "md": report_md,
            "html": report_html}


def test_each_judge_runs_flip_and_draw_and_the_jury_is_themajority(jury_run) -> None:
    calls = jury_run["calls"]
    assert calls == {"size": 2 * N_TASKS, "first": 2 * N_TASKS, "fair": 2 * N_TASKS,
                     "fourth": 0}
    labels = [_label(j) for j in jury_run["judges"]]
    lines = jury_run["lines"]
    assert len(lines) == N_TASKS
    decisive = 0
    for rec in lines:
        assert list(rec["judges"]) == labels
        for dim in DIMS:
            own = [rec["judges"][label]["dimensions"][dim] for label in labels]
            assert all(d["state"] == "valid" for d in own)
            assert {"order1", "order2", "winner"} <= set(own[0])
            assert len(rec["judges"][labels[0]]["orders"]) == 2
            expected = majority([d["winner"] for d in own])
            assert rec["dimensions"][dim]["winner"] == expected
            decisive += expected != "draw"
    assert decisive == 3 * N_TASKS // 2  # where size and merit agree


def test_summary_states_the_jurys_effective_number_of_judges(jury_run) -> None:
    """Computed again from the records' own verdicts by the stated formula."""
    ej = jury_run["summary"]["pairwise"]["jury"]["effective_judges"]
    labels = [_label(j) for j in jury_run["judges"]]
    value = {"draw": 0.5}
    rows = []
    for rec in jury_run["lines"]:
        value.update({rec["arm_a"]: 1.0, rec["arm_b"]: 0.0})
        rows += [[value[rec["judges"][k]["dimensions"][d]["winner"]] for k in labels]
                 for d in DIMS]
    with np.errstate(invalid="ignore", divide="ignore"):  # a judge of one verdict throughout
        corr = np.corrcoef(np.array(rows).T)
    pairs = [corr[i, j] for i in range(3) for j in range(i + 1, 3) if not np.isnan(corr[i, j])]
    r = min(1.0, max(0.0, float(np.mean(pairs))))
    assert ej["n_judges"] == 3 and ej["n_items"] == len(rows)
    assert ej["n_effective"] == pytest.approx(3 / (1 + 2 * r), abs=1e-6)
    assert "n_eff = n / (1 + (n - 1) * r)" in ej["formula"]
    assert f"amount to {ej['n_effective']:.1f} independent ones" in jury_run["md"]


def test_summary_has_each_judge_and_the_jury_and_their_agreement(jury_run) -> None:
    summary = jury_run["summary"]
    labels = [_label(j) for j in jury_run["judges"]]
    jury = summary["pairwise"]["jury"]
    assert jury["rule"] == "majority" and jury["judges"] == labels
    assert set(jury["members"]) == set(labels)
    agreement = jury["agreement"]
    assert agreement["alpha"] is not None and -1 <= agreement["alpha"] <= 1
    lo, hi = agreement["ci"]
    assert lo <= agreement["alpha"] <= hi
    assert set(agreement["by_dimension"]) == set(DIMS)
    pair = summary["pairwise"]["base vs ctx"]
    for dim in DIMS:  # the jury's own statistics
        assert pair[dim]["wins_a"] + pair[dim]["wins_b"] == N_TASKS // 2
        assert pair[dim]["position_consistency"] is None
    for label in labels:
        member = jury["members"][label]
        assert member["run"]["n_calls"] == 2 * N_TASKS
        assert "cost_usd" in member["run"]
        assert set(member["pairs"]["base vs ctx"]) == set(DIMS)
        assert set(member["size_control"]["base vs ctx"]) == set(DIMS)
    assert summary["pairwise_run"]["n_calls"] == 3 * 2 * N_TASKS
    schema = json.loads((ROOT / "judgekit" / "data" / "schemas" / "summary.schema.json")
                        .read_text(encoding="utf-8"))
    jsonschema.validate(summary, schema)  # the published schema holds a jury's summary
    typed = EvalSummary.model_validate(summary)
    assert typed.pairwise is not None and typed.pairwise.jury is not None
    assert set(typed.pairwise.pairs()) == {"base vs ctx"}


def test_first_slot_judge_is_flagged_for_position_size_judge_for_size_fair_for_neither(
        jury_run) -> None:
    members = jury_run["summary"]["pairwise"]["jury"]["members"]
    size, first, fair = (members[_label(j)]["judge_reliability"] for j in jury_run["judges"])
    assert first["flagged"] and first["position_consistency"] == 0.0
    assert any("position consistency" in r for r in first["reasons"])
    assert any("shown first" in r for r in first["reasons"])
    assert all("size" not in r for r in first["reasons"])
    assert not first["size_bias"]["flagged"] and first["size_bias"]["n"] == 0
    assert size["flagged"] and size["size_bias"]["flagged"]
    assert size["size_bias"]["share_larger"] == 1.0 and size["position_consistency"] == 1.0
    assert len(size["reasons"]) == 1 and "patch size" in size["reasons"][0]
    assert not fair["flagged"] and fair["reasons"] == []
    assert fair["size_bias"]["share_larger"] == 0.5 and not fair["size_bias"]["flagged"]
    flagged = jury_run["summary"]["pairwise"]["jury"]["flagged_judges"]
    assert flagged == [_label(jury_run["judges"][0]), _label(jury_run["judges"][1])]
    assert jury_run["summary"]["pairwise"]["judge_reliability"]["flagged"]


def test_size_controlled_win_rate_takes_the_size_out(jury_run) -> None:
    members = jury_run["summary"]["pairwise"]["jury"]["members"]
    size = members[_label(jury_run["judges"][0])]["size_control"]["base vs ctx"]["minimality"]
    fair = members[_label(jury_run["judges"][2])]["size_control"]["base vs ctx"]["minimality"]
    assert size["size_effect"]["ci"][0] > 0  # the size judge's wins follow size
    assert fair["size_effect"]["ci"][0] < 0 < fair["size_effect"]["ci"][1]
    assert size["win_rate_a"] == pytest.approx(0.5, abs=0.01)


def test_adding_a_fourth_judge_calls_only_the_new_judge(jury_run) -> None:
    before, after = jury_run["calls"], jury_run["calls_again"]
    assert {k: after[k] - before[k] for k in after} == {
        "size": 0, "first": 0, "fair": 0, "fourth": 2 * N_TASKS}
    jury = jury_run["summary4"]["pairwise"]["jury"]
    assert len(jury["judges"]) == 4
    assert [m["run"]["n_calls"] for m in jury["members"].values()] == [0, 0, 0, 2 * N_TASKS]


def test_the_report_shows_each_judge_the_jury_and_their_agreement(jury_run) -> None:
    summary, md, html = jury_run["summary"], jury_run["md"], jury_run["html"]
    alpha = summary["pairwise"]["jury"]["agreement"]["alpha"]
    agreement = summary["pairwise"]["jury"]["agreement"]
    members = summary["pairwise"]["jury"]["members"]
    for text in (md, html):
        assert "Jury" in text and f"{alpha:.2f} [{agreement['ci'][0]:.2f}, " in text
        for dim, entry in agreement["by_dimension"].items():
            assert f"{entry['alpha']:.2f}" in text
        for judge in jury_run["judges"]:
            member = members[_label(judge)]
            assert _label(judge) in text
            assert f"${member['run']['cost_usd']:.2f}" in text or (
                f"${member['run']['cost_usd']:.4f}" in text)
            bias = member["judge_reliability"]["size_bias"]["by_dimension"]["minimality"]
            if bias["share_larger"] is not None:
                assert f"{100 * bias['share_larger']:.1f}% of {bias['n']}" in text
            control = member["size_control"]["base vs ctx"]["minimality"]
            effect = control["arm_effect_size_controlled"]["estimate"]
            assert f"{effect:+.2f}" in text
        assert "larger patch" in text and "at equal size" in text
    # plots: alpha, bars per dimension, each judge's size lean, win rate by size ratio
    assert html.count("<svg") >= 1 + 3 + 2 + 4 * 3


def test_one_judge_writes_what_it_always_did_and_a_second_is_the_only_one_called(
        tmp_path: Path) -> None:
    runs = _runs(tmp_path)
    with FakeAPIServer(prefers("GOOD")) as fair, FakeAPIServer(prefers_larger()) as size:
        one = f"openai:fair-judge@{fair.openai_base_url}"
        proc = _judge(tmp_path, runs, [one])
        assert proc.returncode == 0, proc.stderr
        assert fair.count() == 2 * N_TASKS
        lines = [json.loads(x) for x in
                 (tmp_path / "out" / "pairwise.jsonl").read_text().splitlines()]
        assert all("judges" not in rec for rec in lines)
        summary = json.loads((tmp_path / "out" / "summary.json").read_text())
        assert "jury" not in summary["pairwise"]
        assert summary["pairwise_run"]["judge"] == "openai:fair-judge"
        two = [one, f"anthropic:claude-haiku-4-5@{size.url}"]
        proc = _judge(tmp_path, runs, two, "--jury", "unanimous")
        assert proc.returncode == 0, proc.stderr
        assert (fair.count(), size.count()) == (2 * N_TASKS, 2 * N_TASKS)
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["pairwise"]["jury"]["rule"] == "unanimous"
    for rec in (json.loads(x) for x in
                (tmp_path / "out" / "pairwise.jsonl").read_text().splitlines()):
        for dim in DIMS:
            votes = {rec["judges"][_label(j)]["dimensions"][dim]["winner"] for j in two}
            expected = votes.pop() if len(votes) == 1 else "draw"
            assert rec["dimensions"][dim]["winner"] == expected


def test_a_dry_run_of_a_jury_estimates_each_judge_and_calls_nothing(tmp_path: Path) -> None:
    runs = _runs(tmp_path)
    with FakeAPIServer(prefers("GOOD")) as one, FakeAPIServer(always("A")) as two:
        judges = [f"anthropic:claude-haiku-4-5@{one.url}",
                  f"anthropic:claude-sonnet-4-5@{two.url}"]
        proc = _judge(tmp_path, runs, judges, "--dry-run")
        assert (one.count(), two.count()) == (0, 0)
    assert proc.returncode == 0, proc.stderr
    assert "claude-haiku-4-5" in proc.stderr and "claude-sonnet-4-5" in proc.stderr
    assert proc.stderr.count(f"{2 * N_TASKS} calls") == 2


def test_max_cost_holds_for_the_jury_as_a_whole(tmp_path: Path) -> None:
    runs = two_arm_runs(tmp_path / "runs.json", 20, "a{}", "b{}")
    cheap = pairwise_only(lambda api, body: Reply.ok(verdict("A")))  # and empty audits

    # long answers (2,000 output tokens at $15 per million): about $0.03 a call
    costly = lambda api, body: Reply.ok(verdict("A"), usage={"output_tokens": 2000})  # noqa: E731
    with FakeAPIServer(cheap) as one, FakeAPIServer(costly) as two:
        judges = [f"anthropic:claude-haiku-4-5@{one.url}",
                  f"anthropic:claude-sonnet-4-5@{two.url}"]
        env = {"ANTHROPIC_API_KEY": "k", "JUDGEKIT_CACHE": str(tmp_path / "c.sqlite")}
        proc = judgekit("judge", runs, "--no-similarity", "--judge", judges[0], "--judge",
                        judges[1], "--max-cost", "0.40", "--out", tmp_path / "out", env=env)
        calls = one.count() + two.count()
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    run, audit = summary["pairwise_run"], summary["audit"]
    members = list(summary["pairwise"]["jury"]["members"].values())
    assert members[0]["run"]["n_skipped_cost"] == 0 < members[1]["run"]["n_skipped_cost"]
    assert calls == run["n_calls"] + audit["tries_total"]
    assert run["n_calls"] == sum(m["run"]["n_calls"] for m in members)
    assert 0 < run["cost_usd"] + (audit["cost_usd"] or 0.0) <= 0.40
    assert audit["n_skipped_cost"] > 0  # the jury left the audit (almost) nothing
    assert proc.returncode != 0 and "Traceback" not in proc.stderr  # incomplete


def test_a_judge_refused_by_its_server_is_named_and_the_others_still_judge(
        tmp_path: Path) -> None:
    runs = _runs(tmp_path)
    with FakeAPIServer(prefers("GOOD")) as good, \
            FakeAPIServer(lambda api, body: Reply.fault(401)) as refused:
        judges = [f"anthropic:claude-haiku-4-5@{good.url}",
                  f"openai:gpt-4.1@{refused.openai_base_url}"]
        proc = _judge(tmp_path, runs, judges)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "judge openai:gpt-4.1: stopped: authentication failed" in lines[0]
    assert "test-key-123" not in proc.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    members = summary["pairwise"]["jury"]["members"]
    assert members["anthropic:claude-haiku-4-5"]["run"]["n_calls"] == 2 * N_TASKS
    assert summary["pairwise"]["jury"]["agreement"]["alpha"] is None  # one judge's verdicts
    for rec in (json.loads(x) for x in
                (tmp_path / "out" / "pairwise.jsonl").read_text().splitlines()):
        for dim in DIMS:  # the majority of the judges with a verdict: the one that answered
            own = rec["judges"]["anthropic:claude-haiku-4-5"]["dimensions"][dim]["winner"]
            assert rec["dimensions"][dim]["winner"] == own
            assert rec["judges"]["openai:gpt-4.1"]["dimensions"][dim]["state"] == "error"
