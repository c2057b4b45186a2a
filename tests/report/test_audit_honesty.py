"""The audit's run line says what the cache answered, verdict titles tell runs apart, and
long badges stay inside the per-task table."""

from __future__ import annotations

import re
from pathlib import Path

from judgekit.audit import AuditRecord
from judgekit.report import load_report_dir
from judgekit.report.html import render_html
from judgekit.report.html_judged import audit_section
from judgekit.report.judged import audit_run_line, record_title
from judgekit.report.load import ReportInputs
from judgekit.report.markdown import render_markdown
from judgekit.summary import AuditStats
from tests.report.browser import open_page

AUDIT = AuditStats(rubric="commit-revert", judge="anthropic:m", samples=1, tries_total=50,
                     cost_usd=0.0)
EMPTY = {"results": [], "arms": {}, "comparisons": [], "seed": 0}


def _rec(run_id: str | None, cached: bool, tries: int = 1, task: str = "flask-005",
         score: int = 0, kind: str = "none") -> AuditRecord:
    return AuditRecord.model_validate({
            "task_id": task, "arm": "with-bobbin", "attempt": 0, "run_id": run_id,
            "test_status": "failed", "state": "valid",
            "verdict": {"score": score, "deficiency_exists": bool(score),
                        "deficiency_caused_failure": bool(score), "deficiency_type": kind,
                        "existence_reasoning": "r", "causation_reasoning": "c",
                        "evidence": "e"},
            "deficiency_type": kind, "evidence_verified": True, "tries": tries,
            "cached": cached, "cost_usd": 0.0})


def test_fully_cached_audit_says_no_call_was_made():
    records = [_rec(f"run-{i}", True) for i in range(50)]
    line = audit_run_line(AUDIT, records)
    assert "0 judge calls; all 50 answers from the cache" in line
    assert "50 judge calls" not in line


def test_partly_cached_audit_counts_calls_and_cached_answers():
    records = [_rec("a", True, tries=2), _rec("b", False, tries=3), _rec("c", False)]
    assert "4 judge calls; 2 of 6 answers from the cache" in audit_run_line(AUDIT, records)
    assert "6 judge calls" in audit_run_line(AUDIT, [_rec("a", False, 6)])
    assert "from the cache" not in audit_run_line(AUDIT, [_rec("a", False, 6)])


def test_several_samples_bound_calls_from_above():
    records = [_rec("a", True, tries=3), _rec("b", False, tries=3)]
    line = audit_run_line(AUDIT.model_copy(update={"samples": 3}), records)
    assert "at most 3 judge calls; 3 of 6 answers from the cache" in line


def test_without_records_the_line_counts_answers_not_calls():
    line = audit_run_line(AUDIT)
    assert "50 judge answers" in line and "calls" not in line


def test_verdict_titles_show_the_run_only_when_runs_share_task_arm_attempt():
    records = [_rec("20260210-194843-a327", True), _rec("20260211-101500-b118", True),
               _rec("20260212-080000-c001", True), _rec("r9", True, task="flask-006")]
    inputs = ReportInputs.of(EMPTY | {"audit": AUDIT.model_dump()}, audit=records)
    heads = re.findall(r'<article class="verdict[^"]*"><h4>([^<]+)', audit_section(inputs))
    shared = [h for h in heads if h.startswith("flask-005")]
    assert len(shared) == 3 and len(set(shared)) == 3
    assert "flask-005 · with-bobbin · attempt 0 · run 20260211-101500-b118 " in shared
    assert [h for h in heads if h.startswith("flask-006")] == [
        "flask-006 · with-bobbin · attempt 0 "]
    md = render_markdown(inputs)
    assert "#### flask-005 / with-bobbin / attempt 0 / run 20260210-194843-a327" in md
    assert "#### flask-006 / with-bobbin / attempt 0\n" in md
    assert "judge calls: 0 (1 from the cache)" in md


def test_long_run_ids_are_shortened_keeping_their_end():
    title = record_title(_rec("x" * 40 + "-tail1234", False), with_run=True)
    assert title.endswith("-tail1234") and len(title.split("run ")[1]) == 24


BADGE_CHECK = """<script>
const bad = [...document.querySelectorAll('table.tasks td .badge')].filter(b => {
  const cell = b.closest('td').getBoundingClientRect();
  return b.getBoundingClientRect().right > cell.right + 0.5; });
document.body.setAttribute('data-badges',
  document.querySelectorAll('table.tasks td .badge').length);
document.body.setAttribute('data-overflowing', bad.length);
</script></body>"""


def test_long_defect_badges_stay_inside_their_cell(judged_dir: Path, tmp_path: Path):
    inputs = load_report_dir(judged_dir)
    kind = "Execution Environment Issues"
    for rec in inputs.audit:
        if rec.state == "valid" and rec.verdict is not None:
            rec.verdict = rec.verdict.model_copy(update={"score": 1, "deficiency_type": kind})
            rec.deficiency_type = kind
    page = render_html(inputs)
    assert f"defect: {kind}" in page
    html = tmp_path / "badges.html"
    html.write_text(page.replace("</body>", BADGE_CHECK, 1), encoding="utf-8")
    load = open_page(html, tmp_path, "badges", size="1000,1600", keep=False)
    badges = re.search(r'data-badges="(\d+)"', load.dom)
    assert badges and int(badges.group(1)) > 0
    assert 'data-overflowing="0"' in load.dom


def test_a_verdict_shared_with_an_identical_request_counts_its_answer():
    # The engine asks once for identical requests of one run; the others are served the
    # answer without a call (cached, no tries of their own).
    shared = _rec("r1", True, tries=0)
    inputs = ReportInputs.of(EMPTY | {"audit": AUDIT.model_dump()}, audit=[shared])
    md = render_markdown(inputs)
    assert "judge calls: 0 (1 from the cache)" in md
    assert "0 (0 " not in md
    assert "0 (1 answer from the cache)" in audit_section(inputs)


def test_an_evidence_passage_whose_quote_was_not_found_is_not_shown_as_found():
    rec = _rec("r1", False).model_copy(update={"evidence_verified": False,
                                              "quotes_not_found": ["nothing like it"]})
    assert rec.verdict is not None
    rec.verdict = rec.verdict.model_copy(
        update={"evidence": ['"nothing like it"', '"{\\"ok\\": true}"']})
    inputs = ReportInputs.of(EMPTY | {"audit": AUDIT.model_dump()}, audit=[rec])
    md = render_markdown(inputs)
    assert '> "nothing like it"\n>\n> _(not found in the materials)_' in md
    # the other passage was found (its backslashes escaped, so that they show)
    assert '> "{\\\\"ok\\\\": true}"\n\n' in md
    html = audit_section(inputs)
    assert '<blockquote class="missing">&quot;nothing like it&quot;' in html
    assert '<blockquote class="found">&quot;{\\&quot;ok\\&quot;: true}&quot;' in html
    assert "<h5>Quotes not found in the materials</h5>" not in html  # shown once, in place
