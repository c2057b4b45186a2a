"""The audit verdict: the judge's answer about one failed result.

The model is the single source of truth for the verdict format; ``verdict_schema()`` is
what the judge is asked to satisfy and what ``rubrics/verdict.schema.json`` holds.

Example:
    >>> v = Verdict(score=0, deficiency_exists=False, deficiency_caused_failure=False,
    ...             deficiency_type="none", existence_reasoning="The task is sound.",
    ...             causation_reasoning="The agent's fix is incomplete.",
    ...             evidence='"AssertionError: 404 != 302"')
    >>> v.score
    0
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

VERDICT_FIELDS: tuple[str, ...] = (
    "score", "deficiency_exists", "deficiency_caused_failure", "deficiency_type",
    "existence_reasoning", "causation_reasoning", "evidence",
)


class Verdict(BaseModel):
    """Whether a failure comes from a defect of the benchmark item (score 1) or the agent (0)."""

    model_config = ConfigDict(extra="forbid", title="AuditVerdict")

    score: Literal[0, 1] = Field(
        description="1 when a defect of the benchmark item exists AND caused this failure; "
                    "0 when the failure is the agent's.")
    deficiency_exists: bool = Field(
        description="Whether the benchmark item has a defect, whatever this agent did.")
    deficiency_caused_failure: bool = Field(
        description="Whether that defect prevented success here; false when no defect exists.")
    deficiency_type: str = Field(
        min_length=1,
        description="The rubric category (name or id) of the defect, or 'none' when no "
                    "defect exists.")
    existence_reasoning: str = Field(
        min_length=1, description="Why a defect of the benchmark item does or does not exist.")
    causation_reasoning: str = Field(
        min_length=1, description="Why the defect did or did not cause this failure.")
    evidence: str | list[str] = Field(
        description="Passages quoted verbatim from the materials, each in double quotes, or "
                    "a list of such passages.")


def verdict_schema() -> dict[str, Any]:
    """The JSON Schema of :class:`Verdict`, self-contained (no ``$ref``)."""
    schema = Verdict.model_json_schema()
    schema["additionalProperties"] = False
    return schema


def decoding_schema(categories: Sequence[str], none_type: str = "none") -> dict[str, Any]:
    """The verdict schema with the rubric's logic written into it, for servers that constrain
    decoding with the schema they are sent (see
    :attr:`judgekit.engine.types.JudgeRequest.decoding_schema`).

    Three shapes are allowed, and only these: a defect of the item that caused the failure
    (score 1, a rubric category), a defect that did not cause it (score 0, a category), and
    no defect (score 0, ``none``). (No ``maxLength``: grammar converters unroll it into one
nested rule per character.) Answers are still
    checked against :func:`verdict_schema` and the rubric's logic.

    Example:
        >>> s = decoding_schema(["Broken Test Command"])
        >>> [b["properties"]["score"]["const"] for b in s["anyOf"]]
        [1, 0, 0]
        >>> s["anyOf"][2]["properties"]["deficiency_type"]
        {'const': 'none'}
    """
    def branch(score: int, exists: bool, caused: bool,
               kind: dict[str, Any]) -> dict[str, Any]:
        text = {"type": "string", "minLength": 1}
        return {"type": "object", "additionalProperties": False,
                "required": list(VERDICT_FIELDS),
                "properties": {
                    "score": {"const": score}, "deficiency_exists": {"const": exists},
                    "deficiency_caused_failure": {"const": caused}, "deficiency_type": kind,
                    "existence_reasoning": text, "causation_reasoning": text,
                    "evidence": text}}

    named = {"enum": list(dict.fromkeys(categories))}
    return {"anyOf": [branch(1, True, True, named), branch(0, True, False, named),
                      branch(0, False, False, {"const": none_type})]}
