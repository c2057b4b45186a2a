"""Small coding evaluations run by inspect-ai itself (mock model, no network) for the tests.

The tasks keep their data where Inspect's port of SWE-bench keeps it: the gold patch in the
sample's metadata (``patch``, with ``test_patch``, ``FAIL_TO_PASS``, ``PASS_TO_PASS``,
``repo``, ``base_commit``) and the agent's patch in the score's metadata (``model_patch``).
The mock model answers each sample with a patch chosen by the test; every answer carries its
token usage, so Inspect never downloads a tokenizer to count it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import inspect_ai
from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer
from inspect_ai.solver import Generate, TaskState, generate, solver, system_message
from inspect_ai.util import store

MODEL = "mockllm/model"
REPO = "acme/calc"
BASE = "0123abc"
IDS = ("s1", "s2", "s3", "s4", "s5")
#: The file each sample's fix changes; its test file is ``tests/test_<name>``.
SOURCE = {"s1": "calc/add.py", "s2": "calc/sub.py", "s3": "calc/mul.py", "s4": "calc/div.py",
          "s5": "calc/pow.py"}


def diff(*paths: str) -> str:
    """A unified diff changing one line of each path."""
    return "".join(f"diff --git a/{p} b/{p}\n--- a/{p}\n+++ b/{p}\n@@ -1 +1 @@\n-old\n+new\n"
                   for p in paths)


def test_file(sample_id: str) -> str:
    return "tests/test_" + SOURCE[sample_id].rsplit("/", 1)[-1]


def samples() -> list[Sample]:
    return [Sample(id=i, input=f"Fix the bug of {SOURCE[i]} ({i}).",
                   metadata={"patch": diff(SOURCE[i]), "test_patch": diff(test_file(i)),
                             "FAIL_TO_PASS": [f"{test_file(i)}::test_bug"],
                             "PASS_TO_PASS": [f"{test_file(i)}::test_ok"],
                             "repo": REPO, "base_commit": BASE})
            for i in IDS]


@scorer(metrics=[accuracy()])
def swe_like(keep_patch: bool = True) -> Any:
    """Resolved when the agent's patch changes exactly the fix's files (the test harness's
    verdict, as far as these tests go); the patch goes into the score's metadata unless
    ``keep_patch`` is false."""

    async def score(state: TaskState, target: Target) -> Score:
        patch = state.output.completion
        wanted = diff(SOURCE[str(state.sample_id)])
        return Score(value=CORRECT if patch == wanted else INCORRECT,
                     metadata={"model_patch": patch} if keep_patch else None)

    return score


@solver
def fail_on(*ids: str) -> Any:
    """The agent's harness breaks on these samples (an error, not a failed test)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if str(state.sample_id) in ids:
            raise RuntimeError(f"sandbox died on {state.sample_id}")
        return state

    return solve


@solver
def keep_in_store(key: str) -> Any:
    """An agent that keeps its patch in the sample's store under ``key`` (``a.b``: in the
    object stored under ``a``, as ``b``)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        head, dot, rest = key.partition(".")
        store().set(head, {rest: state.output.completion} if dot else state.output.completion)
        return state

    return solve


@solver
def with_context() -> Any:
    """A 'with context' step: adds a hint before the model is asked."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state.user_prompt.text = state.user_prompt.text + "\n(hint: read calc/)"
        return state

    return solve


@task
def swe_calc(errors: str = "", context: bool = False, store_key: str = "") -> Task:
    """The SWE-bench-layout coding task; ``errors`` names samples whose harness breaks; with
    a ``store_key`` the agent keeps its patch in the store under it, not in the score."""
    steps = [system_message("You fix bugs."), fail_on(*[e for e in errors.split(",") if e])]
    if context:
        steps.append(with_context())
    steps.append(generate())
    if store_key:
        steps.append(keep_in_store(store_key))
    return Task(dataset=samples(), solver=steps, scorer=swe_like(keep_patch=not store_key))


def answers(touch: Mapping[str, str]) -> Any:
    """A mock model answering each sample with a patch of ``touch[sample id]``."""

    def answer(messages: list[Any], *_: Any) -> ModelOutput:
        text = next(m.text for m in messages if m.role == "user")
        sample_id = re.search(r"\((s\d+)\)", text).group(1)  # type: ignore[union-attr]
        out = ModelOutput.from_content(model=MODEL, content=diff(touch[sample_id]))
        out.usage = ModelUsage(input_tokens=50, output_tokens=20, total_tokens=70)
        return out

    return get_model(MODEL, custom_outputs=answer, memoize=False)


def run(the_task: Task, log_dir: Path, fmt: str, touch: Mapping[str, str],
        **kwargs: Any) -> Path:
    """Run one eval of ``the_task`` with the mock model; the log's path."""
    [log] = inspect_ai.eval(the_task, model=answers(touch), log_dir=str(log_dir),
                            log_format=fmt, display="none", fail_on_error=False,
                            max_samples=1, **kwargs)
    assert log.status == "success", log.error
    return Path(log.location)


def as_json(log_path: Path, out: Path) -> Path:
    """The same log written again by inspect-ai in its ``.json`` format."""
    from inspect_ai.log import read_eval_log, write_eval_log

    log = read_eval_log(str(log_path))
    target = out / (log_path.stem + ".json")
    write_eval_log(log, str(target), format="json")
    return target


#: The answers of the two arms of the contract's example: context fixes s1-s4, baseline s1-s2.
RIGHT: dict[str, str] = dict(SOURCE)
BASELINE: dict[str, str] = {**SOURCE, "s3": "calc/util.py", "s4": "calc/util.py",
                            "s5": "calc/util.py"}
CONTEXT: dict[str, str] = {**SOURCE, "s5": "calc/util.py"}

__all__ = ["BASELINE", "CONTEXT", "IDS", "MODEL", "RIGHT", "SOURCE", "as_json", "diff",
           "keep_in_store", "run", "samples", "swe_calc", "swe_like", "test_file"]
