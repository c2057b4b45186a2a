"""Arms of Inspect AI evals written by inspect-ai itself: what tells evals of one task apart,
``--arm-from``, and evals merged into one arm only with a warning."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai")

from tests.clirun import judgekit  # noqa: E402
from tests.ingest import inspect_evals as ev  # noqa: E402


def score_json(*args: Any) -> dict[str, Any]:
    proc = judgekit("score", *args, "--json", "--no-similarity")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def passes(summary: dict[str, Any]) -> dict[str, int]:
    return {arm: sum(1 for r in summary["results"]
                     if r["arm"] == arm and r["test_status"] == "passed")
            for arm in summary["arms"]}


@pytest.fixture(scope="module")
def by_task_args(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Baseline and with-context evals of one task, told apart by a task argument only."""
    out = tmp_path_factory.mktemp("task-args")
    ev.run(ev.swe_calc(), out, "eval", ev.BASELINE)
    ev.run(ev.swe_calc(context=True), out, "json", ev.CONTEXT)
    return out


@pytest.fixture(scope="module")
def identical(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same eval (task, settings, model) run twice, without any arm named."""
    out = tmp_path_factory.mktemp("identical")
    ev.run(ev.swe_calc(), out, "eval", ev.BASELINE)
    ev.run(ev.swe_calc(), out, "eval", ev.CONTEXT)
    return out


def test_evals_differing_in_a_task_argument_are_two_arms_named_by_it(by_task_args: Path) -> None:
    summary = score_json(by_task_args)
    assert passes(summary) == {"context=false": 2, "context=true": 4}
    [comparison] = summary["comparisons"]
    assert comparison["n_paired"] == 5
    [line] = [w for w in summary["warnings"] if "told apart" in w]
    assert "'context=false'" in line and "'context=true'" in line


def test_evals_differing_in_their_solver_are_two_arms_named_by_it(tmp_path: Path) -> None:
    from inspect_ai.solver import generate, system_message

    ev.run(ev.swe_calc(), tmp_path, "eval", ev.BASELINE,
           solver=[system_message("Fix it."), generate()])
    ev.run(ev.swe_calc(), tmp_path, "eval", ev.CONTEXT,
           solver=[system_message("Fix it."), ev.with_context(), generate()])
    summary = score_json(tmp_path)
    assert passes(summary) == {"system_message+generate": 2,
                               "system_message+with_context+generate": 4}
    assert len(summary["comparisons"]) == 1


def test_arm_from_names_the_arm_by_the_rule_given(by_task_args: Path) -> None:
    summary = score_json(by_task_args, "--arm-from", "task-arg:context")
    assert passes(summary) == {"context=false": 2, "context=true": 4}
    assert not any("told apart" in w for w in summary["warnings"])
    by_model = score_json(by_task_args, "--arm-from", "model")
    assert list(by_model["arms"]) == [ev.MODEL]
    [merged] = [w for w in by_model["warnings"] if "merged" in w]
    assert "2 evals" in merged and "further attempts" in merged


def test_identical_evals_are_merged_with_a_warning_and_numbered_apart(identical: Path) -> None:
    summary = score_json(identical)
    assert list(summary["arms"]) == [ev.MODEL]
    assert summary["arms"][ev.MODEL]["n"] == 10  # nothing lost as a duplicate
    [merged] = [w for w in summary["warnings"] if "merged" in w]
    assert f"the same arm {ev.MODEL!r}" in merged and "10 samples" in merged
    attempts = sorted((r["task_id"], r["attempt"]) for r in summary["results"])
    assert attempts == sorted((f"swe_calc/{i}", a) for i in ev.IDS for a in (0, 1))


def test_epochs_of_one_eval_stay_attempts_without_a_warning(tmp_path: Path) -> None:
    ev.run(ev.swe_calc(), tmp_path, "eval", ev.CONTEXT, epochs=2)
    summary = score_json(tmp_path)
    assert summary["arms"][ev.MODEL]["n"] == 10
    assert {r["attempt"] for r in summary["results"]} == {0, 1}
    assert not any("merged" in w or "told apart" in w for w in summary["warnings"])


def test_task_metadata_names_the_arm(tmp_path: Path) -> None:
    from inspect_ai import Task

    for arm, touch in (("plain", ev.BASELINE), ("hinted", ev.CONTEXT)):
        base = ev.swe_calc()
        ev.run(Task(dataset=base.dataset, solver=base.solver, scorer=base.scorer,
                    metadata={"arm": arm}), tmp_path, "json", touch)
    assert passes(score_json(tmp_path)) == {"hinted": 4, "plain": 2}


def test_arm_from_a_metadata_key_no_eval_has_is_one_line_naming_it(identical: Path) -> None:
    proc = judgekit("score", identical, "--arm-from", "metadata:variant")
    assert proc.returncode == 2
    [line] = proc.stderr.strip().splitlines()
    assert ".eval: eval.metadata.variant: the key that names the arm" in line
    bad = judgekit("score", identical, "--arm-from", "colour")
    assert bad.returncode == 2
    [line] = bad.stderr.strip().splitlines()
    assert "--arm-from" in line and "expected model, metadata:KEY or task-arg:NAME" in line


def test_a_retried_eval_counts_each_sample_once(tmp_path: Path) -> None:
    """``eval_retry`` writes a second log of the same task run holding the first's finished
    samples again: each sample is counted once, from the latest log, and the rest said."""
    import inspect_ai

    [first] = inspect_ai.eval(ev.swe_calc(errors="s3,s4,s5"), model=ev.answers(ev.CONTEXT),
                              log_dir=str(tmp_path), display="none", max_samples=1,
                              fail_on_error=True)
    assert first.status == "error"
    [retry] = inspect_ai.eval_retry(first, log_dir=str(tmp_path), display="none",
                                    max_samples=1)
    assert retry.eval.task_id == first.eval.task_id
    summary = score_json(tmp_path)
    ids = sorted({f"swe_calc/{s.id}" for log in (first, retry) for s in log.samples or []})
    statuses = sorted((r["task_id"], r["attempt"], r["test_status"]) for r in summary["results"])
    assert statuses == [(i, 0, "passed" if i in ("swe_calc/s1", "swe_calc/s2") else "error")
                        for i in ids]
    assert len(ids) >= 3
    held = len(first.samples or [])
    [line] = [w for w in summary["warnings"] if "retried" in w]
    assert f"{held} samples of the earlier logs left out" in line
    assert not any("merged" in w for w in summary["warnings"])
