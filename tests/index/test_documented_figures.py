"""The index figures in docs/index.md are those of the benchmark run kept beside it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Figures of the table that are not measurements (the window sizes, the batch size).
SETTINGS = {"32", "40", "128", "256", "150", "600", "1", "5", "2"}


RESULTS = ("index_speed_cpu.json", "index_speed_cpu_rich_jinja2.json")


def _figures_table(name: str) -> str:
    """The table that follows the first mention of the kept result ``name``."""
    text = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    start = text.index(f"bench/results/{name}")
    return text[start:text.index("\n\n", text.index("| figure |", start))]


def _recorded(name: str) -> set[str]:
    data = json.loads((ROOT / "bench" / "results" / name).read_text())
    out: set[str] = set()
    for value in data["result"].values():
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                out |= {str(v), f"{v:,}", f"{100 * v:.2f}"}
    return out


@pytest.mark.parametrize("name", RESULTS)
def test_every_figure_of_an_index_table_is_in_the_recorded_benchmark_output(name: str) -> None:
    table = _figures_table(name)
    numbers = [n.rstrip(",") for n in
               re.findall(r"(?<![\w.])\d[\d,]*(?:\.\d+)?", table.replace("×", " "))]
    assert len(numbers) > 15
    recorded = _recorded(name)
    missing = [n for n in numbers if n not in recorded and n not in SETTINGS]
    assert missing == []
