"""Use judgekit inside an Inspect AI evaluation: a scorer for coding-agent samples.

Each sample describes one bug-fix task (its metadata carries the repository, the fix commit,
the ground-truth diff and the test command). The agent works in the sample's sandbox; this
scorer collects its diff and the test output from the sandbox, turns them into a judgekit
``RunResult`` and lets judgekit score it: file-level precision/recall/F1 against the fix and an
honest test status (a test command that ran zero tests is ``vacuous``, not a pass).

The run result travels in the score's metadata, so after the evaluation every sample of every
arm can be handed to ``judgekit.evaluate`` for per-arm statistics, pairwise judging and the
audit of failed tasks, and to ``write_reports`` for ``report.html`` (see ``judge_arms`` below).

This file needs ``inspect_ai`` (not a judgekit dependency); judgekit's tests do not import it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from inspect_ai.scorer import Score, Target, mean, scorer
from inspect_ai.solver import TaskState
from inspect_ai.util import sandbox

import judgekit
from judgekit.report import write_reports

TEST_TIMEOUT_S = 900


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


def judge_arms(runs: Iterable[dict], out_dir: str | Path, judge: str) -> None:
    """After the evaluation: judge every arm against every other and write the reports.

    ``runs`` are the ``judgekit_run`` entries of the scores' metadata, read back from the
    Inspect logs (for example with ``inspect_ai.log.read_eval_log``).
    """
    results = [judgekit.RunResult.model_validate(r) for r in runs]
    result = judgekit.evaluate(results, judge=judge)
    write_reports(result, out_dir)
