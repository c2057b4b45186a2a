"""Arms of Inspect AI evals: what tells the evals of one task apart.

An Inspect log holds one eval: one task run by one model with one solver. A sample's arm is,
in this order: the rule the user gave (``ArmFrom``: the model, a metadata key or a task
argument); the arm judgekit's own scorer recorded; the ``arm`` of the eval's metadata (which
holds the task's metadata too) or of the sample's; else, among the evals of the same task,
what differs between them: their task arguments (``context=true``), else their solver
(``system_message+generate``), else the solver's parameters; else the model. Those last two need every eval at hand, so
they are settled once loading has read every log (:func:`settle_arms`).

Two evals of one task that end in the same arm are merged with a warning: the later eval's
samples become further attempts, numbered after the earlier's epochs. Epochs of one eval are
always attempts.

Example:
    >>> a = EvalFacts("e1", "fix", "mockllm/model", "2025-01-01", {"task_args.context": "true"})
    >>> b = EvalFacts("e2", "fix", "mockllm/model", "2025-01-02", {"task_args.context": "false"})
    >>> derived_labels([a, b])
    {'e1': 'context=true', 'e2': 'context=false'}
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from judgekit.ingest.adapters.inspect_options import show
from judgekit.ingest.models import RunResult

#: ``metadata["arm_from"]`` of a result whose arm waits for every eval to be read.
PENDING = "pending"
_MAX_LISTED = 4


@dataclass(frozen=True)
class EvalFacts:
    """One eval, as far as arms are concerned; ``features`` are what may tell it apart from
    other evals of its task (``task_args.NAME``, ``solver``, ``STEP.PARAM``). ``task_id`` is
    Inspect's id of the task run, kept by a retry of the eval."""

    eval_id: str
    task: str
    model: str
    created: str
    features: dict[str, str]
    task_id: str = ""


def _full(value: Any) -> str:
    return show(value, limit=None)


def features_of(spec: Any, plan: Any) -> dict[str, str]:
    """Task arguments, then the solver: the plan's steps (what ran, also for a solver given
    to the eval) and their parameters, or the eval's solver and its arguments."""
    out = {f"task_args.{k}": _full(v) for k, v in sorted((spec.task_args or {}).items())}
    steps = list(getattr(plan, "steps", None) or [])
    if not steps and spec.solver:
        out["solver"] = spec.solver
        out.update({f"{spec.solver}.{k}": _full(v)
                    for k, v in sorted((spec.solver_args or {}).items())})
        return out
    if steps:
        out["solver"] = "+".join(step.solver for step in steps)
    seen: dict[str, int] = defaultdict(int)
    for step in steps:
        seen[step.solver] += 1
        name = step.solver if seen[step.solver] == 1 else f"{step.solver}#{seen[step.solver]}"
        out.update({f"{name}.{k}": _full(v) for k, v in sorted((step.params or {}).items())})
    return out


def _part(key: str, value: str) -> str:
    if key == "solver":
        return value
    return f"{key.removeprefix('task_args.')}={show(value)}"


def _tier(key: str) -> int:
    """Task arguments name an arm first, then the solver, then the solver's parameters."""
    return 0 if key.startswith("task_args.") else 1 if key == "solver" else 2


def derived_labels(evals: Sequence[EvalFacts]) -> dict[str, str]:
    """Arms of the evals of one task: the task arguments that differ between them, else the
    solver, else the solver's parameters, else their model."""
    keys = sorted({k for e in evals for k in e.features})
    differing = [k for k in keys if len({e.features.get(k, "") for e in evals}) > 1]
    first = min((_tier(k) for k in differing), default=None)
    order = [k for k in differing if _tier(k) == first]
    out = {}
    for e in evals:
        parts = [_part(k, e.features.get(k, "")) for k in order]
        out[e.eval_id] = ", ".join(parts) if parts else e.model
    return out


def _listed(items: Sequence[str]) -> str:
    more = f" and {len(items) - _MAX_LISTED} more" if len(items) > _MAX_LISTED else ""
    return ", ".join(items[:_MAX_LISTED]) + more


def settle_arms(results: list[RunResult], evals: dict[str, EvalFacts]) -> list[str]:
    """Give pending results their arms and number merged evals' attempts apart, in place;
    return the warnings (arms derived from the evals' settings, evals merged into one arm)."""
    warnings: list[str] = []
    pending = {r.metadata.get("eval_id") for r in results
               if r.metadata.get("arm_from") == PENDING}
    by_task: dict[str, list[EvalFacts]] = defaultdict(list)
    for eval_id in sorted(e for e in pending if e in evals):
        by_task[evals[eval_id].task].append(evals[eval_id])
    labels: dict[str, str] = {}
    for task, group in sorted(by_task.items()):
        group.sort(key=lambda e: (e.created, e.eval_id))
        derived = derived_labels(group)
        labels.update(derived)
        if any(derived[e.eval_id] != e.model for e in group):
            shown = [f"{derived[e.eval_id]!r} (eval {e.eval_id})" for e in group]
            warnings.append(f"Inspect task {task!r}: {len(group)} evals told apart by their "
                            f"settings, arms named after what differs: {_listed(shown)}; "
                            "an eval's metadata arm names it instead")
    for r in results:
        if r.metadata.get("arm_from") == PENDING:
            eval_id = r.metadata.get("eval_id")
            label = labels.get(eval_id) if isinstance(eval_id, str) else None
            r.arm = label or r.model or r.arm
            r.metadata["arm_from"] = "model" if label in (None, r.model) else "eval settings"
    warnings.extend(_number_merged(results, evals))
    return warnings


def _number_merged(results: list[RunResult], evals: dict[str, EvalFacts]) -> list[str]:
    """Attempts of evals merged into one arm of one task (and one serving model), numbered
    one eval after another."""
    groups: dict[tuple[str, str, str], dict[str, list[RunResult]]] = defaultdict(
        lambda: defaultdict(list))
    for r in results:
        eval_id = r.metadata.get("eval_id")
        task = r.metadata.get("inspect_task")
        if isinstance(eval_id, str) and isinstance(task, str):
            groups[(task, r.arm, r.model or "")][eval_id].append(r)
    warnings = []
    for (task, arm, _model), by_eval in sorted(groups.items()):
        if len(by_eval) < 2:
            continue
        order = sorted(by_eval, key=lambda e: (evals[e].created if e in evals else "", e))
        offset = 0
        for eval_id in order:
            members = by_eval[eval_id]
            for r in members:
                r.attempt += offset
            offset = max(r.attempt for r in members) + 1
        n = sum(len(v) for v in by_eval.values())
        warnings.append(f"Inspect task {task!r}: {len(order)} evals ({_listed(order)}) give "
                        f"the same arm {arm!r} and were merged into it ({n} samples): each "
                        "later eval's samples counted as further attempts; give each eval "
                        "its own metadata arm to keep them apart")
    return warnings


__all__ = ["PENDING", "EvalFacts", "derived_labels", "features_of", "settle_arms"]
