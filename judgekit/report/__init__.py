"""Write an evaluation's files: ``summary.json``, ``results.jsonl``, ``pairwise.jsonl``,
``audit.jsonl`` and ``report.md``."""

from __future__ import annotations

import json
from pathlib import Path

from judgekit.evaluate import EvalResult
from judgekit.io import atomic_write_text
from judgekit.report.markdown import render_markdown


def write_reports(result: EvalResult, out_dir: str | Path) -> None:
    """Write every file of ``result`` into ``out_dir``, each one atomically."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    summary = result.summary_dict()
    atomic_write_text(out / "summary.json", json.dumps(summary, indent=2) + "\n")
    atomic_write_text(out / "results.jsonl", "".join(
        r.model_dump_json() + "\n" for r in result.summary.results))
    for name, part in (("pairwise.jsonl", result.pairwise), ("audit.jsonl", result.audit)):
        if part is not None:
            atomic_write_text(out / name, part.records_jsonl())
    atomic_write_text(out / "report.md", render_markdown(summary))


__all__ = ["write_reports"]
