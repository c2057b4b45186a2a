"""The index figures in docs/index.md are those of the benchmark run kept beside it."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: Figures of the table that are not measurements (the window sizes, the batch size).
SETTINGS = {"32", "40", "128", "256", "150", "600", "1", "5", "2"}


def _figures_table() -> str:
    text = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    start = text.index("bench/results/index_speed_cpu.json")
    body = text[start:text.index("\n\n", text.index("| figure |", start))]
    return body


def _recorded() -> set[str]:
    data = json.loads((ROOT / "bench" / "results" / "index_speed_cpu.json").read_text())
    out: set[str] = set()
    for value in data["result"].values():
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                out |= {str(v), f"{v:,}", f"{100 * v:.2f}"}
    return out


def test_every_figure_of_the_index_table_is_in_the_recorded_benchmark_output() -> None:
    table = _figures_table()
    numbers = [n.rstrip(",") for n in
               re.findall(r"(?<![\w.])\d[\d,]*(?:\.\d+)?", table.replace("×", " "))]
    assert len(numbers) > 20
    recorded = _recorded()
    missing = [n for n in numbers if n not in recorded and n not in SETTINGS]
    assert missing == []
