"""``judge``, ``audit`` and ``score --out`` end by saying what each step did, what it cost
and where the report is; usage errors are one line."""

from __future__ import annotations

import re
from pathlib import Path

from judgekit.testing import FakeAPIServer
from tests.cli.helpers import judge_cli, judge_reply, run_file
from tests.clirun import judgekit
from tests.conftest import EXAMPLE_BOBBIN

COUNTS = r"(\d+) valid, (\d+) unscored, (\d+) error, (\d+) skipped"


def test_readme_first_command_says_judging_was_skipped_and_where_the_report_is(
        tmp_path: Path) -> None:
    proc = judgekit("judge", EXAMPLE_BOBBIN, "--out", "out", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert lines[0].startswith("judging skipped: pass --judge")
    # a newcomer without a hosted key learns of a server of their own too
    assert "MODEL@URL" in lines[0] and "llamacpp:<model>@http://127.0.0.1:8080/v1" in lines[0]
    assert lines[1].startswith("scored 46 results of ")
    assert lines[-1] == "report: out/report.html"
    assert (tmp_path / "out" / "report.html").is_file()


def test_judge_ends_with_counts_per_step_spend_and_the_report(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with FakeAPIServer(judge_reply) as server:
        proc = judge_cli(tmp_path, run_file(tmp_path), "--out", out, server=server)
        calls = server.count()
    assert proc.returncode == 0, proc.stderr
    text = proc.stderr
    pairwise = re.search(r"^pairwise: 3 pairs: " + COUNTS + r"; (\d+) calls", text, re.M)
    assert pairwise and pairwise.groups() == ("3", "0", "0", "0", "6")
    audit = re.search(r"^audit: 4 results that did not pass: " + COUNTS, text, re.M)
    assert audit and audit.groups() == ("4", "0", "0", "0")
    assert calls == 6 + 4
    spends = [float(x) for x in re.findall(r"spend \$(\d+\.\d+)", text)]
    total = re.search(r"^spend: \$(\d+\.\d+) in total$", text, re.M)
    # pairwise, audit and the integrity confirmation (no result flagged: nothing spent)
    assert len(spends) == 3 and total and abs(sum(spends) - float(total.group(1))) < 1e-4
    assert text.strip().splitlines()[-1] == f"report: {out / 'report.html'}"


def test_score_out_ends_with_the_report_path(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = judgekit("score", run_file(tmp_path), "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == f"report: {out / 'report.html'}"
    assert "scored 6 results of 3 tasks in 2 arms" in proc.stderr


def test_score_without_out_prints_only_the_table(tmp_path: Path) -> None:
    proc = judgekit("score", run_file(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "Arms" in proc.stdout and "report:" not in proc.stdout + proc.stderr


def test_a_bad_flag_value_is_one_line_without_the_usage_block(tmp_path: Path) -> None:
    proc = judgekit("judge", run_file(tmp_path), "--concurrency", "0")
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "--concurrency" in lines[0] and "usage:" not in proc.stderr
    proc = judgekit("score")
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1


def test_a_run_the_cost_cap_cut_short_names_what_was_skipped_and_exits_3(
        tmp_path: Path) -> None:
    out = tmp_path / "out"
    with FakeAPIServer(judge_reply) as server:
        proc = judge_cli(tmp_path, run_file(tmp_path), "--out", out, "--no-audit",
                         "--max-cost", "0.02", "--no-cache", server=server)
    assert proc.returncode == 3, proc.stderr
    pairwise = re.search(r"^pairwise: 3 pairs: " + COUNTS, proc.stderr, re.M)
    assert pairwise, proc.stderr
    valid, unscored, error, skipped = map(int, pairwise.groups())
    assert skipped >= 1 and valid + unscored + error + skipped == 3
    assert "ended unscored" not in proc.stderr  # a skipped pair is not a failed one
    named = re.search(r"^not judged for the cost cap: (.+)$", proc.stderr, re.M)
    assert named and named.group(1).count(" vs ") == skipped
    assert proc.stderr.strip().splitlines()[-1].startswith("incomplete: the cost cap")
    assert (out / "report.html").is_file()
