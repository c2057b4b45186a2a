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

from judgekit.engine.config import HOW_TO_ENABLE, EngineConfig
from judgekit.engine.events import EngineEvent
from judgekit.engine.judge import Judge
from judgekit.engine.registry import PROVIDERS, ProviderSpec
from judgekit.engine.types import (
    STATES,
    Estimate,
    Failed,
    ItemOutcome,
    JudgeRequest,
    NotSent,
    Skip,
    State,
    Usage,
)

if TYPE_CHECKING:
    from judgekit.engine.engine import Engine


def __getattr__(name: str) -> Any:
    # The engine (SQLite, jsonschema, the SDKs) loads on first use, keeping start-up quick;
    if name == "Engine":
        from judgekit.engine.engine import Engine

        return Engine
    raise AttributeError(f"module 'judgekit.engine' has no attribute {name!r}")


__all__ = [
    "HOW_TO_ENABLE",
    "PROVIDERS",
    "STATES",
    "Engine",
    "EngineConfig",
    "EngineEvent",
    "Estimate",
    "Failed",
    "ItemOutcome",
    "Judge",
    "JudgeRequest",
    "NotSent",
    "ProviderSpec",
    "Skip",
    "State",
    "Usage",
]
