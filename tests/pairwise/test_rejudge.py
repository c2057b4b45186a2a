"""``judgekit judge OUT_DIR --judge NEW``: a judged output gains a judge without re-running.

Each judge has its own loopback server, so the requests each one receives are counted; the
judging again runs with a new, empty judge cache, so a judge that is not asked cannot have
been answered from the cache either.
"""

from __future__ import annotations

import json
import shutil
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from judgekit.testing import FakeAPIServer
from tests.clirun import judgekit
from tests.pairwise.helpers import (
    majority,
    DIMS,
    always,
    prefers,
    prefers_larger,
    pairwise_only,
    two_arm_runs,
)
from tests.pairwise.test_jury import N_TASKS, _runs

SPEC = {"size": lambda s: f"anthropic:claude-haiku-4-5@{s.url}",
        "first": lambda s: f"openai:first-judge@{s.openai_base_url}",
        "fair": lambda s: f"llamacpp:fair-judge@{s.openai_base_url}",
        "fourth": lambda s: f"openai:fourth-judge@{s.openai_base_url}"}
LABEL = {"size": "anthropic:claude-haiku-4-5", "first": "openai:first-judge",
         "fair": "llamacpp:fair-judge", "fourth": "openai:fourth-judge"}


def _env(cache: Path) -> dict[str, str]:
    return {"ANTHROPIC_API_KEY": "test-key-123", "OPENAI_API_KEY": "test-key-123",
            "JUDGEKIT_CACHE": str(cache)}


def _flags(servers: dict[str, FakeAPIServer], names: list[str]) -> list[str]:
    return [x for n in names for x in ("--judge", SPEC[n](servers[n]))]


def _read(out: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    summary = json.loads((out / "summary.json").read_text())
    lines = [json.loads(x) for x in (out / "pairwise.jsonl").read_text().splitlines()]
    return summary, lines



@pytest.fixture(scope="module")
def rejudged(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("rejudge")
    runs = _runs(tmp)
    out = tmp / "out"
    responders = {"size": prefers_larger(), "first": always("A"), "fair": prefers("GOOD"),
                  "fourth": prefers("plain")}
    got: dict[str, Any] = {}
    with ExitStack() as stack:
        servers = {k: stack.enter_context(FakeAPIServer(r)) for k, r in responders.items()}
        proc = judgekit("judge", runs, "--no-similarity", "--no-audit",
                        *_flags(servers, ["size", "first", "fair"]), "--out", out,
                        env=_env(tmp / "first.sqlite"))
        assert proc.returncode == 0, proc.stderr
        got["before"] = _read(out)
        counts = {k: s.count() for k, s in servers.items()}
        (tmp / "runs.json").unlink()  # the output alone is judged again
        proc = judgekit("judge", out, *_flags(servers, ["fourth"]),
                        env=_env(tmp / "second.sqlite"))
        assert proc.returncode == 0, proc.stderr
        got["stderr"] = proc.stderr
        got["added"] = {k: s.count() - counts[k] for k, s in servers.items()}
        got["after"] = _read(out)
        got["md"] = (out / "report.md").read_text()
        counts = {k: s.count() for k, s in servers.items()}
        replaced = tmp / "replaced"
        proc = judgekit("judge", out, *_flags(servers, ["fair", "fourth"]), "--replace-judges",
                        "--jury", "unanimous", "--out", replaced,
                        env=_env(tmp / "third.sqlite"))
        assert proc.returncode == 0, proc.stderr
        got["replaced_calls"] = {k: s.count() - counts[k] for k, s in servers.items()}
        got["replaced"] = _read(replaced)
    return got


def test_only_the_new_judge_is_called(rejudged: dict[str, Any]) -> None:
    assert rejudged["added"] == {"size": 0, "first": 0, "fair": 0, "fourth": 2 * N_TASKS}


def test_the_old_verdicts_are_kept_and_the_jury_is_computed_over_all_four(
        rejudged: dict[str, Any]) -> None:
    _, before = rejudged["before"]
    _, after = rejudged["after"]
    old = [LABEL[k] for k in ("size", "first", "fair")]
    assert len(after) == len(before) == N_TASKS
    changed = 0
    for b, a in zip(before, after):
        assert list(a["judges"]) == [*old, LABEL["fourth"]]
        for label in old:
            assert a["judges"][label] == b["judges"][label]
        for dim in DIMS:
            votes = [a["judges"][label]["dimensions"][dim]["winner"] for label in a["judges"]]
            assert a["dimensions"][dim]["winner"] == majority(votes)
            changed += a["dimensions"][dim]["winner"] != b["dimensions"][dim]["winner"]
    assert changed == 3 * N_TASKS // 2  # the fourth judge, against the fair one, makes the
    # verdicts where size and merit agree (2 of 3 judges before) draws (2 of 4)


def test_the_summary_reuses_each_old_judges_entries_and_adds_the_new_one(
        rejudged: dict[str, Any]) -> None:
    before, _ = rejudged["before"]
    after, _ = rejudged["after"]
    jury_before, jury = before["pairwise"]["jury"], after["pairwise"]["jury"]
    assert jury["judges"] == [*jury_before["judges"], LABEL["fourth"]]
    for label in jury_before["judges"]:
        assert jury["members"][label] == jury_before["members"][label]
    assert jury["members"][LABEL["fourth"]]["run"]["n_calls"] == 2 * N_TASKS
    assert jury["agreement"]["alpha"] != jury_before["agreement"]["alpha"]
    assert any("reused from the judged output" in n for n in after["pairwise_run"]["notes"])
    assert jury["reused_judges"] == jury_before["judges"]
    assert after["pairwise_run"]["n_calls"] == 2 * N_TASKS  # this run's calls only
    assert after["judge"]["model"] == "openai:fourth-judge"
    assert "judge openai:first-judge: verdicts reused from the judged output, no call" in (
        rejudged["stderr"])
    assert after["results"] == before["results"] and after["arms"] == before["arms"]
    assert LABEL["fourth"] in rejudged["md"]


def test_replace_judges_keeps_only_the_judges_given_and_calls_none_it_has(
        rejudged: dict[str, Any]) -> None:
    assert set(rejudged["replaced_calls"].values()) == {0}
    summary, lines = rejudged["replaced"]
    jury = summary["pairwise"]["jury"]
    assert jury["judges"] == [LABEL["fair"], LABEL["fourth"]] and jury["rule"] == "unanimous"
    _, after = rejudged["after"]
    for rec, old in zip(lines, after):
        assert list(rec["judges"]) == [LABEL["fair"], LABEL["fourth"]]
        for dim in DIMS:
            votes = {rec["judges"][j]["dimensions"][dim]["winner"] for j in rec["judges"]}
            assert rec["dimensions"][dim]["winner"] == (votes.pop() if len(votes) == 1
                                                        else "draw")
            assert rec["judges"][LABEL["fair"]] == old["judges"][LABEL["fair"]]


def _judge_first(runs: Path, servers: dict[str, Any], out: Path, tmp_path: Path) -> None:
    """Judge ``runs`` with the fair judge alone, into ``out``."""
    proc = judgekit("judge", runs, "--no-similarity", "--no-audit",
                    *_flags(servers, ["fair"]), "--out", out, env=_env(tmp_path / "a"))
    assert proc.returncode == 0, proc.stderr


def test_one_judges_output_becomes_a_jury(tmp_path: Path) -> None:
    runs = _runs(tmp_path)
    out = tmp_path / "out"
    with FakeAPIServer(prefers("GOOD")) as fair, FakeAPIServer(always("A")) as first:
        servers = {"fair": fair, "first": first}
        _judge_first(runs, servers, out, tmp_path)
        before, old = _read(out)
        proc = judgekit("judge", out, *_flags(servers, ["first"]), "--json",
                        env=_env(tmp_path / "b"))
        assert proc.returncode == 0, proc.stderr
        assert (fair.count(), first.count()) == (2 * N_TASKS, 2 * N_TASKS)
    summary, lines = _read(out)
    assert json.loads(proc.stdout)["pairwise"]["jury"]["judges"] == summary["pairwise"][
        "jury"]["judges"] == [LABEL["fair"], LABEL["first"]]
    member = summary["pairwise"]["jury"]["members"][LABEL["fair"]]
    assert member["run"] == before["pairwise_run"]
    assert member["judge_reliability"] == before["pairwise"]["judge_reliability"]
    for rec, o in zip(lines, old):
        assert rec["judges"][LABEL["fair"]]["dimensions"] == o["dimensions"]
        assert rec["judges"][LABEL["fair"]]["orders"] == o["orders"]


def test_a_plan_the_output_was_not_judged_with_is_refused_before_any_call(
        tmp_path: Path) -> None:
    runs = _runs(tmp_path)
    out = tmp_path / "out"
    with FakeAPIServer(prefers("GOOD")) as fair, FakeAPIServer(always("A")) as first:
        servers = {"fair": fair, "first": first}
        _judge_first(runs, servers, out, tmp_path)
        kept = (out / "pairwise.jsonl").read_text()
        proc = judgekit("judge", out, *_flags(servers, ["first"]), "--pairs", "base:gold",
                        env=_env(tmp_path / "b"))
        assert first.count() == 0
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "pairs" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert (out / "pairwise.jsonl").read_text() == kept


def test_an_output_without_its_runs_is_named(tmp_path: Path) -> None:
    runs = _runs(tmp_path)
    out = tmp_path / "out"
    with FakeAPIServer(prefers("GOOD")) as fair:
        proc = judgekit("judge", runs, "--no-similarity", "--no-audit",
                        *_flags({"fair": fair}, ["fair"]), "--out", out,
                        env=_env(tmp_path / "a"))
        assert proc.returncode == 0, proc.stderr
        moved = tmp_path / "elsewhere"
        shutil.copytree(out, moved)
        (moved / "runs.jsonl").unlink()
        proc = judgekit("judge", moved, "--judge", SPEC["fair"](fair).replace("fair", "new"),
                        env=_env(tmp_path / "b"))
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert "runs.jsonl" in line and "missing" in line


def test_the_audit_and_the_scores_are_carried_over_unchanged(tmp_path: Path) -> None:
    runs = two_arm_runs(tmp_path / "runs.json", 4, "GOOD {}", "plain {}")
    judge = pairwise_only(prefers("GOOD"))  # and empty audits

    out = tmp_path / "out"
    with FakeAPIServer(judge) as one, FakeAPIServer(always("A")) as two:
        proc = judgekit("judge", runs, "--no-similarity", "--judge",
                        f"openai:one@{one.openai_base_url}", "--out", out,
                        env=_env(tmp_path / "a"))
        assert proc.returncode == 0, proc.stderr
        before, _ = _read(out)
        audit_lines = (out / "audit.jsonl").read_text()
        proc = judgekit("judge", out, "--judge", f"openai:two@{two.openai_base_url}",
                        env=_env(tmp_path / "b"))
        assert proc.returncode == 0, proc.stderr
        assert two.count() == 2 * 4
    after, _ = _read(out)
    assert before["audit"]["n_failed"] == 2
    assert after["audit"] == before["audit"]
    assert (out / "audit.jsonl").read_text() == audit_lines
    assert after["results"] == before["results"]
    assert after["pairwise"]["jury"]["judges"] == ["openai:one", "openai:two"]
