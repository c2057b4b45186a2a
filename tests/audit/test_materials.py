from __future__ import annotations

import re

from judgekit.audit import condense, gather_materials
from judgekit.audit.condense import estimate_tokens
from judgekit.ingest.models import RunResult, Task, TestResult
from tests.audit.helpers import INJECTION, result


def long_transcript() -> str:
    lines = [f"assistant: thinking about step {i} of the plan" for i in range(4000)]
    lines[0] = "user: START OF SESSION"
    lines[1500] = "Traceback (most recent call last): KeyError: 'middle'"
    lines[2500] = "$ pytest tests/test_calc.py -x"
    lines[-1] = "assistant: END OF SESSION"
    return "\n".join(lines)


def test_condense_fits_the_budget_and_keeps_start_end_errors_and_test_runs() -> None:
    text = long_transcript()
    out = condense(text, 1500, "agent transcript")
    assert out.tokens <= 1500 < estimate_tokens(text)
    for kept in ("START OF SESSION", "END OF SESSION", "KeyError: 'middle'",
                 "$ pytest tests/test_calc.py -x"):
        assert kept in out.text


def test_condense_says_what_was_cut() -> None:
    out = condense(long_transcript(), 1500, "agent transcript")
    assert out.note is not None and "agent transcript" in out.note
    assert f"kept {out.kept_lines} of 4000 lines" in out.note
    markers = re.findall(r"\[\.\.\. (\d+) lines \((\d+) characters\) cut here \.\.\.\]", out.text)
    assert markers and sum(int(n) for n, _ in markers) == 4000 - out.kept_lines
    assert sum(int(c) for _, c in markers) == out.cut_chars


def test_short_text_is_left_alone() -> None:
    out = condense("one\ntwo", 100)
    assert (out.text, out.note) == ("one\ntwo", None)


def test_materials_fit_the_budget_and_list_the_cuts() -> None:
    run = result("calc-001", "a", "failed").model_copy(update={"transcript": long_transcript()})
    m = gather_materials(run, None, budget_tokens=4000, system_tokens=1000)
    assert m.tokens <= 3000
    assert len(m.cut_notes) == 1 and m.cut_notes[0] in m.prompt
    assert long_transcript() in m.sources  # quotes are checked against the whole text


def test_untrusted_content_is_fenced_with_an_unforgeable_end_marker() -> None:
    run = result("calc-001", "a", "failed")
    m = gather_materials(run, None, budget_tokens=8000)
    block = re.search(r"<<<UNTRUSTED agent transcript (\w+)\n(.*?)\nUNTRUSTED agent transcript "
                      r"\1>>>", m.prompt, re.DOTALL)
    assert block is not None and INJECTION in block.group(2)
    assert m.prompt.count(INJECTION) == 1


def test_missing_parts_are_said_to_be_missing() -> None:
    run = RunResult(task=Task(id="t"), arm="a", test=TestResult(exit_code=0))
    m = gather_materials(run, None, budget_tokens=4000)
    assert "(no agent transcript recorded)" in m.prompt
    assert "(no test output recorded)" in m.prompt


def test_named_materials_are_shown_within_the_budget_and_searched_whole() -> None:
    log = "\n".join(["Running the evaluation script"] + [f"epoch {i}: loss 0.{i:04d}"
                                                          for i in range(6000)]
                    + ["Traceback (most recent call last):", "KeyError: 'hazard_ratios'"])
    run = RunResult(task=Task(id="sab-2", description="Fit a Cox model."), arm="agent",
                    success=False, transcript=long_transcript(),
                    materials={"evaluation log": log, "gold program": "import lifelines\n"})
    m = gather_materials(run, None, budget_tokens=6000)
    assert m.tokens <= 6000
    assert "### evaluation log" in m.prompt and "### gold program" in m.prompt
    assert "KeyError: 'hazard_ratios'" in m.prompt and "import lifelines" in m.prompt
    assert any("evaluation log was condensed" in note for note in m.cut_notes)
    assert "The benchmark's own verdict: failure" in m.prompt
    assert log in m.sources  # evidence is looked up in the whole log, not the condensed one


def test_a_result_of_unknown_outcome_is_not_called_a_failure() -> None:
    from judgekit.scoring.score import score_result

    failed = result("calc-001", "a", "failed")
    unknown = failed.model_copy(update={"test": None, "success": None})
    assert score_result(failed).test_status == "failed"
    assert score_result(unknown).test_status == "unknown"
    asked = gather_materials(failed, score_result(failed), budget_tokens=8000).prompt
    assert asked.startswith("Audit this failed result and submit your verdict.\n")
    maybe = gather_materials(unknown, score_result(unknown), budget_tokens=8000).prompt
    first = maybe.split("\n", 1)[0]
    assert "failed result" not in first and "may have passed" in first
    assert "Test status assigned by judgekit: **unknown**" in maybe
