"""Checks a verdict must pass beyond its schema: logic, categories, and quoted evidence.

``logical_problems`` feeds the engine's ``check`` (re-asked until consistent, bounded);
``evidence_problems`` feeds ``soft_check`` (re-asked once, then recorded).

Example:
    >>> from judgekit.audit.rubric import load_rubric
    >>> rubric = load_rubric("scienceagentbench")
    >>> logical_problems({"score": 1, "deficiency_exists": True,
    ...     "deficiency_caused_failure": False, "deficiency_type": "Gold Program Issues",
    ...     "evidence": '"x"'}, rubric)   # doctest: +ELLIPSIS
    ['score is 1 but ...']
    >>> extract_quotes('The log says "ModuleNotFoundError: scipy" and “exit 1”.')
    ['ModuleNotFoundError: scipy', 'exit 1']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from judgekit.audit.rubric import NONE_TYPE, Rubric

_QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”|«([^»]+)»')
_ELLIPSIS = re.compile(r"\s*(?:\.\.\.|…|\[\.\.\.\])\s*")
#: Quoted fragments shorter than this (non-space characters) are not checked: too short to
#: be evidence, too likely to be found anywhere.
MIN_QUOTE_CHARS = 4


def is_none_type(value: Any) -> bool:
    return isinstance(value, str) and value.strip().casefold() in {NONE_TYPE, "n/a", ""}


def has_evidence(evidence: Any) -> bool:
    if isinstance(evidence, str):
        return bool(evidence.strip())
    if isinstance(evidence, list):
        return any(isinstance(e, str) and e.strip() for e in evidence)
    return False


def logical_problems(verdict: dict[str, Any], rubric: Rubric) -> list[str]:
    """Contradictions within a verdict, each phrased so the judge can fix it."""
    problems: list[str] = []
    score = verdict.get("score")
    exists = verdict.get("deficiency_exists")
    caused = verdict.get("deficiency_caused_failure")
    dtype = verdict.get("deficiency_type", "")
    both = bool(exists) and bool(caused)
    if score == 1 and not both:
        problems.append("score is 1 but deficiency_exists and deficiency_caused_failure are "
                        "not both true; score 1 requires a defect that caused the failure")
    if score == 0 and both:
        problems.append("score is 0 but deficiency_exists and deficiency_caused_failure are "
                        "both true; either score 1 or revise one of them")
    if caused and not exists:
        problems.append("deficiency_caused_failure is true but deficiency_exists is false; "
                        "a defect that does not exist cannot cause the failure")
    if exists:
        if is_none_type(dtype):
            problems.append("deficiency_exists is true but deficiency_type is 'none'; name "
                            "the rubric category of the defect")
        elif rubric.category_name(str(dtype)) is None:
            names = "; ".join(c.name for c in rubric.categories)
            problems.append(f"deficiency_type {dtype!r} is not a category of this rubric; use "
                            f"one of: {names}")
    elif not is_none_type(dtype):
        problems.append(f"deficiency_exists is false but deficiency_type is {dtype!r}; use "
                        "'none' when no defect exists")
    if score == 1 and not has_evidence(verdict.get("evidence")):
        problems.append("score is 1 but evidence is empty; quote the passages that prove "
                        "the defect")
    return problems


def extract_quotes(evidence: Any) -> list[str]:
    """The quoted passages of ``evidence``: each list item, or each "..." in a string."""
    if isinstance(evidence, list):
        items = [e for e in evidence if isinstance(e, str)]
        quotes = []
        for item in items:
            inner = [next(g for g in m.groups() if g) for m in _QUOTED.finditer(item)]
            stripped = item.strip().strip('"“”`')
            quotes += inner if inner and not _QUOTED.fullmatch(item.strip()) else [stripped]
        return [q for q in quotes if q.strip()]
    if isinstance(evidence, str):
        return [next(g for g in m.groups() if g) for m in _QUOTED.finditer(evidence)]
    return []


def normalise(text: str) -> str:
    """Case-folded, with every run of whitespace collapsed to one space."""
    return " ".join(text.casefold().split())


def quote_found(quote: str, haystack: str) -> bool:
    """Whether ``quote`` occurs in normalised ``haystack``; an ellipsis in the quote splits
    it into fragments that must each occur, in order."""
    pos = 0
    for frag in _ELLIPSIS.split(quote):
        frag = normalise(frag.strip().strip('"“”`'))
        if len(frag.replace(" ", "")) < MIN_QUOTE_CHARS:
            continue
        found = haystack.find(frag, pos)
        if found < 0:
            return False
        pos = found + len(frag)
    return True


def missing_quotes(evidence: Any, sources: Iterable[str]) -> tuple[list[str], int]:
    """The quotes of ``evidence`` found in none of ``sources``, and how many were checked."""
    haystack = "\n".join(normalise(s) for s in sources if s)
    checked = [q for q in extract_quotes(evidence)
               if len(q.replace(" ", "")) >= MIN_QUOTE_CHARS]
    return [q for q in checked if not quote_found(q, haystack)], len(checked)


def evidence_problems(verdict: dict[str, Any], sources: Iterable[str]) -> list[str]:
    """Problems with the quoted evidence: passages not in the materials, or, for a score
    of 1, no passage quoted at all."""
    missing, checked = missing_quotes(verdict.get("evidence"), sources)
    problems = [f"this quoted passage is not in the materials: \"{q[:200]}\"; quote only "
                "text that appears verbatim" for q in missing[:5]]
    if verdict.get("score") == 1 and checked == 0:
        problems.append("score is 1 but the evidence quotes nothing from the materials; put "
                        "each supporting passage, copied verbatim, in double quotes")
    return problems


def make_checks(rubric: Rubric, sources: list[str]) -> tuple[
        Callable[[dict[str, Any]], list[str]], Callable[[dict[str, Any]], list[str]]]:
    """The ``check`` and ``soft_check`` callables for one audit request."""
    return (lambda v: logical_problems(v, rubric)), (lambda v: evidence_problems(v, sources))
