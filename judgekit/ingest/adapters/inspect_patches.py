"""Where Inspect AI coding evals keep the agent's patch and the fix.

A sample's result is looked up in this order (the first that holds it wins):

1. **judgekit's own scorer**: a score whose metadata holds ``judgekit_run``, a complete
   judgekit run result (``examples/embed_inspect_scorer.py`` writes it). It is validated and
   taken as it is (see :func:`embedded_run`); nothing below is looked up for it.
2. **Keys the user named** (``InspectOptions.patch_keys`` / ``fix_keys``, options of the
   command line too), looked up in the scores' metadata, the
   sample's store and the sample's metadata; a dotted key descends into nested objects.
3. **The SWE-bench layout** (Inspect's port of SWE-bench): the agent's patch in a score's
   metadata ``model_patch``; the fix in the sample's metadata ``patch``, with ``test_patch``,
   ``FAIL_TO_PASS``, ``PASS_TO_PASS`` and ``hints_text`` kept as audit materials and ``repo``,
   ``base_commit`` and ``version`` as task facts. As with a SWE-bench dataset, the fix is
   ``patch`` alone: its test files are in ``test_patch``, which the agent never sees.
4. **The sample's store**: ``model_patch``, ``agent_patch``, ``patch``, ``diff`` or
   ``git_diff`` (also as fields of a ``store_as`` model, ``Model:model_patch``).

An agent patch that is an empty string is an answer (the agent changed nothing); a fix must
be a non-empty string.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judgekit.errors import InputError
from judgekit.ingest.models import RunResult
from judgekit.ingest.validation import validate

EMBEDDED_RUN = "judgekit_run"
SCORE_PATCH = "model_patch"
FIX = "patch"
STORE_PATCH_KEYS = ("model_patch", "agent_patch", "patch", "diff", "git_diff")
#: SWE-bench sample metadata kept as audit materials, under the names a SWE-bench dataset's get.
SWEBENCH_MATERIALS = {"test_patch": "test patch", "FAIL_TO_PASS": "FAIL_TO_PASS tests",
                      "PASS_TO_PASS": "PASS_TO_PASS tests", "hints_text": "issue hints"}
SWEBENCH_FACTS = ("base_commit", "version")


@dataclass(frozen=True)
class Found:
    """A patch and where it was found (``score swe metadata model_patch``)."""

    text: str
    where: str


@dataclass
class SweBenchFacts:
    """What the SWE-bench layout of a sample's metadata adds besides the fix."""

    repo: str | None = None
    materials: dict[str, str] = field(default_factory=dict)
    facts: dict[str, str] = field(default_factory=dict)


def sample_label(sample: Any) -> str:
    return f"sample {sample.id} epoch {sample.epoch}"


def _scores(sample: Any) -> dict[str, Any]:
    return getattr(sample, "scores", None) or {}


def _dig(container: Any, key: str) -> tuple[bool, Any]:
    """``(present, value)`` of ``key`` in ``container``; a dotted key descends."""
    if not isinstance(container, dict):
        return False, None
    if key in container:
        return True, container[key]
    head, dot, rest = key.partition(".")
    if dot and head in container:
        return _dig(container[head], rest)
    return False, None


def _places(sample: Any) -> Iterator[tuple[str, Any]]:
    """Where a named key is looked up: each score's metadata, the store, the metadata."""
    for name, score in _scores(sample).items():
        yield f"scores.{name}.metadata", getattr(score, "metadata", None)
    yield "store", getattr(sample, "store", None)
    yield "metadata", getattr(sample, "metadata", None)


def named(sample: Any, keys: Sequence[str], path: Path, *, empty_ok: bool) -> Found | None:
    """The first of the user's ``keys`` the sample holds; a value that is not a string (a
    unified diff) or null is an :class:`InputError` naming the sample and the field."""
    for key in keys:
        for place, container in _places(sample):
            present, value = _dig(container, key)
            if not present or value is None:
                continue
            if not isinstance(value, str):
                raise InputError(path, f"{sample_label(sample)}: {place}.{key}",
                                 f"expected a unified diff (a string), got "
                                 f"{type(value).__name__}")
            if value or empty_ok:
                return Found(value, f"{place} {key}")
    return None


def score_patch(sample: Any) -> Found | None:
    """``model_patch`` in a score's metadata (the first scorer that has one)."""
    for name, score in _scores(sample).items():
        value = (getattr(score, "metadata", None) or {}).get(SCORE_PATCH)
        if isinstance(value, str):
            return Found(value, f"score {name} metadata {SCORE_PATCH}")
    return None


def store_patch(sample: Any) -> Found | None:
    """A patch in the sample's store, also as a field of a ``store_as`` model."""
    store = getattr(sample, "store", None) or {}
    for wanted in STORE_PATCH_KEYS:
        for key, value in store.items():
            if (key == wanted or key.rsplit(":", 1)[-1] == wanted) and isinstance(value, str):
                return Found(value, f"store {key}")
    return None


def metadata_fix(sample: Any) -> Found | None:
    value = (getattr(sample, "metadata", None) or {}).get(FIX)
    return Found(value, f"metadata {FIX}") if isinstance(value, str) and value else None


def _test_list(value: Any) -> str | None:
    """A SWE-bench test list (a list, or JSON text of one) as one name a line."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            return value or None
    if isinstance(value, list):
        return "\n".join(map(str, value)) or None
    return None


def swebench_facts(sample: Any) -> SweBenchFacts:
    """The SWE-bench layout's task facts and materials (all but the fix itself)."""
    meta = getattr(sample, "metadata", None) or {}
    out = SweBenchFacts(repo=meta["repo"] if isinstance(meta.get("repo"), str) else None)
    for key, name in SWEBENCH_MATERIALS.items():
        value = meta.get(key)
        text = _test_list(value) if key.endswith("_PASS") else value
        if isinstance(text, str) and text:
            out.materials[name] = text
    out.facts = {k: meta[k] for k in SWEBENCH_FACTS if isinstance(meta.get(k), str)}
    return out


def embedded_run(sample: Any, path: Path) -> tuple[str, RunResult] | None:
    """The scorer's name and the judgekit run result it kept in its metadata, validated."""
    for name, score in _scores(sample).items():
        meta = getattr(score, "metadata", None) or {}
        if EMBEDDED_RUN in meta:
            prefix = f"{sample_label(sample)}: scores.{name}.metadata.{EMBEDDED_RUN}"
            return name, validate(RunResult, meta[EMBEDDED_RUN], path, prefix)
    return None


def where_looked(patch_keys: Sequence[str], fix_keys: Sequence[str]) -> tuple[str, str]:
    """Where the agent's patch and the fix were looked for, in words, for the warnings."""
    own = f"score metadata {EMBEDDED_RUN}"
    patch = "; ".join([own, *(f"key {k}" for k in patch_keys), f"score metadata {SCORE_PATCH}",
                       "sample store " + "/".join(STORE_PATCH_KEYS)])
    fix = "; ".join([own, *(f"key {k}" for k in fix_keys), f"sample metadata {FIX}"])
    return f"looked in: {patch}", f"looked in: {fix}"


__all__ = ["EMBEDDED_RUN", "Found", "SweBenchFacts", "embedded_run", "metadata_fix", "named",
           "sample_label", "score_patch", "store_patch", "swebench_facts", "where_looked"]
