"""Every count report.md, report.html and the closing lines show equals the matching number
in summary.json: for the bundled example (judging skipped) and for a judged and audited
output against the scripted server, first asked and then answered from the cache."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from judgekit.testing import FakeAPIServer
from tests.cli.helpers import judge_cli, judge_reply, run_file
from tests.clirun import judgekit
from tests.conftest import EXAMPLE_BOBBIN


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _text_of_html(page: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))


def _group_counts(s: dict[str, Any]) -> dict[str, int]:
    """What each warning group that names results must count, from summary.json."""
    results = s["results"]
    done = [r for r in results if r["test_status"] != "vacuous"]
    return {
        "Unknown test outcomes": sum(a["n_unknown"] for a in s["arms"].values()),
        "Vacuous passes": sum(r["test_status"] == "vacuous" for r in results),
        "Harness failures": sum(r.get("harness_status", "completed") != "completed"
                                for r in done),
        "Mixed serving models": sum("mixes serving models" in w for w in s["warnings"]),
    }


def _check_reports(out: Path) -> dict[str, Any]:
    s = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    md = (out / "report.md").read_text(encoding="utf-8")
    html = _text_of_html((out / "report.html").read_text(encoding="utf-8"))
    n, tasks, arms = len(s["results"]), len({r["task_id"] for r in s["results"]}), len(s["arms"])
    assert f"{n} results, {tasks} tasks, {arms} arms." in md
    assert f"{n} results · {tasks} tasks · {arms} arms" in html
    expected = _group_counts(s)
    shown_md = dict(re.findall(r"^\*\*([A-Z][^:*]+): (\d+)\.\*\*", md, re.M))
    shown_html = dict(re.findall(r"(Unknown test outcomes|Vacuous passes|Harness failures|"
                                 r"Mixed serving models): (\d+)", html))
    assert shown_md, md[:2000]
    for title, count in shown_md.items():
        if title in expected:
            assert int(count) == expected[title], (title, count, expected[title])
    assert {t: int(c) for t, c in shown_html.items()} == \
        {t: int(c) for t, c in shown_md.items() if t in expected}
    for name, a in s["arms"].items():
        assert re.search(rf"^\| {re.escape(name)} \| {a['n']} \| ", md, re.M), name
        statuses = ", ".join(f"{k} {v}" for k, v in sorted(a["status_counts"].items()))
        assert f"| {statuses} |" in md and statuses in html
    audit = s.get("audit")
    if audit is not None:
        assert (f"{audit['n_failed']} failed results audited: {audit['n_valid']} valid "
                f"verdicts, {audit['n_ife']} blame a task defect, {audit['n_unscored']} "
                f"unscored, {audit['n_error']} errors") in md
        assert (f"{audit['n_failed']} failed results audited {audit['n_valid']} valid "
                f"verdicts {audit['n_ife']} task defect") in html
    for pair, dims in (s.get("pairwise") or {}).items():
        if pair == "judge_reliability" or not isinstance(dims, dict):
            continue
        for dim, d in dims.items():
            row = f"| {dim} | {d['wins_a']} | {d['draws']} | {d['wins_b']} |"
            assert row in md, (pair, row)
    return s


def _check_closing(stderr: str, s: dict[str, Any], out: Path) -> None:
    n, tasks, arms = len(s["results"]), len({r["task_id"] for r in s["results"]}), len(s["arms"])
    assert f"scored {n} results of {tasks} tasks in {arms} arms" in stderr
    for name, a in s["arms"].items():
        rate = (f"{name} {_pct(a['pass_rate'])}–{_pct(a['pass_rate_upper'])} "
                f"({a['n_unknown']} unknown)" if a["n_unknown"]
                else f"{name} {_pct(a['pass_rate'])}")
        assert rate in stderr, rate
    run = s.get("pairwise_run")
    if run is not None:
        st = run["states"]
        assert (f"pairwise: {run['n_pairs']} pairs: {st.get('valid', 0)} valid, "
                f"{st.get('unscored', 0)} unscored, {st.get('error', 0)} error") in stderr
        assert f"; {run['n_calls']} calls; {run['n_cached']} verdicts from the cache" in stderr
    audit = s.get("audit")
    if audit is not None:
        records = [json.loads(x) for x in (out / "audit.jsonl").read_text().splitlines() if x]
        cached = sum(bool(r.get("cached")) for r in records)
        assert (f"audit: {audit['n_failed']} results that did not pass: {audit['n_valid']} "
                f"valid, {audit['n_unscored']} unscored, {audit['n_error']} error") in stderr
        assert f"; {cached} verdicts from the cache" in stderr
    judge = s.get("judge")
    if judge is not None:
        assert (f"{judge['calls']} requests sent (retries included), {judge['answered']} "
                "answered") in stderr
        assert re.search(rf"tokens in {judge['input_tokens']}\b", stderr)
        assert f", out {judge['output_tokens']}" in stderr
        if judge["cache_read_tokens"] or judge["cache_write_tokens"]:
            assert (f"{judge['cache_read_tokens']} read, {judge['cache_write_tokens']} "
                    "written") in stderr


def test_bundled_example_counts_agree_with_summary(tmp_path: Path) -> None:
    proc = judgekit("judge", EXAMPLE_BOBBIN, "--out", tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    s = _check_reports(tmp_path / "out")
    assert _group_counts(s)["Unknown test outcomes"] == 20  # 10 + 10, not the 22 lines
    assert _group_counts(s)["Harness failures"] == 1
    _check_closing(proc.stderr, s, tmp_path / "out")
    assert "pass rate 0.0%" not in proc.stderr


def test_judged_and_audited_counts_agree_with_summary_fresh_and_cached(
        tmp_path: Path) -> None:
    runs = run_file(tmp_path)
    with FakeAPIServer(judge_reply) as server:
        first = judge_cli(tmp_path, runs, "--out", tmp_path / "out", server=server)
        again = judge_cli(tmp_path, runs, "--out", tmp_path / "again", server=server)
    for proc, out in ((first, tmp_path / "out"), (again, tmp_path / "again")):
        assert proc.returncode == 0, proc.stderr
        s = _check_reports(out)
        _check_closing(proc.stderr, s, out)
    cached = json.loads((tmp_path / "again" / "summary.json").read_text())
    assert cached["pairwise_run"]["n_cached"] > 0
    assert re.search(r"audit: .*; [1-9]\d* verdicts from the cache", again.stderr)
