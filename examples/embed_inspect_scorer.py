"""Use judgekit inside an Inspect AI evaluation: a scorer for coding-agent samples.

Each sample describes one bug-fix task (its metadata carries the base commit, the
ground-truth diff and the test command). The agent works in the sample's sandbox; the
scorer collects its diff and the test output from the sandbox, turns them into a judgekit
``RunResult`` and lets judgekit score it: file-level precision/recall/F1 against the fix and
an honest test status (a test command that ran zero tests is ``vacuous``, not a pass).

The run result travels in the score's metadata (``judgekit_run``), so after the evaluation
every sample of every arm can be handed to ``judgekit.evaluate`` for per-arm statistics,
pairwise judging and the audit of failed tasks, and to ``write_reports`` for
``report.html`` (see ``judge_arms``). The Inspect log itself is read back by judgekit as it
is (``pip install 'judgekit[inspect]'``): ``judgekit score logs/`` takes each sample's
``judgekit_run`` whole, so test statuses, F1 and arms (the sample's metadata ``arm``) are
the ones this scorer computed.

Run the bundled demo task (one small repository with one bug, set up in a local sandbox;
``mockllm/model`` answers without a real model, so the bug stays and the test fails; give a
real model, e.g. ``--model anthropic/claude-sonnet-4-5``, to see it fixed). It needs no
network: the mock model's answer comes with its token usage (see ``ask_model``).

    inspect eval examples/embed_inspect_scorer.py@judgekit_demo --model mockllm/model --log-dir logs
    judgekit score logs

This file needs ``inspect_ai`` (the ``inspect`` extra); judgekit itself does not import it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import Score, Target, mean, scorer
from inspect_ai.solver import Generate, TaskState, solver, system_message
from inspect_ai.util import sandbox

import judgekit
from judgekit.report import write_reports

TEST_TIMEOUT_S = 900

CALC = "def div(a, b):\n    return a / b\n"
TEST_CALC = """import unittest

from calc import div


class DivTest(unittest.TestCase):
    def test_div(self):
        self.assertEqual(div(6, 3), 2)

    def test_div_by_zero_is_none(self):
        self.assertIsNone(div(1, 0))


if __name__ == "__main__":
    unittest.main()
"""
FIX_DIFF = """diff --git a/calc.py b/calc.py
--- a/calc.py
+++ b/calc.py
@@ -1,2 +1,4 @@
 def div(a, b):
+    if b == 0:
+        return None
     return a / b
"""
SETUP = ("git init -q . && git add -A && "
         "git -c user.email=demo@example.com -c user.name=demo commit -qm base")
_CODE_BLOCK = re.compile(r"```(?:python)?\n(.*?)```", re.DOTALL)
MOCK_ANSWER = "I looked at calc.py and found nothing to change."


async def _collect(state: TaskState) -> judgekit.RunResult:
    """Build the judgekit run result of one sample from its sandbox."""
    meta = state.metadata
    box = sandbox()
    diff = await box.exec(["git", "diff", "--no-color", "--binary", meta["base_commit"]])
    test = await box.exec(["bash", "-lc", meta["test_command"]], timeout=TEST_TIMEOUT_S)
    return judgekit.RunResult(
        run_id=str(meta.get("run_id") or "") or None,
        task=judgekit.Task(id=str(state.sample_id), repo=meta.get("repo"),
                           commit=meta.get("fix_commit"), description=state.input_text,
                           test_command=meta["test_command"], language=meta.get("language")),
        arm=str(meta.get("arm", "default")),
        attempt=int(state.epoch) - 1,
        agent_diff=diff.stdout if diff.success else None,
        ground_truth_diff=meta.get("fix_diff"),
        test=judgekit.TestResult(exit_code=test.returncode,
                                 output=(test.stdout or "") + (test.stderr or "")),
        model=str(state.model),
    )


@scorer(metrics={"passed": [mean()], "f1": [mean()], "vacuous": [mean()]})
def judgekit_scorer():
    """Score a coding-agent sample with judgekit: test status and file-level F1."""

    async def score(state: TaskState, target: Target) -> Score:
        run = await _collect(state)
        scored = judgekit.score([run]).results[0]
        return Score(
            value={"passed": float(scored.test_status == "passed"),
                   "f1": scored.f1 if scored.f1 is not None else 0.0,
                   "vacuous": float(scored.test_status == "vacuous")},
            answer=scored.test_status,
            explanation=(f"tests {scored.test_status} ({scored.test_reason}); files touched "
                         f"{len(scored.files_touched)}, F1 {scored.f1}"),
            metadata={"judgekit_run": run.model_dump(mode="json")},
        )

    return score


@solver
def ask_model():
    """Ask the eval's model for the fix (Inspect's ``generate``).

    Inspect's mock model (``mockllm/...``) counts the tokens of an answer that carries no
    usage with a tokenizer it downloads; so, when it was given no answers of its own
    (``custom_outputs``), its answer here carries its usage and the demo runs offline.
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        name = str(state.model)
        if not name.startswith("mockllm/") or "custom_outputs" in get_model().model_args:
            return await generate(state)
        answer = ModelOutput.from_content(model=name, content=MOCK_ANSWER)
        answer.usage = ModelUsage(input_tokens=len(state.input_text.split()),
                                  output_tokens=len(MOCK_ANSWER.split()),
                                  total_tokens=len(state.input_text.split())
                                  + len(MOCK_ANSWER.split()))
        model = get_model(name, custom_outputs=[answer], memoize=False)
        state.output = await model.generate(state.messages)
        state.messages.append(state.output.message)
        return state

    return solve


@solver
def write_answer(path: str = "calc.py"):
    """A minimal agent step: the model's last Python code block replaces ``path``."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        blocks = _CODE_BLOCK.findall(state.output.completion or "")
        if blocks:
            await sandbox().write_file(path, blocks[-1])
        return state

    return solve


@task
def judgekit_demo() -> Task:
    """One bug-fix task in a local sandbox, scored by judgekit."""
    sample = Sample(
        id="calc-001",
        input=("calc.py:\n```python\n" + CALC + "```\n`div(1, 0)` raises ZeroDivisionError; "
               "it must return None. Reply with the whole corrected calc.py in one python "
               "code block."),
        metadata={"base_commit": "HEAD", "fix_diff": FIX_DIFF, "language": "python",
                  "test_command": "python -m unittest -v test_calc", "arm": "demo"},
        files={"calc.py": CALC, "test_calc.py": TEST_CALC},
        setup=SETUP,
    )
    return Task(dataset=[sample],
                solver=[system_message("You fix bugs in Python code."), ask_model(),
                        write_answer()],
                scorer=judgekit_scorer(), sandbox="local")


def judge_arms(runs: Iterable[dict], out_dir: str | Path, judge: str) -> None:
    """After the evaluation: judge every arm against every other and write the reports.

    ``runs`` are the ``judgekit_run`` entries of the scores' metadata, read back from the
    Inspect logs (for example with ``inspect_ai.log.read_eval_log``).
    """
    results = [judgekit.RunResult.model_validate(r) for r in runs]
    result = judgekit.evaluate(results, judge=judge)
    write_reports(result, out_dir)
