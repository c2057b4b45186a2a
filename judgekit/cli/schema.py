"""``judgekit schema NAME``: print the JSON Schema of a judgekit file format.

``judgekit schema --write DIR`` writes every schema as ``DIR/<name>.schema.json`` (the
repository publishes them in ``schemas/``).
"""

from __future__ import annotations

import argparse
import importlib
import json
from pathlib import Path
from typing import Any

from judgekit.cli._common import print_json
from judgekit.errors import ConfigError
from judgekit.io import atomic_write_text
from judgekit.steps import StepKind

#: name -> (module, attribute) of the pydantic model that defines the format.
SCHEMAS: dict[str, tuple[str, str]] = {
    "run": ("judgekit.ingest.models", "RunFile"),
    "result": ("judgekit.ingest.models", "RunResult"),
    "summary": ("judgekit.summary", "EvalSummary"),
    "pairwise-verdict": ("judgekit.pairwise.verdict", "OrderVerdict"),
    "pairwise-record": ("judgekit.pairwise.records", "PairRecord"),
    "audit-verdict": ("judgekit.audit.verdict", "Verdict"),
    "audit-record": ("judgekit.audit.records", "AuditRecord"),
    "pairwise-label": ("judgekit.pairwise.gold", "GoldLabel"),
    "calibration": ("judgekit.report.calibration", "CalibrationFile"),
    "suite": ("judgekit.ingest.suites", "Suite"),
    "rubric": ("judgekit.audit.rubric", "Rubric"),
    "transcript": ("judgekit.ingest.transcripts.model", "Transcript"),
}


def schemas() -> dict[str, dict[str, Any]]:
    out = {}
    for name, (module, attr) in SCHEMAS.items():
        model = getattr(importlib.import_module(module), attr)
        out[name] = model.model_json_schema()
    for kind in _steps():  # every registered step's Record, as ``NAME-record``
        out.setdefault(f"{kind.name}-record", kind.record.model_json_schema())
    return out


def _steps() -> tuple[StepKind[Any, Any], ...]:
    from judgekit.step_registry import STEPS

    return STEPS


def _names() -> list[str]:
    return [*SCHEMAS, *(f"{k.name}-record" for k in _steps()
                        if f"{k.name}-record" not in SCHEMAS)]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("schema", help="print the JSON Schema of a file format")
    p.add_argument("name", nargs="?", help=f"one of: {', '.join(_names())}")
    p.add_argument("--write", type=Path, metavar="DIR", help="write every schema into DIR")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    all_schemas = schemas()
    if args.write:
        for name, schema in all_schemas.items():
            atomic_write_text(args.write / f"{name}.schema.json", json.dumps(schema, indent=2) + "\n")
        return 0
    if args.name is None:
        raise ConfigError(f"name a schema (one of: {', '.join(all_schemas)}), or give --write DIR")
    if args.name not in all_schemas:
        raise ConfigError(f"unknown schema {args.name!r}; known: {', '.join(all_schemas)}")
    print_json(all_schemas[args.name])
    return 0
