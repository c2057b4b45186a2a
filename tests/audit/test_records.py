"""An audit record's state and verdict are the shared types: the engine's ``State`` and the
typed ``Verdict``, read back from ``audit.jsonl`` as they were written."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from judgekit.audit import AuditRecord, Verdict
from judgekit.audit.aggregate import SampleOutcome, combine_samples
from judgekit.audit.kind import AUDIT
from tests.audit.helpers import agent_verdict, defect_verdict


def _record(**over: object) -> AuditRecord:
    fields = {"task_id": "t", "arm": "a", "attempt": 0, "test_status": "failed",
              "state": "valid", "verdict": defect_verdict(), "deficiency_type": "Flaky Tests"}
    return AuditRecord.model_validate(fields | over)


def test_a_record_read_back_holds_a_typed_verdict_and_writes_the_same_line() -> None:
    line = _record().model_dump_json()
    back = AUDIT.read_record(json.loads(line))
    assert isinstance(back.verdict, Verdict) and back.verdict.score == 1
    assert back.score == 1 and back.model_dump_json() == line


def test_a_state_outside_the_engine_states_is_refused() -> None:
    with pytest.raises(ValidationError, match="state"):
        _record(state="maybe")


def test_a_verdict_missing_a_field_is_refused() -> None:
    partial = {k: v for k, v in agent_verdict().items() if k != "evidence"}
    with pytest.raises(ValidationError, match="evidence"):
        _record(verdict=partial)


def test_the_majority_verdict_of_samples_is_one_of_theirs_typed() -> None:
    samples = [SampleOutcome(state="valid", verdict=Verdict.model_validate(v),
                             deficiency_type=v["deficiency_type"], tries=1)
               for v in (agent_verdict(), agent_verdict(), defect_verdict())]
    fields = combine_samples(samples)
    assert fields["verdict"] == samples[0].verdict and fields["sample_scores"] == [0, 0, 1]
