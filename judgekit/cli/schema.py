"""``judgekit schema NAME``: print the JSON Schema of a judgekit file format."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from judgekit.cli._common import print_json
from judgekit.errors import ConfigError


def _schemas() -> dict[str, Callable[[], dict[str, Any]]]:
    from judgekit.runs.models import RunFile, RunResult
    from judgekit.scoring.models import ScoreSummary

    return {
        "run": RunFile.model_json_schema,
        "result": RunResult.model_json_schema,
        "summary": ScoreSummary.model_json_schema,
    }


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("schema", help="print the JSON Schema of a file format")
    p.add_argument("name", help="run, result, summary, ...")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    schemas = _schemas()
    if args.name not in schemas:
        raise ConfigError(f"unknown schema {args.name!r}; known: {', '.join(sorted(schemas))}")
    print_json(schemas[args.name]())
    return 0
