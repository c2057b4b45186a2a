"""Checks a verdict must pass beyond its schema: logic, categories, and quoted evidence.

``logical_problems`` feeds the engine's ``check`` (re-asked until consistent, bounded);
``evidence_problems`` feeds ``soft_check`` (re-asked once, then recorded).

They take the model's answer as it came, a JSON object (``dict``), not the typed
:class:`~judgekit.audit.verdict.Verdict`: they run before the answer is validated, and
must word what is wrong with an answer that is not a valid verdict yet.

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
from collections.abc import Iterable
from typing import Any

from judgekit.audit.rubric import NONE_TYPE, Rubric

_ELLIPSIS = re.compile(
    r"\s*(?:\[\.\.\. ?\d+ lines \(\d+ characters\) cut here \.\.\.\]|\.\.\.|…|\[\.\.\.\]|\[…\])\s*")
#: Opening quote marks and the mark that closes each.
_PAIRS = {'"': '"', "“": "”", "«": "»", "„": "“"}
#: Characters after which a quote mark can open a passage, and after which one closes it.
_BEFORE_OPEN = set(" \t\n([{:,;=")
_AFTER_CLOSE = set(" \t\n.,;:)]}!?")
#: Quote marks, backslashes and whitespace: ignored when a passage is looked up, so escaping
#: (``\"``), curly quotes, re-wrapped lines and collapsed spaces do not matter.
_IGNORED = re.compile(r"[\s\\\"'`“”‘’«»„]+")
_ESCAPES = re.compile(r"\\[ntr]")
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


def _balanced(text: str) -> bool:
    return all(text.count(o) == text.count(c) for o, c in ("{}", "[]", "()"))


def _escaped(text: str, i: int) -> bool:
    n = 0
    while i - n - 1 >= 0 and text[i - n - 1] == "\\":
        n += 1
    return n % 2 == 1


def _spans(text: str) -> list[tuple[int, int]]:
    """Where the quoted passages of ``text`` are (inside their marks). A passage opens at a
    quote mark that follows a space or punctuation and closes at the first matching mark
    followed by a space, punctuation or the end with brackets balanced inside, so
    ``"{"a": 1}"`` and ``"\\"ok\\": false"`` are one passage each; escaped marks never close
    one."""
    out: list[tuple[int, int]] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in _PAIRS and not _escaped(text, i) and (i == 0 or text[i - 1] in _BEFORE_OPEN):
            close = _PAIRS[ch]
            ends = [j for j in range(i + 1, n) if text[j] == close and not _escaped(text, j)
                    and (j == n - 1 or text[j + 1] in _AFTER_CLOSE)]
            end = next((j for j in ends if _balanced(text[i + 1:j])), ends[0] if ends else -1)
            if end > i + 1:
                out.append((i + 1, end))
                i = end + 1
                continue
        i += 1
    return out


def _passages(text: str) -> list[str]:
    return [text[a:b].replace('\\"', '"') for a, b in _spans(text)]


def _outside(text: str) -> str:
    """``text`` without its quoted passages (and their marks)."""
    out, last = [], 0
    for a, b in _spans(text):
        out.append(text[last:max(a - 1, last)])
        last = b + 1
    return "".join(out) + text[last:]


def _has_quote_marks(text: str) -> bool:
    return any(ch in text for ch in (*_PAIRS, *_PAIRS.values()))


def extract_quotes(evidence: Any) -> list[str]:
    """The passages ``evidence`` claims are verbatim.

    A string: each quoted passage; a string without any quote mark is itself one passage
    (an excerpt pasted as is). A list: each item, its outer quotes removed, or the quoted
    passages inside it when it also holds other words.
    """
    if isinstance(evidence, list):
        quotes: list[str] = []
        for item in (e.strip() for e in evidence if isinstance(e, str)):
            inner = _passages(item)
            if len(inner) == 1 and not re.search(r"\w", _outside(item)):
                quotes += inner  # the item is one quoted passage
            elif inner and re.search(r"\w", _outside(item)):
                quotes += inner  # words around quoted passages: the passages are the quotes
            else:
                quotes.append(item)  # a bare excerpt
        return [q for q in quotes if q.strip()]
    if isinstance(evidence, str):
        if not evidence.strip():
            return []
        found = [q for q in _passages(evidence) if q.strip()] \
            if _has_quote_marks(evidence) else []
        return found or [evidence.strip()]  # no passage marked: the field is the excerpt
    return []


def normalise(text: str) -> str:
    """Case-folded, with escape sequences (``\\n``), whitespace, backslashes and quote marks
    removed: the form in which passages are looked up."""
    return _IGNORED.sub("", _ESCAPES.sub(" ", text.casefold()))


def quote_found(quote: str, haystack: str) -> bool:
    """Whether ``quote`` occurs in ``haystack`` (already :func:`normalise`\\ d); an ellipsis
    or a condensing marker in the quote splits it into fragments that must each occur, in
    order."""
    pos = 0
    checked = False
    for frag in _ELLIPSIS.split(quote):
        frag = normalise(frag)
        if len(frag) < MIN_QUOTE_CHARS:
            continue
        found = haystack.find(frag, pos)
        if found < 0:
            return False
        pos, checked = found + len(frag), True
    return checked or normalise(quote) in haystack


def _long_enough(quote: str) -> bool:
    return len(normalise(quote)) >= MIN_QUOTE_CHARS


def missing_quotes(evidence: Any, sources: Iterable[str]) -> tuple[list[str], int]:
    """The quotes of ``evidence`` found in none of ``sources``, and how many were checked."""
    haystack = "\n".join(normalise(s) for s in sources if s)
    checked = [q for q in extract_quotes(evidence) if _long_enough(q)]
    return [q for q in checked if not quote_found(q, haystack)], len(checked)


def verdict_quotes_missing(sources: Iterable[str], verdict: dict[str, Any]) -> list[str]:
    """The quotes of a verdict's ``evidence`` found in none of ``sources``."""
    return missing_quotes(verdict.get("evidence"), sources)[0]


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
