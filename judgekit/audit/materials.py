"""Gather what the judge sees about one failed result, fenced and fitted to a token budget.

Example:
    >>> from judgekit.ingest.models import RunResult, Task, TestResult
    >>> r = RunResult(task=Task(id="t1", description="Fix it."), arm="a",
    ...               test=TestResult(exit_code=1, output="E   AssertionError"))
    >>> m = gather_materials(r, None, budget_tokens=4000)
    >>> "<<<UNTRUSTED test output" in m.prompt and not m.cut_notes
    True
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, field
from string import Template

from judgekit._resources import read_template
from judgekit.audit.condense import condense
from judgekit.engine.tokens import estimate_tokens
from judgekit.ingest.models import RunResult
from judgekit.ingest.transcripts.render import render_for_judge
from judgekit.scoring.models import ScoredResult

#: Share of the budget each long block may claim (what one block leaves goes to the others).
WEIGHTS = {"transcript": 4.0, "test_output": 3.0, "agent_diff": 2.0, "ground_truth_diff": 2.0,
           "description": 1.0, "harness_error": 0.5}
LABELS = {"transcript": "agent transcript", "test_output": "test output",
          "agent_diff": "agent diff", "ground_truth_diff": "ground-truth diff",
          "description": "task description", "harness_error": "harness error"}
#: Weight of each named material of the result (gold program, evaluation log, ...).
MATERIAL_WEIGHT = 2.0
_MATERIAL = "material:"
#: Tokens kept back for the template's fixed text and the answer's overhead.
RESERVE_TOKENS = 600


@dataclass
class Materials:
    """The per-item prompt, the raw texts quotes are checked against, and what was cut.

    ``shared`` is how many characters at the start of ``prompt`` every sample of the item
    has in common: everything before the sample's note (the prompt's cacheable prefix).
    """

    prompt: str
    sources: list[str] = field(default_factory=list)
    cut_notes: list[str] = field(default_factory=list)
    shared: int = 0

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.prompt)


def fence(label: str, text: str | None) -> str:
    """Enclose untrusted ``text`` in a labelled block whose end marker it cannot forge."""
    if not text or not text.strip():
        return f"(no {label} recorded)"
    tag = hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:12]
    return f"<<<UNTRUSTED {label} {tag}\n{text.rstrip()}\nUNTRUSTED {label} {tag}>>>"


def _weight(key: str) -> float:
    return MATERIAL_WEIGHT if key.startswith(_MATERIAL) else WEIGHTS.get(key, 1.0)


def _label(key: str) -> str:
    return key[len(_MATERIAL):] if key.startswith(_MATERIAL) else LABELS[key]


def allocate(sizes: dict[str, int], budget: int) -> dict[str, int]:
    """Weighted water-filling: blocks smaller than their share keep all their tokens and
    hand the rest to the others."""
    alloc: dict[str, int] = {}
    left = dict(sizes)
    remaining = max(0, budget)
    while left:
        total_w = sum(_weight(k) for k in left)
        shares = {k: int(remaining * _weight(k) / total_w) for k in left}
        small = {k: v for k, v in left.items() if v <= shares[k]}
        if not small:
            alloc.update(shares)
            break
        for k, v in small.items():
            alloc[k] = v
            remaining -= v
            del left[k]
    return alloc


def _transcript(run: RunResult, scored: ScoredResult | None) -> str:
    """The agent's session as text for the judge (failed steps, errors and the final claim
    first), or the transcript as it was recorded when no session was read."""
    if run.session is None or run.session.format == "raw":
        return run.transcript or (run.session.raw if run.session else None) or ""
    return render_for_judge(run.session,
                            claim_denied=bool(scored and scored.claimed_unverified))


def _raw_blocks(run: RunResult, scored: ScoredResult | None = None) -> dict[str, str]:
    test = run.test
    return {
        "description": run.task.description or "",
        "harness_error": run.harness_error or "",
        "test_output": (test.output or "") if test else "",
        "agent_diff": run.agent_diff or "",
        "ground_truth_diff": run.ground_truth_diff or "",
        "transcript": _transcript(run, scored),
        **{f"{_MATERIAL}{name}": text for name, text in sorted(run.materials.items()) if text},
    }


#: the request's first line: what is audited. A result whose outcome is unknown may have
#: passed, so it is not called a failure.
HEADLINE = "Audit this failed result and submit your verdict."
HEADLINE_UNKNOWN = (
    "Audit this result and submit your verdict. Its outcome is unknown: no evidence says "
    "whether it passed its tests, so it may have passed. Where the instructions speak of "
    "the failure, ask whether a defect of the benchmark item would make this result fail; "
    "score 1 only when the materials show such a defect and that it decided this result's "
    "outcome, else 0.")


def headline(status: str) -> str:
    """The request's first line for a result of test status ``status``.

    Example:
        >>> headline("failed")
        'Audit this failed result and submit your verdict.'
        >>> "may have passed" in headline("unknown")
        True
    """
    return HEADLINE_UNKNOWN if status == "unknown" else HEADLINE


def _verdict_line(run: RunResult) -> str:
    if run.success is None:
        return "not recorded"
    return "success" if run.success else "failure"


def gather_materials(run: RunResult, scored: ScoredResult | None, *, budget_tokens: int,
                     system_tokens: int = 0, sample: tuple[int, int] = (1, 1)) -> Materials:
    """Build the per-item prompt for ``run`` within ``budget_tokens`` (minus the system part)."""
    raw = _raw_blocks(run, scored)
    room = budget_tokens - system_tokens - RESERVE_TOKENS - estimate_tokens(run.task.test_command or "")
    alloc = allocate({k: estimate_tokens(v) for k, v in raw.items()}, room)
    blocks: dict[str, str] = {}
    shown: list[str] = []
    notes: list[str] = []
    for key, text in raw.items():
        c = condense(text, alloc.get(key, 0), _label(key))
        if c.note:
            notes.append(c.note)
        if key.startswith(_MATERIAL):
            shown.append(f"### {_label(key)}\n\n{fence(_label(key), c.text)}")
        else:
            blocks[key] = fence(LABELS[key], c.text)
    status = scored.test_status if scored else "unknown"
    reason = (scored.test_reason if scored else "") or "no reason recorded"
    tests_run = scored.tests_run if scored and scored.tests_run is not None else "unknown"
    k, n = sample
    cut = "".join(f"- Note: {note}\n" for note in notes)
    mark = f"\x00{uuid.uuid4().hex}\x00"  # where the sample's note goes: no material holds it
    rendered = read_template("audit_item.md").safe_substitute(
        headline=headline(status), task_id=run.task_id, arm=run.arm, attempt=run.attempt, test_status=status,
        test_reason=reason, tests_run=tests_run, harness_status=run.harness_status,
        cut_notes=cut, test_command=fence("test command", run.task.test_command),
        sample_note=mark,
        benchmark_verdict=_verdict_line(run),
        materials="\n\n".join(shown) if shown else "(no other materials recorded)",
        **blocks)
    note = f"\n(This is independent judgement {k} of {n} of this result.)\n" if n > 1 else ""
    at = rendered.find(mark)
    prompt = rendered.replace(mark, note)
    sources = [v for v in raw.values() if v] + [run.task.test_command or "", reason]
    if run.session is not None:  # a quote of a tool's output or of its command verifies
        sources += [c.output or "" for c in run.session.tool_calls]
    return Materials(prompt=prompt, sources=sources, cut_notes=notes,
                     shared=len(prompt) if at < 0 else at)
