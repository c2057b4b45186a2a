"""What one Inspect AI sample says besides its patch: the verdict of its scores, its message
history as a transcript, its token usage and the materials an audit shows the judge.

Example:
    >>> success_of("C"), success_of({"resolved": 0.0}), success_of("maybe")
    (True, False, None)
"""

from __future__ import annotations

import json
from typing import Any

from judgekit.ingest.models import Usage

_CORRECT = {"C", "correct", "yes", "true", "pass", "passed"}
#: Keys of a dict-valued score that carry the verdict, in order of preference.
_VERDICT_KEYS = ("passed", "success", "resolved", "correct", "accuracy", "score")
_INCORRECT = {"I", "incorrect", "no", "false", "fail", "failed", "P", "partial"}


def success_of(value: Any) -> bool | None:
    """A score value as a verdict: ``C``/``I``, booleans, numbers (1 is a success), or a
    dict holding one of :data:`_VERDICT_KEYS` (or a single value); ``None`` when it says
    nothing."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return float(value) >= 1.0
    if isinstance(value, str):
        if value in _CORRECT or value.casefold() in {c.casefold() for c in _CORRECT if len(c) > 1}:
            return True
        if value in _INCORRECT or value.casefold() in {c.casefold() for c in _INCORRECT if len(c) > 1}:
            return False
        return None
    if isinstance(value, dict) and value:
        key = next((k for k in _VERDICT_KEYS if k in value), None)
        if key is not None:
            return success_of(value[key])
        return success_of(next(iter(value.values()))) if len(value) == 1 else None
    return None


def sample_success(scores: dict[str, Any] | None) -> bool | None:
    """The verdict of a sample's scores: a success when every score that says something
    says so; ``None`` when none does."""
    if not scores:
        return None
    verdicts = [success_of(getattr(s, "value", None)) for s in scores.values()]
    known = [v for v in verdicts if v is not None]
    return all(known) if known else None


def text_of(value: Any) -> str:
    """A sample's input or message history as text: one block per message."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n\n".join(_message_text(m) for m in value)
    return json.dumps(value, default=str)


def _message_text(message: Any) -> str:
    role = getattr(message, "role", "message")
    text = getattr(message, "text", None) or ""
    calls = [f"(tool call {c.function}: {json.dumps(c.arguments, default=str)})"
             for c in getattr(message, "tool_calls", None) or []]
    name = getattr(message, "function", None)
    head = f"[{role}{' ' + name if isinstance(name, str) else ''}]"
    return "\n".join([head, text, *calls]).rstrip()


def usage_of(sample: Any) -> Usage | None:
    """Tokens and cost over every model the sample used."""
    usage = getattr(sample, "model_usage", None) or {}
    if not usage:
        return None
    return Usage(input_tokens=sum(u.input_tokens or 0 for u in usage.values()),
                 output_tokens=sum(u.output_tokens or 0 for u in usage.values()),
                 cost_usd=sum(getattr(u, "total_cost", None) or 0 for u in usage.values())
                 or None)


def materials_of(sample: Any) -> dict[str, str]:
    """The target, each score (value, answer, explanation) and the error, by name."""
    out: dict[str, str] = {}
    target = getattr(sample, "target", None)
    if target:
        out["target"] = target if isinstance(target, str) else "\n".join(target)
    for name, score in (getattr(sample, "scores", None) or {}).items():
        parts = [f"value: {json.dumps(score.value, default=str)}"]
        if score.answer:
            parts.append(f"answer: {score.answer}")
        if score.explanation:
            parts.append(f"explanation: {score.explanation}")
        out[f"score {name}"] = "\n".join(parts)
    error = getattr(sample, "error", None)
    if error is not None:
        out["error"] = f"{error.message}\n{error.traceback or ''}".strip()
    return out


__all__ = ["materials_of", "sample_success", "success_of", "text_of", "usage_of"]
