"""Item audits: benchmark items judged with a rubric, with no run of them.

Each item (:class:`~judgekit.ingest.items.BenchmarkItem`: the issue text, the fix, the
test patch, the fail-to-pass and pass-to-pass tests, hints) is shown to the judge with the
rubric; the verdict uses the rubric's verdict schema, where score 1 says the item has an
intrinsic defect that would make a correct solution fail. Verdicts are checked as run
audits' are (logic, then evidence quoted verbatim from the item's texts), with samples,
the cache, the cost cap and context fitting of the engine. One
:class:`~judgekit.audit.records.AuditRecord` per item (``arm`` ``item``, ``test_status``
``not run``); an item is suspected when its own verdict blames it with every quote found
in the item's texts (``min_runs`` 1; a verdict whose quotes are not found suspects
nothing).

Example:
    >>> from judgekit.ingest.items import BenchmarkItem
    >>> m = gather_item_materials(BenchmarkItem(instance_id="a__b-1", problem_statement="x"),
    ...                           budget_tokens=4000)
    >>> "<<<UNTRUSTED issue text" in m.prompt
    True
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from judgekit.audit.aggregate import aggregate_tasks, combine_samples, sample_from_outcome
from judgekit.audit.checks import (
    evidence_problems,
    logical_problems,
    verdict_quotes_missing,
)
from judgekit.audit.condense import condense
from judgekit._resources import read_template
from judgekit.audit.materials import RESERVE_TOKENS, Materials, allocate, fence
from judgekit.audit.options import AuditOptions
from judgekit.audit.records import ITEM_ARM, NOT_RUN, AuditRecord
from judgekit.audit.rubric import NONE_TYPE, Rubric, load_rubric
from judgekit.audit.step import AuditResult
from judgekit.audit.verdict import decoding_schema, verdict_schema
from judgekit.engine import Engine, JudgeRequest
from judgekit.engine.tokens import CHARS_PER_TOKEN, estimate_tokens
from judgekit.engine.types import stop_of
from judgekit.errors import ConfigError
from judgekit.ingest.items import BenchmarkItem

#: what each block is called in the prompt (the budget is shared as for run audits).
ITEM_BLOCKS = {"description": "issue text", "hints": "hints", "ground_truth_diff": "fix",
               "test_patch": "test patch", "fail_to_pass": "fail-to-pass tests",
               "pass_to_pass": "pass-to-pass tests", "test_command": "test command"}
MIN_ITEM_TOKENS = 1_500


def item_system_prompt(rubric: Rubric) -> str:
    """The static part of every item request: instructions plus the whole rubric."""
    return read_template("audit_items_system.md").safe_substitute(rubric=rubric.render())


def _raw(item: BenchmarkItem) -> dict[str, str]:
    return {"description": item.problem_statement, "hints": item.hints_text,
            "ground_truth_diff": item.patch, "test_patch": item.test_patch,
            "fail_to_pass": "\n".join(item.fail_to_pass),
            "pass_to_pass": "\n".join(item.pass_to_pass), "test_command": item.test_command}


def gather_item_materials(item: BenchmarkItem, *, budget_tokens: int, system_tokens: int = 0,
                          sample: tuple[int, int] = (1, 1)) -> Materials:
    """The per-item prompt within ``budget_tokens`` (minus the system part), and the texts
    quotes are checked against."""
    raw = _raw(item)
    room = budget_tokens - system_tokens - RESERVE_TOKENS
    alloc = allocate({k: estimate_tokens(v) for k, v in raw.items()}, room)
    blocks, notes = {}, []
    for key, text in raw.items():
        c = condense(text, alloc.get(key, 0), ITEM_BLOCKS[key])
        if c.note:
            notes.append(c.note)
        blocks[key] = fence(ITEM_BLOCKS[key], c.text)
    k, n = sample
    mark = f"\x00{uuid.uuid4().hex}\x00"
    rendered = read_template("audit_items_item.md").safe_substitute(
        task_id=item.instance_id, repo=item.repo or "unknown",
        cut_notes="".join(f"- Note: {note}\n" for note in notes), sample_note=mark, **blocks)
    note = f"\n(This is independent judgement {k} of {n} of this item.)\n" if n > 1 else ""
    at = rendered.find(mark)
    prompt = rendered.replace(mark, note)
    return Materials(prompt=prompt, sources=[v for v in raw.values() if v],
                     cut_notes=notes, shared=len(prompt) if at < 0 else at)


def _request(m: Materials, *, key: str, system: str, rubric: Rubric,
             fit: Any = None) -> JudgeRequest:
    decode = decoding_schema([c.name for c in rubric.categories], NONE_TYPE)
    return JudgeRequest(key=key, system=system, prompt=m.prompt, schema=verdict_schema(),
                        shared=m.shared, decoding_schema=decode,
                        check=partial(logical_problems, rubric=rubric),
                        soft_check=partial(evidence_problems, sources=m.sources), fit=fit)


def _fitted(ask: Callable[[Materials], JudgeRequest], item: BenchmarkItem, system: str,
            sys_tokens: int, sample: tuple[int, int], max_input_tokens: int, max_chars: int
            ) -> JudgeRequest | None:
    """The request with the item's materials condensed to fit ``max_chars`` in all."""
    budget = min(max_input_tokens, max_chars // CHARS_PER_TOKEN)
    for _ in range(3):
        if budget - sys_tokens < 300:
            return None
        m = gather_item_materials(item, budget_tokens=budget, system_tokens=sys_tokens,
                                  sample=sample)
        size = len(system) + len(m.prompt)
        if size <= max_chars:
            return ask(m)
        budget = int(budget * max_chars / size) - 1
    return None


def _normalise_type(rubric: Rubric, value: Any) -> str:
    if not isinstance(value, str) or value.strip().casefold() in {NONE_TYPE, ""}:
        return NONE_TYPE
    return rubric.category_name(value) or value


def run_item_audit(items: Sequence[BenchmarkItem], engine: Engine,
                   options: AuditOptions | None = None) -> AuditResult:
    """Audit every item with the rubric; one record per item, in the items' order."""
    opts = options or AuditOptions()
    rubric = load_rubric(opts.rubric)
    system = item_system_prompt(rubric)
    sys_tokens = estimate_tokens(system)
    if opts.max_input_tokens < sys_tokens + MIN_ITEM_TOKENS:
        raise ConfigError(f"{{option:max_input_tokens}} {opts.max_input_tokens} is too small: "
                          f"rubric {rubric.id!r} alone takes about {sys_tokens} tokens; use at "
                          f"least {sys_tokens + MIN_ITEM_TOKENS}")
    requests: list[JudgeRequest] = []
    meta: list[tuple[list[str], bool]] = []
    for i, item in enumerate(items):
        for k in range(1, opts.samples + 1):
            m = gather_item_materials(item, budget_tokens=opts.max_input_tokens,
                                      system_tokens=sys_tokens, sample=(k, opts.samples))
            ask = partial(_request, key=f"audit-item/{i}/{item.instance_id}/{k}",
                          system=system, rubric=rubric)
            fit = partial(_fitted, ask, item, system, sys_tokens, (k, opts.samples),
                          opts.max_input_tokens)
            requests.append(ask(m, fit=fit))
            meta.append((m.sources, bool(m.cut_notes)))
    outcomes = engine.run(requests) if requests else []
    records = []
    for n, item in enumerate(items):
        chunk = range(n * opts.samples, (n + 1) * opts.samples)
        samples = [sample_from_outcome(
            outcomes[j], partial(_normalise_type, rubric),
            partial(verdict_quotes_missing, meta[j][0]))
            for j in chunk]
        records.append(AuditRecord(task_id=item.instance_id, arm=ITEM_ARM, attempt=0,
                                   test_status=NOT_RUN, materials_cut=meta[chunk[0]][1],
                                   **combine_samples(samples)))
    tasks = aggregate_tasks(records, {}, min_runs=1, verified_only=True)
    return AuditResult(rubric=rubric, records=records, tasks=tasks,
                       model=engine.config.model,
                       samples=opts.samples, stopped=stop_of(outcomes), passes={}, items=True)


__all__ = ["ITEM_ARM", "NOT_RUN", "gather_item_materials", "item_system_prompt",
           "run_item_audit"]


def audit_items(items: Sequence[BenchmarkItem], configs: Sequence[Any],
                options: AuditOptions | None = None) -> tuple[Any, Any]:
    """Every item audited by one judge, or by each judge of a jury in turn (the majority
    classifying each item; a cost cap holds for the jury as a whole: the jury runner,
    :mod:`judgekit.engine.jury`). Returns the audit step's result and the first judge's
    engine (its accounting is ``summary["judge"]``)."""
    from judgekit.audit.jury import AuditJuror, AuditJuryResult
    from judgekit.engine.engine import check_servers
    from judgekit.engine.jury import JuryRunner

    opts = options or AuditOptions()
    check_servers(list(configs))
    first = Engine(configs[0])
    if len(configs) == 1:
        return run_item_audit(items, first, opts), first
    seats = JuryRunner(configs, first).each(lambda engine: run_item_audit(items, engine, opts))
    return AuditJuryResult([AuditJuror(s.label, s.config.model, s.config.base_url, s.result)
                            for s in seats], min_runs=1), first
