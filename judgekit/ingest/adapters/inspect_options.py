"""How Inspect AI logs are read: where the agent's patch and the fix are, what names the arm.

Example:
    >>> parse_arm_from("metadata:variant")
    ArmFrom(kind='metadata', name='variant')
    >>> parse_arm_from("task-arg:context").label({"context": True})
    'context=true'
    >>> parse_arm_from("colour")
    Traceback (most recent call last):
    ...
    ValueError: 'colour': expected model, metadata:KEY or task-arg:NAME
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

ArmKind = Literal["model", "metadata", "task-arg"]


@dataclass(frozen=True)
class ArmFrom:
    """What names an Inspect eval's arm: its ``model``, a ``metadata`` key (the eval's or
    task's metadata, then the sample's) or a task argument (``task-arg``)."""

    kind: ArmKind
    name: str | None = None

    def describe(self) -> str:
        return self.kind if self.name is None else f"{self.kind}:{self.name}"

    def label(self, task_args: dict[str, Any]) -> str | None:
        """The arm a ``task-arg`` rule gives an eval with these task arguments."""
        if self.kind != "task-arg" or self.name not in task_args:
            return None
        return f"{self.name}={show(task_args[self.name])}"


def parse_arm_from(text: str) -> ArmFrom:
    """``model``, ``metadata:KEY`` or ``task-arg:NAME``; ``ValueError`` otherwise."""
    if text == "model":
        return ArmFrom("model")
    kind, sep, name = text.partition(":")
    if sep and name and kind in ("metadata", "task-arg"):
        return ArmFrom(kind, name)  # type: ignore[arg-type]
    raise ValueError(f"{text!r}: expected model, metadata:KEY or task-arg:NAME")


def show(value: Any, limit: int | None = 60) -> str:
    """A task argument or solver parameter as text, cut to ``limit`` characters for a label."""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return text if limit is None or len(text) <= limit else text[:limit - 1] + "…"


@dataclass(frozen=True)
class InspectOptions:
    """Keys the user named for the agent's patch and the fix, and what names the arm.

    A key is looked up in the scores' metadata, the sample's store and the sample's
    metadata, in that order; a dotted key (``result.patch``) descends into nested objects.
    """

    patch_keys: tuple[str, ...] = ()
    fix_keys: tuple[str, ...] = ()
    arm_from: ArmFrom | None = None


__all__ = ["ArmFrom", "InspectOptions", "parse_arm_from", "show"]
