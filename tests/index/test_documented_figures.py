"""The index figures in docs/index.md are those of the benchmark run kept beside it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Figures of the table that are not measurements (the window sizes, the batch size).
SETTINGS = {"32", "40", "128", "256", "150", "600", "1", "5", "2"}


RESULTS = ("index_speed_cpu.json", "index_speed_cpu_rich_jinja2.json", "index_speed_cpu_avx512.json",
           "index_speed_cpu_jsonschema_tenacity_git.json", "index_pipeline_cpu.json")


def _figure_tables() -> list[tuple[str, str]]:
    """``(kept result, table)`` for every figures table, with the result named last before it."""
    text = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    out, named = [], ""
    for block in text.split("\n\n"):
        mentions = re.findall(r"bench/results/([\w.-]+\.json)", block)
        if mentions:
            named = mentions[-1]
        if block.lstrip().startswith("| figure |"):
            out.append((named, block))
    return out


def _numbers(value: object) -> list[float]:
    if isinstance(value, dict):
        return [n for v in value.values() for n in _numbers(v)]
    if isinstance(value, list):
        return [n for v in value for n in _numbers(v)]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return [value]
    return []


def _recorded(name: str) -> set[str]:
    data = json.loads((ROOT / "bench" / "results" / name).read_text())
    out: set[str] = set()
    for v in _numbers(data["result"]):
        out |= {str(v), f"{v:,}", f"{100 * v:.2f}"}
    return out


def test_every_kept_result_has_a_table_and_every_table_a_kept_result() -> None:
    tables = _figure_tables()
    assert len(tables) >= len(RESULTS)
    assert {name for name, _ in tables} == set(RESULTS)


@pytest.mark.parametrize("at", range(len(_figure_tables())))
def test_every_figure_of_an_index_table_is_in_the_recorded_benchmark_output(at: int) -> None:
    name, table = _figure_tables()[at]
    numbers = [n.rstrip(",") for n in
               re.findall(r"(?<![\w.])\d[\d,]*(?:\.\d+)?", table.replace("×", " "))]
    assert len(numbers) > 8
    recorded = _recorded(name)
    missing = [n for n in numbers if n not in recorded and n not in SETTINGS]
    assert missing == []
