"""report.html: self-contained, escaped, every section present or marked "not run"."""

from __future__ import annotations

import re

from judgekit.report.html import render_html
from judgekit.report.load import ReportInputs, load_report_dir
from tests.report.netcheck import find_resources


def test_html_loads_nothing_from_the_network(judged_dir, scored_dir):
    for out in (judged_dir, scored_dir):
        page = (out / "report.html").read_text(encoding="utf-8")
        found = find_resources(page)
        assert found.external == []
        assert found.scripts_with_src == []
        assert found.stylesheet_links == []
        # not even a URL of untrusted text appears literally
        assert "http://" not in page and "https://" not in page


def test_network_check_catches_external_resources():
    page = ('<link rel="stylesheet" href="https://cdn.example/x.css"><script src="a.js">'
            '</script><img src="//cdn.example/i.png"><style>@font-face{src:url(https://f)}'
            "</style>")
    found = find_resources(page)
    assert found.stylesheet_links == ["https://cdn.example/x.css"]
    assert found.scripts_with_src == ["a.js"]
    assert len(found.external) == 3  # link href, img src, css url


def test_untrusted_text_is_escaped(judged_dir):
    page = (judged_dir / "report.html").read_text(encoding="utf-8")
    assert '<script>alert("pwned")' not in page
    assert "&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;" in page
    assert page.count("<script>") == 1  # the report's own inline script
    assert "<img" not in page


def test_sections_with_judged_parts(judged_dir):
    page = (judged_dir / "report.html").read_text(encoding="utf-8")
    for anchor in ("warnings", "arms", "comparisons", "pairwise", "audit", "tasks"):
        assert f'id="{anchor}"' in page
    assert "not run" not in page.split('id="tasks"')[0]
    # the warnings box is the first section after the header
    assert page.index('id="warnings"') < page.index('id="arms"')
    assert "Unscored verdicts: 2" in page and "Unknown test outcomes: " in page
    assert "Mixed serving models: 2" in page
    # pairwise: stacked bars per dimension with consistency and first-slot preference beside
    pairwise = page.split('id="pairwise"')[1].split('id="audit"')[0]
    assert pairwise.count('class="seg win-a"') == 3
    assert "consistent 65.0% · first slot 60.0%" in pairwise
    # audit: suspected task listed, its verdicts first, evidence check shown both ways
    audit = page.split('id="audit"')[1].split('id="tasks"')[0]
    assert "Suspected defective tasks" in audit
    heads = re.findall(r'<article class="verdict[^"]*"><h4>([^<]+)', audit)
    assert heads[0].startswith("ruff-002") and heads[1].startswith("ruff-002")
    assert heads[-1].startswith("ruff-004")  # unscored last
    assert "evidence found in the materials" in audit
    assert "evidence NOT found in the materials" in audit
    assert "test command selects no tests" in audit


def test_sections_absent_say_not_run(scored_dir):
    page = (scored_dir / "report.html").read_text(encoding="utf-8")
    assert "Pairwise judging was not run" in page
    assert "The audit of failed results was not run" in page


def test_per_task_table_opens_diff_and_test_output(judged_dir):
    page = (judged_dir / "report.html").read_text(encoding="utf-8")
    inputs = load_report_dir(judged_dir)
    tasks = page.split('id="tasks"')[1]
    assert tasks.count('<tr class="result"') == len(inputs.summary.results) == 46
    assert tasks.count("<details>") == 46
    assert '<pre class="diff">' in tasks
    assert '<span class="add">' in tasks
    # the audited result carries its verdict in the row and in its details
    assert "defect: test command selects no tests" in tasks


def test_plots_are_inline_svg(judged_dir):
    page = (judged_dir / "report.html").read_text(encoding="utf-8")
    titles = re.findall(r'<svg class="plot"[^>]*><title>([^<]+)</title>', page)
    assert "Pass rate per arm, with 95% Wilson interval" in titles
    assert "F1 per result, by arm" in titles
    assert "Duration per result (seconds), by arm" in titles
    assert "no-bobbin vs with-bobbin: wins, draws, losses" in titles
    assert "Verdicts by deficiency category" in titles


def test_empty_summary_renders():
    page = render_html(ReportInputs.of({"results": [], "arms": {}, "comparisons": [], "seed": 0}))
    assert "No results were scored." in page
    assert "Only one arm" in page
    assert 'id="warnings"' not in page


def test_test_output_is_shown_escaped_with_its_end_kept():
    from judgekit.ingest.models import RunResult, Task, TestResult
    from judgekit.scoring import score

    output = "x" * 70_000 + "\n<b>FAILED</b> test_thing - assert 1 == 2\n"
    run = RunResult(task=Task(id="t1", test_command="pytest -q"), arm="a",
                    agent_diff="diff --git a/f.py b/f.py\n--- a/f.py\n+++ b/f.py\n@@ -1 +1 @@\n"
                               "-a\n+b\n",
                    test=TestResult(exit_code=1, output=output))
    summary = score([run]).model_dump(mode="json")
    page = render_html(ReportInputs.of(summary, runs=[run]))
    assert "&lt;b&gt;FAILED&lt;/b&gt; test_thing" in page
    assert "start cut; the full output is in runs.jsonl" in page
    assert "exit code 1" in page
    assert '<span class="del">-a</span>' in page and '<span class="add">+b</span>' in page


def test_judged_details_ranking_run_lines_and_evidence_check(judged_dir):
    page = (judged_dir / "report.html").read_text(encoding="utf-8")
    pairwise = page.split('id="pairwise"')[1].split('id="audit"')[0]
    assert "<h3>Ranking</h3>" in pairwise and "#1 (0.620)" in pairwise
    assert "judge anthropic:judge-model; 20 pairs; 1 identical" in pairwise
    audit = page.split('id="audit"')[1].split('id="tasks"')[0]
    assert "ruff-002</a>: test command selects no tests" in audit
    assert "Audit: rubric commit-revert; judge anthropic:judge-model" in audit
    assert '<blockquote class="missing">error[E0599]' in audit
    assert "3, 66.7% agree with the majority" in audit
    assert "the answer failed the checks after 2 re-asks" in audit


def test_constructed_records_match_the_real_record_models(judged_dir):
    """The fixture's records are valid lines of pairwise.jsonl and audit.jsonl."""
    from judgekit.audit import AuditRecord
    from judgekit.pairwise import PairRecord

    inputs = load_report_dir(judged_dir)
    for rec in inputs.pairwise:
        PairRecord.model_validate(rec)
    for rec in inputs.audit:
        AuditRecord.model_validate(rec)


def test_clustered_intervals_are_drawn_beside_the_naive_ones(judged_dir):
    """Two repositories (flask, ruff): each arm's pass rate and F1 appear twice in one plot,
    the clustered interval labelled with its cluster count and at least as wide."""
    import json
    import re

    html = (judged_dir / "report.html").read_text(encoding="utf-8")
    summary = json.loads((judged_dir / "summary.json").read_text(encoding="utf-8"))
    assert "the one clustered by repository" in html
    for name, arm in summary["arms"].items():
        n = arm["clustered"]["n_clusters"]
        for metric, key in (("pass rate", "pass_rate_ci"), ("F1", "f1_ci")):
            assert f"{name} {metric}, clustered ({n})" in html
            lo, hi = arm["clustered"][key]
            assert hi - lo >= arm[key][1] - arm[key][0] - 1e-9
    assert len(re.findall(r"clustered \(\d+\)</text>", html)) >= 2 * len(summary["arms"])
