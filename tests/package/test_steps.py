"""The step contract: summary.json is the steps' own Summary models composed."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel

from judgekit import evaluate
from judgekit.evaluate import EvalResult
from judgekit.scoring import ScoreResult
from judgekit.steps import StepKind, StepResult
from judgekit.summary import EvalSummary, summary_of

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "bobbin"


class _Line(BaseModel):
    n: int


class _Unknown(BaseModel):
    tally: int


class _Counted(StepResult[_Line, _Unknown]):
    kind = StepKind("count", _Line, _Unknown, "count.jsonl")

    def __init__(self, records: list[_Line]) -> None:
        self.records = records

    def _summarise(self) -> _Unknown:
        return _Unknown(tally=len(self.records))


def test_scoring_is_a_step_whose_records_are_the_summary_rows() -> None:
    result = evaluate([EXAMPLE])
    scoring = result.scoring
    assert isinstance(scoring, ScoreResult) and scoring.records_file == "results.jsonl"
    assert scoring.records == result.summary.results and len(scoring.records) == 46
    assert scoring.summary() is result.summary


def test_summary_json_is_composed_of_the_steps_summaries() -> None:
    result = evaluate([EXAMPLE])
    composed = summary_of(result)
    assert isinstance(composed, EvalSummary)
    assert composed.arms == result.summary.arms and composed.pairwise is None
    assert list(composed.as_json())[:3] == ["results", "arms", "comparisons"]


def test_a_step_whose_summary_is_not_part_of_eval_summary_is_refused() -> None:
    result = EvalResult(summary=evaluate([EXAMPLE]).summary)
    result.add(_Counted([_Line(n=1), _Line(n=2)]))
    assert result.steps()[-1].records_jsonl() == '{"n":1}\n{"n":2}\n'
    with pytest.raises(TypeError, match="tally"):
        summary_of(result)
