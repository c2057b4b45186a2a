"""judgekit's judge engine: one place where every model call is made, validated,
retried, cached, priced and accounted for.

Example:
    >>> from judgekit.engine import Engine, EngineConfig, JudgeRequest
    >>> schema = {"type": "object", "required": ["winner"],
    ...           "properties": {"winner": {"enum": ["A", "B", "draw"]}}}
    >>> reqs = [JudgeRequest(key="t1", system="Compare.", prompt="A: ... B: ...", schema=schema)]
    >>> Engine(EngineConfig(model="anthropic:claude-sonnet-4-6", dry_run=True,
    ...                     use_cache=False)).estimate(reqs).calls
    1
"""

from typing import TYPE_CHECKING, Any

from judgekit.engine.options import (
    HOW_TO_ENABLE,
    EngineConfig,
    add_engine_arguments,
    config_from_args,
)
from judgekit.engine.types import Estimate, ItemOutcome, JudgeRequest, State, Usage

if TYPE_CHECKING:
    from judgekit.engine.engine import Engine


def __getattr__(name: str) -> Any:
    # The engine (SQLite, jsonschema, rich) loads on first use, keeping CLI start-up quick.
    if name == "Engine":
        from judgekit.engine.engine import Engine

        return Engine
    raise AttributeError(f"module 'judgekit.engine' has no attribute {name!r}")


__all__ = [
    "HOW_TO_ENABLE",
    "Engine",
    "EngineConfig",
    "Estimate",
    "ItemOutcome",
    "JudgeRequest",
    "State",
    "Usage",
    "add_engine_arguments",
    "config_from_args",
]
