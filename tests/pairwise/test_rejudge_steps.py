"""Judging an output again redoes pairwise judging only: every other registered step is
carried over as the output has it, its records file and its ``summary.json`` entries, a
step added as ARCHITECTURE.md's "How to add a step" says included (judgekit.rejudge)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from judgekit import evaluate, step_registry, summary
from judgekit.engine.config import EngineConfig
from judgekit.rejudge import load_judged_output, rejudge
from judgekit.report import write_reports
from judgekit.steps import StepKind, StepResult
from judgekit.testing import FakeAPIServer
from tests.pairwise.helpers import always, pairwise_only, two_arm_runs


class ItemLine(BaseModel):
    item: str
    fine: bool


class ItemsStats(BaseModel):
    n_items: int
    n_fine: int


class ItemsStepSummary(BaseModel):
    items: ItemsStats | None = None


ITEMS: StepKind[ItemLine, ItemsStepSummary] = StepKind(
    "items", ItemLine, ItemsStepSummary, "items.jsonl")


class ItemsResult(StepResult[ItemLine, ItemsStepSummary]):
    kind = ITEMS

    def __init__(self, records: list[ItemLine]) -> None:
        self.records = records

    def _summarise(self) -> ItemsStepSummary:
        return ItemsStepSummary(items=ItemsStats(
            n_items=len(self.records), n_fine=sum(r.fine for r in self.records)))


class _WithItems(ItemsStepSummary, summary.EvalSummary):
    model_config = ConfigDict(title="EvalSummary")


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """``ITEMS`` registered as "How to add a step" says: in ``STEPS``, and its Summary
    among ``EvalSummary``'s bases (wherever a module holds either)."""
    steps, composed = step_registry.STEPS, summary.EvalSummary
    modules = [m for name, m in list(sys.modules.items())
               if name.startswith("judgekit") and m is not None]
    for module in modules:
        if getattr(module, "STEPS", None) is steps:
            monkeypatch.setattr(module, "STEPS", (*steps, ITEMS))
        if getattr(module, "EvalSummary", None) is composed:
            monkeypatch.setattr(module, "EvalSummary", _WithItems)


def _config(server: FakeAPIServer, model: str) -> EngineConfig:
    return EngineConfig(model=model, base_url=server.url, use_cache=False, progress=False,
                        backoff_base=0.01)


def _read(out: Path) -> tuple[str, Any]:
    return ((out / "items.jsonl").read_text(),
            json.loads((out / "summary.json").read_text()).get("items"))


def test_a_registered_step_survives_judging_again(tmp_path: Path, registered: None) -> None:
    runs = two_arm_runs(tmp_path / "runs.json", 2, "a{}", "b{}")
    lines = [ItemLine(item="t0", fine=True), ItemLine(item="t1", fine=False)]
    with FakeAPIServer(pairwise_only(always("A"))) as first:
        judged = evaluate(runs, judge=_config(first, "anthropic:claude-haiku-4-5"),
                          audit=False)
    judged.add(ItemsResult(lines))
    write_reports(judged, tmp_path / "out")
    before = _read(tmp_path / "out")
    assert before == ("".join(x.model_dump_json() + "\n" for x in lines),
                      {"n_items": 2, "n_fine": 1})

    with FakeAPIServer(pairwise_only(always("B"))) as second:
        again = rejudge(load_judged_output(tmp_path / "out"),
                        [_config(second, "anthropic:claude-sonnet-4-5")])
        assert second.count() > 0  # the new judge was asked
    kept = again.part(ITEMS)
    assert kept is not None and kept.carried_over and kept.records == lines
    write_reports(again, tmp_path / "again")
    assert _read(tmp_path / "again") == before
    after = json.loads((tmp_path / "again" / "summary.json").read_text())
    assert after["pairwise"]["jury"]["judges"] == ["anthropic:claude-haiku-4-5",
                                                   "anthropic:claude-sonnet-4-5"]
