"""Judge N numbered items against whatever API the environment points at.

Used by tests that kill a run midway and start it again; writes one JSON line per outcome.

Example::

    ANTHROPIC_BASE_URL=http://127.0.0.1:8080 python -m judgekit.testing.demo_run \\
        --items 50 --cache verdicts.sqlite --out outcomes.jsonl
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from judgekit.engine import Engine, EngineConfig, JudgeRequest

SCHEMA = {
    "type": "object",
    "required": ["item", "winner"],
    "properties": {"item": {"type": "string"}, "winner": {"enum": ["A", "B", "draw"]}},
}


def requests(n: int) -> list[JudgeRequest]:
    return [JudgeRequest(key=f"item-{i:04d}", system="Decide which answer is better.",
                         prompt=f"item-{i:04d}", schema=SCHEMA) for i in range(n)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m judgekit.testing.demo_run")
    parser.add_argument("--items", type=int, default=20)
    parser.add_argument("--model", default="anthropic:claude-haiku-4-5")
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args(argv)
    config = EngineConfig(model=args.model, cache_path=args.cache, concurrency=args.concurrency,
                          progress=False, backoff_base=0.01)
    outcomes = Engine(config).run(requests(args.items))
    with args.out.open("w", encoding="utf-8") as fh:
        for outcome in outcomes:
            fh.write(outcome.model_dump_json() + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
